package store

// The lexical index: one FTS5 table per project (docs/adr/0006), holding
// each chunk's title, headings and text as analysed by the lexical package
// for the project's language. bm25 takes its statistics (document count,
// average lengths, document frequencies) from one table, so a project's
// scores depend on its own chunks alone.
//
// The tables are contentless: the text lives once, in chunks, and the
// analysed form is only ever read back through the index. Writes go with
// the chunk writes of the same transaction (no triggers: SQL cannot stem).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mattn/go-sqlite3"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// ErrUnknownLanguage is what SetLanguage's error matches, with
// ragd.ErrInvalid, when the language is not one the lexical package
// analyses.
var ErrUnknownLanguage = lexical.ErrUnknownLanguage

// lexicalTable is the name of project id's FTS5 table. The id is an
// integer the store assigned, so the name needs no quoting.
func lexicalTable(projectID int64) string {
	return "chunks_fts_" + strconv.FormatInt(projectID, 10)
}

// execer is what *sql.DB and *sql.Tx have in common for writes.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// createLexicalTable creates a project's empty lexical table. The analysed
// text is tokens joined by single spaces, so the ascii tokenizer indexes
// exactly the analyser's tokens (it splits at ASCII non-alphanumerics and
// leaves other bytes in the token; the tokens hold no upper case ASCII).
func createLexicalTable(ctx context.Context, tx execer, projectID int64) error {
	_, err := tx.ExecContext(ctx, "CREATE VIRTUAL TABLE "+lexicalTable(projectID)+` USING fts5(
		title, heading_path, content,
		content = '', contentless_delete = 1, tokenize = 'ascii')`)
	if err != nil {
		return fmt.Errorf("create lexical table of project %d: %w", projectID, err)
	}
	if err := createBoundsTable(ctx, tx, projectID); err != nil {
		return err
	}
	return createVocabTable(ctx, tx, projectID)
}

// vocabTable is the name of the fts5vocab table over project id's lexical
// table: one row per token with the number of rows holding it.
func vocabTable(projectID int64) string {
	return lexicalTable(projectID) + "_vocab"
}

// createVocabTable creates the 'row' fts5vocab table over a project's
// lexical table, unless it exists. It stores nothing: it reads the FTS5
// index of the table it names whenever it is queried.
func createVocabTable(ctx context.Context, tx execer, projectID int64) error {
	_, err := tx.ExecContext(ctx, "CREATE VIRTUAL TABLE IF NOT EXISTS "+vocabTable(projectID)+
		" USING fts5vocab("+lexicalTable(projectID)+", 'row')")
	if err != nil {
		return fmt.Errorf("create vocabulary table of project %d: %w", projectID, err)
	}
	return nil
}

func dropLexicalTable(ctx context.Context, tx execer, projectID int64) error {
	if err := dropBoundsTable(ctx, tx, projectID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+vocabTable(projectID)); err != nil {
		return fmt.Errorf("drop vocabulary table of project %d: %w", projectID, err)
	}
	if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+lexicalTable(projectID)); err != nil {
		return fmt.Errorf("drop lexical table of project %d: %w", projectID, err)
	}
	return nil
}

// lexicalDoc is the analysed text of one chunk, as its lexical row holds it.
type lexicalDoc struct {
	title, heading, content string
}

func analyseChunk(a *lexical.Analyzer, title, headingJSON, content string) lexicalDoc {
	return lexicalDoc{title: a.Text(title), heading: a.Text(rules.HeadingText(headingJSON)), content: a.Text(content)}
}

// lexicalWriter writes the rows of one project's lexical table in a
// transaction.
type lexicalWriter struct {
	ins, del *sql.Stmt
	// bounds keeps the words' bounds (lexicalbounds.go); nil for a table
	// that predates them.
	bounds *boundsWriter
}

func newLexicalWriter(ctx context.Context, tx *sql.Tx, projectID int64) (*lexicalWriter, error) {
	t := lexicalTable(projectID)
	ins, err := tx.PrepareContext(ctx, "INSERT INTO "+t+" (rowid, title, heading_path, content) VALUES (?, ?, ?, ?)")
	if err != nil {
		return nil, fmt.Errorf("prepare lexical insert: %w", err)
	}
	del, err := tx.PrepareContext(ctx, "DELETE FROM "+t+" WHERE rowid = ?")
	if err != nil {
		ins.Close()
		return nil, fmt.Errorf("prepare lexical delete: %w", err)
	}
	var bounds *boundsWriter
	if keepBounds {
		bounds, err = newBoundsWriter(ctx, tx, projectID)
	}
	if err != nil {
		ins.Close()
		del.Close()
		return nil, err
	}
	return &lexicalWriter{ins: ins, del: del, bounds: bounds}, nil
}

func (w *lexicalWriter) insert(ctx context.Context, seq int64, d lexicalDoc) error {
	if _, err := w.ins.ExecContext(ctx, seq, d.title, d.heading, d.content); err != nil {
		return fmt.Errorf("lexical insert: %w", err)
	}
	if w.bounds != nil {
		return w.bounds.insert(ctx, d)
	}
	return nil
}

// delete deletes row seq, whose text analyses to old (its words' row
// counts fall).
func (w *lexicalWriter) delete(ctx context.Context, seq int64, old lexicalDoc) error {
	if err := w.bounds.remove(ctx, seq, old); err != nil {
		return err
	}
	if _, err := w.del.ExecContext(ctx, seq); err != nil {
		return fmt.Errorf("lexical delete: %w", err)
	}
	return nil
}

// flush writes the words' bounds and row counts the writes changed: it
// must run before the transaction commits.
func (w *lexicalWriter) flush(ctx context.Context) error {
	return w.bounds.flush(ctx)
}

func (w *lexicalWriter) Close() {
	w.ins.Close()
	w.del.Close()
	w.bounds.Close()
}

// projectLanguages reads a project's language setting and the language its
// lexical table was built with ("" while nothing decided it: no chunk was
// ever written).
func projectLanguages(ctx context.Context, q queryer, projectID int64) (setting, built string, err error) {
	err = q.QueryRowContext(ctx, "SELECT language, lexical_language FROM projects WHERE id = ?", projectID).Scan(&setting, &built)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("project %d: %w", projectID, ragd.ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("language of project %d: %w", projectID, err)
	}
	return setting, built, nil
}

// detectLanguage chooses a language from a sample of a project's text.
func detectLanguage(sample string) string {
	return string(lexical.Detect(sample).Language)
}

// projectSample returns the start of a project's stored text, documents
// first, for detection.
func projectSample(ctx context.Context, q queryer, projectID int64) (string, error) {
	rows, err := q.QueryContext(ctx, `SELECT title || ' ' || content FROM chunks WHERE project_id = ?
		ORDER BY scope = 'session', seq`, projectID)
	if err != nil {
		return "", fmt.Errorf("sample text of project %d: %w", projectID, err)
	}
	defer rows.Close()
	sample, err := rules.ReadSample(rows)
	if err != nil {
		return "", fmt.Errorf("sample text of project %d: %w", projectID, err)
	}
	return sample, nil
}

// rebuildLexical drops a project's lexical table and fills a new one from
// its chunks, analysed for lang, and records lang. It returns the number of
// chunks indexed.
func rebuildLexical(ctx context.Context, tx *sql.Tx, projectID int64, lang string) (int, error) {
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		return 0, err
	}
	if err := dropLexicalTable(ctx, tx, projectID); err != nil {
		return 0, err
	}
	if err := createLexicalTable(ctx, tx, projectID); err != nil {
		return 0, err
	}
	rows, err := tx.QueryContext(ctx, "SELECT seq, title, heading_path, content FROM chunks WHERE project_id = ? ORDER BY seq", projectID)
	if err != nil {
		return 0, fmt.Errorf("rebuild lexical table of project %d: %w", projectID, err)
	}
	texts, err := rules.ReadTexts(rows)
	rows.Close()
	if err != nil {
		return 0, fmt.Errorf("rebuild lexical table of project %d: %w", projectID, err)
	}
	type row struct {
		seq int64
		doc lexicalDoc
	}
	all := make([]row, len(texts))
	for i, t := range texts {
		all[i] = row{t.Seq, analyseChunk(a, t.Title, t.Heading, t.Content)}
	}
	w, err := newLexicalWriter(ctx, tx, projectID)
	if err != nil {
		return 0, fmt.Errorf("rebuild lexical table of project %d: %w", projectID, err)
	}
	defer w.Close()
	if w.bounds != nil && len(all) > 0 {
		// The bounds' reference length: the new table's average.
		size := 0
		for _, r := range all {
			for _, s := range []string{r.doc.title, r.doc.heading, r.doc.content} {
				size += asciiTokens(s, func(string) {})
			}
		}
		if size > 0 {
			if err := w.bounds.setRef(ctx, float64(size)/float64(len(all))); err != nil {
				return 0, fmt.Errorf("rebuild lexical table of project %d: %w", projectID, err)
			}
		}
	}
	for _, r := range all {
		if err := w.insert(ctx, r.seq, r.doc); err != nil {
			return 0, fmt.Errorf("rebuild lexical table of project %d: %w", projectID, err)
		}
	}
	if err := w.flush(ctx); err != nil {
		return 0, fmt.Errorf("rebuild lexical table of project %d: %w", projectID, err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE projects SET lexical_language = ? WHERE id = ?", lang, projectID); err != nil {
		return 0, fmt.Errorf("record language of project %d: %w", projectID, err)
	}
	return len(all), nil
}

// SetLanguage sets a project's language ("" for automatic: detected from
// its text) and, when the language in force changes, rebuilds the
// project's lexical table from its chunks, in one transaction: searches
// see the old table or the new one. No vector is touched. Callers keep
// reindexes of the project out meanwhile (the index package does).
func (s *Store) SetLanguage(ctx context.Context, projectID int64, language string) (ragd.LanguageChange, error) {
	defer s.projects.forget() // its language changes
	var ch ragd.LanguageChange
	setting := ""
	if strings.TrimSpace(language) != "" {
		l, err := lexical.ParseLanguage(language)
		if err != nil {
			return ch, fmt.Errorf("set language of project %d: %w: %w", projectID, ragd.ErrInvalid, err)
		}
		setting = string(l)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return ch, fmt.Errorf("set language of project %d: %w", projectID, err)
	}
	defer tx.Rollback()
	_, built, err := projectLanguages(ctx, tx, projectID)
	if err != nil {
		return ch, fmt.Errorf("set language: %w", err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE projects SET language = ? WHERE id = ?", setting, projectID); err != nil {
		return ch, fmt.Errorf("set language of project %d: %w", projectID, err)
	}
	if built != "" {
		// Text was indexed: the table follows the language in force.
		want := setting
		if want == "" {
			sample, err := projectSample(ctx, tx, projectID)
			if err != nil {
				return ch, fmt.Errorf("set language: %w", err)
			}
			want = detectLanguage(sample)
		}
		if want != built {
			if ch.Chunks, err = rebuildLexical(ctx, tx, projectID, want); err != nil {
				return ch, fmt.Errorf("set language: %w", err)
			}
			ch.Rebuilt = true
		}
	}
	// Otherwise nothing was indexed yet: the first write takes the setting.
	if ch.Project, err = scanProject(tx.QueryRowContext(ctx, "SELECT "+projectColumns+" FROM projects WHERE id = ?", projectID)); err != nil {
		return ch, fmt.Errorf("set language of project %d: %w", projectID, err)
	}
	if err := tx.Commit(); err != nil {
		return ch, fmt.Errorf("set language of project %d: %w", projectID, err)
	}
	return ch, nil
}

// LexicalLanguage returns the language the project's lexical table holds,
// as seen by the snapshot: queries must be analysed with it.
func (sn *Snapshot) LexicalLanguage(ctx context.Context, projectID int64) (string, error) {
	setting, built, err := projectLanguages(ctx, sn.tx, projectID)
	if err != nil {
		return "", err
	}
	return rules.InForce(setting, built), nil
}

// lexicalState is what a chunk's lexical row is analysed from, beside its
// text (which its id fixes).
type lexicalState struct {
	title, heading string
}

// lexicalStates maps the id of each chunk of a project's scope to its
// lexicalState.
func lexicalStates(ctx context.Context, q queryer, projectID int64, scope string) (map[string]lexicalState, error) {
	rows, err := q.QueryContext(ctx, "SELECT id, title, heading_path FROM chunks WHERE project_id = ? AND scope = ?", projectID, scope)
	if err != nil {
		return nil, fmt.Errorf("read stored chunks: %w", err)
	}
	defer rows.Close()
	out := map[string]lexicalState{}
	for rows.Next() {
		var id string
		var st lexicalState
		if err := rows.Scan(&id, &st.title, &st.heading); err != nil {
			return nil, fmt.Errorf("read stored chunks: %w", err)
		}
		out[id] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read stored chunks: %w", err)
	}
	return out, nil
}

// writeLanguage returns the language that chunks written to a project are
// analysed with: the one its lexical table holds or, before its first
// chunk, the one these chunks decide. decide is then true: the write
// records it (recordLanguage, in its transaction) and forgets the cached
// projects after its commit. Read in the write transaction, it is the
// truth; read before it, a guess for analysing ahead.
func (s *Store) writeLanguage(ctx context.Context, q queryer, projectID int64, chunks []ragd.ChunkInput) (lang string, decide bool, err error) {
	setting, built, err := projectLanguages(ctx, q, projectID)
	if err != nil {
		return "", false, err
	}
	if built == "" && len(chunks) > 0 {
		return s.firstLanguage(setting, chunks), true, nil
	}
	return built, false, nil
}

// recordLanguage records the language a project's lexical table is
// analysed with, decided by its first chunks.
func recordLanguage(ctx context.Context, tx execer, projectID int64, lang string) error {
	if _, err := tx.ExecContext(ctx, "UPDATE projects SET lexical_language = ? WHERE id = ?", lang, projectID); err != nil {
		return fmt.Errorf("record language of project %d: %w", projectID, err)
	}
	return nil
}

// firstLanguage is the language a project's first indexed chunks decide
// (rules.FirstLanguage).
func (s *Store) firstLanguage(setting string, chunks []ragd.ChunkInput) string {
	return rules.FirstLanguage(setting, chunks)
}

// lexicalAveragesID is the id of the "averages" record in an FTS5 table's
// _data shadow table (FTS5_AVERAGES_ROWID in fts5Int.h): the row count,
// then each column's total token count, as SQLite varints. bm25 reads its
// N from there; so does TermDocs, in O(1) instead of counting rows.
const lexicalAveragesID = 1

// countDocs is true only in benchmarks, which time TermDocs counting the
// words' rows in the index, as it did before the counts were kept.
var countDocs = false

// TermDocs are the statistics of a project's lexical index that bm25 takes
// a single-token term's weight from.
type TermDocs struct {
	// Rows is the number of rows (chunks) in the project's lexical index.
	Rows int64
	// Tokens is the number of tokens in all its rows and columns: bm25's
	// average row length is Tokens/Rows.
	Tokens int64
	// Docs maps each token asked about to the number of rows holding it;
	// a token no row holds maps to 0.
	Docs map[string]int64
	// Kept is true when Docs came from the counts the bounds table keeps
	// (lexicalbounds.go): every row of the index was written through its
	// upkeep.
	Kept bool
}

// TermDocs returns the number of rows of a project's lexical table and,
// for each token, the number of rows holding it, as the snapshot sees
// them: the N and the document frequencies bm25 computes its idf from.
// Tokens are analysed tokens (ragd.LexicalTerm's), looked up exactly.
// LexicalCandidates prunes with them.
func (sn *Snapshot) TermDocs(ctx context.Context, projectID int64, tokens []string) (TermDocs, error) {
	return sn.termDocs(ctx, projectID, tokens, true)
}

// termDocs is TermDocs; unless count, it does not count the words' rows
// in the index when the bounds table does not keep them, and leaves Docs
// zero and Kept false.
func (sn *Snapshot) termDocs(ctx context.Context, projectID int64, tokens []string, count bool) (TermDocs, error) {
	out := TermDocs{Docs: make(map[string]int64, len(tokens))}
	var block []byte
	err := sn.tx.QueryRowContext(ctx, "SELECT block FROM "+lexicalTable(projectID)+"_data WHERE id = ?", lexicalAveragesID).Scan(&block)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// A table never written to holds no averages record yet.
	case err != nil:
		return out, fmt.Errorf("term statistics of project %d: %w", projectID, err)
	case len(block) > 0:
		// The row count, then each column's token count (FTS5's
		// fts5StorageSaveTotals); bm25 sums the columns'.
		n, size := sqliteVarint(block)
		if size == 0 {
			return out, fmt.Errorf("term statistics of project %d: malformed averages record of %d bytes", projectID, len(block))
		}
		out.Rows = int64(n)
		for rest := block[size:]; len(rest) > 0; {
			c, size := sqliteVarint(rest)
			if size == 0 {
				return out, fmt.Errorf("term statistics of project %d: malformed averages record of %d bytes", projectID, len(block))
			}
			out.Tokens += int64(c)
			rest = rest[size:]
		}
	}
	if len(tokens) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(tokens))
	for _, t := range tokens {
		if _, ok := out.Docs[t]; !ok {
			out.Docs[t] = 0
			args = append(args, t)
		}
	}
	// The counts the bounds table keeps (lexicalbounds.go), else FTS5's
	// own: fts5vocab counts a word's rows by walking its doclist (about
	// 60 ms for a word in every row of a million).
	if !countDocs {
		ok, err := keptDocs(ctx, sn.tx, projectID, args, out.Rows, out.Docs)
		if err != nil || ok {
			out.Kept = ok
			return out, err
		}
	}
	for _, t := range args {
		out.Docs[t.(string)] = 0
	}
	if !count {
		return out, nil
	}
	rows, err := sn.tx.QueryContext(ctx, "SELECT term, doc FROM "+vocabTable(projectID)+
		" WHERE term IN ("+placeholders(len(args))+")", args...)
	if err != nil {
		return out, fmt.Errorf("term statistics of project %d: %w", projectID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var doc int64
		if err := rows.Scan(&term, &doc); err != nil {
			return out, fmt.Errorf("term statistics of project %d: %w", projectID, err)
		}
		out.Docs[term] = doc
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("term statistics of project %d: %w", projectID, err)
	}
	return out, nil
}

// sqliteVarint decodes the SQLite varint at the start of b: big-endian,
// seven bits a byte while the high bit is set, the ninth byte whole. It
// returns the value and its length in bytes, 0 when b ends inside it.
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// corruptIndex marks err, a failure reading project id's lexical table,
// with ragd.ErrIndexCorrupt when SQLite found the table corrupt: ragd
// reindex rebuilds it (RepairLexical).
func corruptIndex(projectID int64, err error) error {
	var se sqlite3.Error
	if err == nil || !errors.As(err, &se) || se.Code != sqlite3.ErrCorrupt {
		return err
	}
	return fmt.Errorf("the lexical index of project %d: %w: %w", projectID, ragd.ErrIndexCorrupt, err)
}

// lexicalIntegrity runs FTS5's integrity-check on project id's lexical
// table: nil when it holds, an error wrapping ragd.ErrIndexCorrupt when
// SQLite finds it corrupt, another error when the check could not run.
func lexicalIntegrity(ctx context.Context, q execer, projectID int64) error {
	t := lexicalTable(projectID)
	_, err := q.ExecContext(ctx, "INSERT INTO "+t+"("+t+") VALUES ('integrity-check')")
	if err != nil {
		if c := corruptIndex(projectID, err); errors.Is(c, ragd.ErrIndexCorrupt) {
			return c
		}
		return fmt.Errorf("integrity-check of the lexical index of project %d: %w", projectID, err)
	}
	return nil
}

// RepairLexical rebuilds project id's lexical table from its chunks when
// FTS5's integrity-check finds it corrupt, and reports whether it did.
// The reindex calls it first: a corrupt table fails searches, and no
// write of a changed chunk would mend it. A sound table that predates
// the words' bounds gets them (addBounds): the top-k pass then bounds
// its words tightly.
func (s *Store) RepairLexical(ctx context.Context, projectID int64) (bool, error) {
	err := lexicalIntegrity(ctx, s.db, projectID)
	if err == nil {
		return false, s.addBounds(ctx, projectID)
	}
	if !errors.Is(err, ragd.ErrIndexCorrupt) {
		return false, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("repair the lexical index of project %d: begin: %w", projectID, err)
	}
	defer tx.Rollback()
	setting, built, err := projectLanguages(ctx, tx, projectID)
	if err != nil {
		return false, fmt.Errorf("repair the lexical index: %w", err)
	}
	n, err := rebuildLexical(ctx, tx, projectID, rules.InForce(setting, built))
	if err != nil {
		return false, fmt.Errorf("repair the lexical index of project %d: %w", projectID, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("repair the lexical index of project %d: commit: %w", projectID, err)
	}
	s.logger.Warn("rebuilt a corrupt lexical index", "project", projectID, "chunks", n)
	return true, nil
}

// Checks runs FTS5's integrity-check on every project's lexical table, for
// ragd doctor: one check line, failing with the projects whose index is
// corrupt and the command that rebuilds each.
func (s *Store) Checks(ctx context.Context) []ragd.DatabaseCheck {
	rows, err := s.db.QueryContext(ctx, "SELECT id, name FROM projects ORDER BY id")
	if err != nil {
		return []ragd.DatabaseCheck{{Name: "fts5", Detail: "list projects: " + err.Error()}}
	}
	type project struct {
		id   int64
		name string
	}
	var ps []project
	for rows.Next() {
		var p project
		if err := rows.Scan(&p.id, &p.name); err != nil {
			rows.Close()
			return []ragd.DatabaseCheck{{Name: "fts5", Detail: "list projects: " + err.Error()}}
		}
		ps = append(ps, p)
	}
	rows.Close()
	var bad, fixes []string
	for _, p := range ps {
		if err := lexicalIntegrity(ctx, s.db, p.id); err != nil {
			bad = append(bad, fmt.Sprintf("project %s: %v", p.name, err))
			fixes = append(fixes, "ragd reindex --project "+p.name)
		}
	}
	if len(bad) > 0 {
		return []ragd.DatabaseCheck{{Name: "fts5", Detail: "corrupt lexical index: " + strings.Join(bad, "; "),
			Fix: "rebuild it: " + strings.Join(fixes, ", then ")}}
	}
	return []ragd.DatabaseCheck{{Name: "fts5", OK: true, Detail: fmt.Sprintf("the lexical indexes of %d projects pass FTS5's integrity-check", len(ps))}}
}

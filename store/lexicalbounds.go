package store

// Each word's bound: the most it adds to a row's bm25, kept beside the
// lexical table (docs/adr/0017-lexical-top-k.md, Decision 3).
//
// A word t adds idf(t)·sat(f, D) to a row holding it f times in D tokens,
// sat(f, D) = f·(k1 + 1)/(f + k1·(1 − b + b·D/avgdl)). The idf is read at
// query time; the table keeps, for each word, the largest sat over the
// rows holding it, computed at a reference average length a₀ (the row
// with term ''). At another average a, sat(a) ≤ sat(a₀)·max(1, a/a₀): the
// denominator's f + k1·(1 − b) shrinks by at most a₀/a when a > a₀, and
// sat grows with a. So idf·stored·max(1, a/a₀) bounds the word in every
// row, whatever was appended since.
//
// Writes keep it: an insert raises a word's bound when its row's sat is
// higher (in the insert's transaction); a delete leaves it (an upper bound
// still), except that forgetting a session deletes the bounds of the
// words no row holds any more (pruneBounds: a bound names its word); a
// rebuild of the lexical table computes it anew. A project
// whose table predates it has none: its words are bounded by
// idf·(k1 + 1), which no row reaches.
//
// The table keeps each word's row count too (docs; the reference row's is
// the table's row count), which bm25's idf and the pruning read
// (TermDocs): FTS5 has no such count, and fts5vocab walks a word's whole
// doclist to count it (about 60 ms for a word in every row of a million).
// An insert adds one to each word of its row; a delete takes one from
// each word its chunk's text analyses to, after checking that the text
// still analyses to the row's column sizes (FTS5's docsize): otherwise
// the counts are lost (NULL), TermDocs counts in the index again, and the
// next reindex computes them anew (addBounds). TermDocs reads them only
// while their row count is the index's.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ragd/ragd/store/rules"
)

// keepBounds is false only in BenchmarkAppendBounds, which times appends
// without the bounds' upkeep.
var keepBounds = true

// bm25B is FTS5's b (fts5_aux.c).
const bm25B = 0.75

// boundsTable is the name of project id's bounds table.
func boundsTable(projectID int64) string {
	return lexicalTable(projectID) + "_bounds"
}

// boundsRefTerm is the term of the row holding the reference average
// length a₀: no token is empty.
const boundsRefTerm = ""

// createBoundsTable creates a project's bounds table for an empty
// lexical table: no word, the reference row of no length (a₀ unset) and
// no row counted.
func createBoundsTable(ctx context.Context, tx execer, projectID int64) error {
	if _, err := tx.ExecContext(ctx, "CREATE TABLE "+boundsTable(projectID)+
		" (term TEXT PRIMARY KEY, sat REAL NOT NULL, docs INTEGER) WITHOUT ROWID"); err != nil {
		return fmt.Errorf("create bounds table of project %d: %w", projectID, err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+boundsTable(projectID)+" (term, sat, docs) VALUES (?, 0, 0)", boundsRefTerm); err != nil {
		return fmt.Errorf("create bounds table of project %d: %w", projectID, err)
	}
	return nil
}

func dropBoundsTable(ctx context.Context, tx execer, projectID int64) error {
	if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+boundsTable(projectID)); err != nil {
		return fmt.Errorf("drop bounds table of project %d: %w", projectID, err)
	}
	return nil
}

// bm25Sat is bm25's frequency part of a word f times in a row of d tokens
// at average length avgdl, computed as fts5_aux.c computes it.
func bm25Sat(f, d, avgdl float64) float64 {
	return (f * (bm25K1 + 1.0)) / (f + bm25K1*(1-bm25B+bm25B*d/avgdl))
}

// asciiTokens calls fn with each token FTS5's ascii tokenizer finds in s
// (runs of ASCII letters and digits and of non-ASCII bytes, ASCII folded
// to lower case) and returns their number.
func asciiTokens(s string, fn func(string)) int {
	n, start := 0, -1
	for i := 0; i <= len(s); i++ {
		token := i < len(s) && (s[i] >= 0x80 || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9')
		switch {
		case token && start < 0:
			start = i
		case !token && start >= 0:
			fn(asciiLower(s[start:i]))
			n++
			start = -1
		}
	}
	return n
}

// asciiLower folds s's ASCII capitals, as the ascii tokenizer does.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// boundsState is what a project's bounds table keeps.
type boundsState int

const (
	noBounds        boundsState = iota // no bounds table: the lexical table predates them
	boundsOnly                         // the words' bounds, not their row counts (a table from before the counts)
	boundsAndCounts                    // the words' bounds and row counts
)

// boundsOf reports what project id's bounds table keeps: one created
// before the row counts has no docs column.
func boundsOf(ctx context.Context, q queryer, projectID int64) (boundsState, error) {
	var ddl string
	err := q.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", boundsTable(projectID)).Scan(&ddl)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return noBounds, nil
	case err != nil:
		return noBounds, fmt.Errorf("bounds table of project %d: %w", projectID, err)
	case strings.Contains(ddl, "docs INTEGER"):
		return boundsAndCounts, nil
	}
	return boundsOnly, nil
}

// hasBounds reports whether project id has a bounds table.
func hasBounds(ctx context.Context, q queryer, projectID int64) (bool, error) {
	st, err := boundsOf(ctx, q, projectID)
	return st != noBounds, err
}

// rowSats returns each word of d with its sat at average length ref (0
// when ref is 0), and the row's token count in each column.
func rowSats(d lexicalDoc, ref float64) (map[string]float64, [3]int) {
	freq := map[string]int{}
	count := func(tok string) { freq[tok]++ }
	sizes := [3]int{asciiTokens(d.title, count), asciiTokens(d.heading, count), asciiTokens(d.content, count)}
	size := sizes[0] + sizes[1] + sizes[2]
	out := make(map[string]float64, len(freq))
	for tok, f := range freq {
		out[tok] = 0
		if ref > 0 {
			out[tok] = bm25Sat(float64(f), float64(size), ref)
		}
	}
	return out, sizes
}

// boundsWriter keeps one project's words' bounds and row counts in a
// transaction: it gathers what the rows written change (each word's
// highest sat, the change of its row count) and writes it at flush, one
// upsert a word, reading nothing.
type boundsWriter struct {
	tx     *sql.Tx
	table  string
	counts bool    // the table keeps the words' row counts
	ref    float64 // a₀; 0 until the first row sets it
	// sat is each word's highest sat in the rows inserted since the last
	// flush; docs the change of its row count (counts only).
	sat  map[string]float64
	docs map[string]int64
	// rows is the change of the table's row count; lost is set when a
	// deleted row's text no longer analyses to what its row holds.
	rows          int64
	lost          bool
	docsize, less *sql.Stmt
}

// newBoundsWriter returns the project's bounds writer, or nil when its
// lexical table has no bounds table (it predates them).
func newBoundsWriter(ctx context.Context, tx *sql.Tx, projectID int64) (*boundsWriter, error) {
	st, err := boundsOf(ctx, tx, projectID)
	if err != nil || st == noBounds {
		return nil, err
	}
	w := &boundsWriter{tx: tx, table: boundsTable(projectID), counts: st == boundsAndCounts,
		sat: map[string]float64{}, docs: map[string]int64{}}
	err = tx.QueryRowContext(ctx, "SELECT sat FROM "+w.table+" WHERE term = ?", boundsRefTerm).Scan(&w.ref)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read bounds of project %d: %w", projectID, err)
	}
	if w.ref <= 0 {
		// No reference yet: the first row sets it, from the table's
		// average if it has rows (TermDocs), else from its own length.
		w.ref = 0
		td, err := (&Snapshot{tx: tx}).TermDocs(ctx, projectID, nil)
		if err != nil {
			return nil, err
		}
		if td.Rows > 0 && td.Tokens > 0 {
			if err := w.setRef(ctx, float64(td.Tokens)/float64(td.Rows)); err != nil {
				return nil, err
			}
		}
	}
	if w.counts {
		if w.docsize, err = tx.PrepareContext(ctx, "SELECT sz FROM "+lexicalTable(projectID)+"_docsize WHERE id = ?"); err != nil {
			return nil, fmt.Errorf("prepare the lexical row size read: %w", err)
		}
		if w.less, err = tx.PrepareContext(ctx, "UPDATE "+w.table+" SET docs = docs + ? WHERE term = ?"); err != nil {
			w.docsize.Close()
			return nil, fmt.Errorf("prepare the row count update: %w", err)
		}
	}
	return w, nil
}

func (w *boundsWriter) setRef(ctx context.Context, ref float64) error {
	if _, err := w.tx.ExecContext(ctx, "INSERT INTO "+w.table+" (term, sat) VALUES (?, ?) ON CONFLICT (term) DO UPDATE SET sat = excluded.sat", boundsRefTerm, ref); err != nil {
		return fmt.Errorf("set the bounds' reference length: %w", err)
	}
	w.ref = ref
	return nil
}

// boundsFlushWords is the most words gathered before they are written: a
// rebuild of a large table writes as it goes, in bounded memory.
const boundsFlushWords = 1 << 16

// insert gathers the bounds and row counts of the words of row d,
// inserted.
func (w *boundsWriter) insert(ctx context.Context, d lexicalDoc) error {
	w.rows++
	if w.ref == 0 {
		size := asciiTokens(d.title, func(string) {}) + asciiTokens(d.heading, func(string) {}) + asciiTokens(d.content, func(string) {})
		if size == 0 {
			return nil // a row of no token holds no word
		}
		if err := w.setRef(ctx, float64(size)); err != nil {
			return err
		}
	}
	sats, _ := rowSats(d, w.ref)
	for tok, sat := range sats {
		if old, ok := w.sat[tok]; !ok || sat > old {
			w.sat[tok] = sat
		}
		if w.counts {
			w.docs[tok]++
		}
	}
	if len(w.sat) >= boundsFlushWords || len(w.docs) >= boundsFlushWords {
		return w.flush(ctx)
	}
	return nil
}

// remove gathers the row counts of the words of row seq, about to be
// deleted, whose text analyses to d. A row the table lacks changes
// nothing. A row whose column sizes are not d's (its text analyses
// otherwise now) loses the counts: TermDocs counts the words' rows in the
// index again until a rebuild (addBounds, at the next reindex) computes
// them anew. The bounds stay, upper bounds still.
func (w *boundsWriter) remove(ctx context.Context, seq int64, d lexicalDoc) error {
	if w == nil || !w.counts || w.lost {
		return nil
	}
	var sz []byte
	err := w.docsize.QueryRowContext(ctx, seq).Scan(&sz)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the size of lexical row %d: %w", seq, err)
	}
	sats, sizes := rowSats(d, 0)
	for _, want := range sizes {
		got, n := sqliteVarint(sz)
		if n == 0 || got != uint64(want) {
			w.lost = true
			return nil
		}
		sz = sz[n:]
	}
	w.rows--
	for tok := range sats {
		w.docs[tok]--
	}
	if len(w.docs) >= boundsFlushWords {
		return w.flush(ctx)
	}
	return nil
}

// boundsWriteBatch is the most words one statement writes (3 parameters
// each, far below SQLite's limit of 32,766).
const boundsWriteBatch = 200

// flush writes the gathered bounds and row counts. It must run before the
// transaction commits.
func (w *boundsWriter) flush(ctx context.Context) error {
	if w == nil {
		return nil
	}
	cols, row, set := " (term, sat) VALUES ", "(?, ?)", " ON CONFLICT (term) DO UPDATE SET sat = max(sat, excluded.sat)"
	if w.counts {
		cols, row, set = " (term, sat, docs) VALUES ", "(?, ?, ?)", set+", docs = docs + excluded.docs"
	}
	args := make([]any, 0, 3*boundsWriteBatch)
	n := 0
	write := func() error {
		if n == 0 {
			return nil
		}
		q := "INSERT INTO " + w.table + cols + row + strings.Repeat(", "+row, n-1) + set
		if _, err := w.tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("write the words' bounds: %w", err)
		}
		args, n = args[:0], 0
		return nil
	}
	for tok, sat := range w.sat {
		if args = append(args, tok, sat); w.counts {
			args = append(args, w.docs[tok])
			delete(w.docs, tok)
		}
		if n++; n == boundsWriteBatch {
			if err := write(); err != nil {
				return err
			}
		}
	}
	if err := write(); err != nil {
		return err
	}
	clear(w.sat)
	// The words of deleted rows only: their bounds stay.
	for tok, d := range w.docs {
		if d == 0 {
			continue
		}
		if _, err := w.less.ExecContext(ctx, d, tok); err != nil {
			return fmt.Errorf("write the row count of %q: %w", tok, err)
		}
	}
	clear(w.docs)
	if w.counts && (w.rows != 0 || w.lost) {
		rows := any(w.rows)
		if w.lost {
			rows = nil // NULL: the counts are lost
		}
		if _, err := w.less.ExecContext(ctx, rows, boundsRefTerm); err != nil {
			return fmt.Errorf("write the bounds' row count: %w", err)
		}
		w.rows = 0
	}
	return nil
}

func (w *boundsWriter) Close() {
	if w == nil {
		return
	}
	for _, st := range []*sql.Stmt{w.docsize, w.less} {
		if st != nil {
			st.Close()
		}
	}
}

// termBounds returns the bound of each of tokens (a word's most in any
// row, at average length avgdl, before its idf) and whether the project
// has bounds; a token the table lacks is in no row.
func (sn *Snapshot) termBounds(ctx context.Context, projectID int64, tokens []string, avgdl float64) (map[string]float64, bool, error) {
	args := make([]any, 0, len(tokens)+1)
	args = append(args, boundsRefTerm)
	for _, t := range tokens {
		args = append(args, t)
	}
	if ok, err := hasBounds(ctx, sn.tx, projectID); err != nil || !ok {
		return nil, false, err
	}
	rows, err := sn.tx.QueryContext(ctx, "SELECT term, sat FROM "+boundsTable(projectID)+" WHERE term IN ("+placeholders(len(args))+")", args...)
	if err != nil {
		return nil, false, fmt.Errorf("bounds of project %d: %w", projectID, err)
	}
	defer rows.Close()
	out := make(map[string]float64, len(tokens))
	ref := 0.0
	for rows.Next() {
		var tok string
		var sat float64
		if err := rows.Scan(&tok, &sat); err != nil {
			return nil, false, fmt.Errorf("bounds of project %d: %w", projectID, err)
		}
		if tok == boundsRefTerm {
			ref = sat
		} else {
			out[tok] = sat
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("bounds of project %d: %w", projectID, err)
	}
	if ref <= 0 {
		return nil, false, nil
	}
	for tok, sat := range out {
		out[tok] = min(sat*max(1, avgdl/ref), bm25K1+1)
	}
	return out, true, nil
}

// pruneBounds deletes the bounds of the words no row of project id's
// lexical table holds any more: forgetting a session erases its words,
// and a bound names its word. It reads the table's whole vocabulary (a
// pass over its index, as the rewrite that forgetting makes).
func pruneBounds(ctx context.Context, tx *sql.Tx, projectID int64) error {
	if ok, err := hasBounds(ctx, tx, projectID); err != nil || !ok {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+boundsTable(projectID)+" WHERE term <> ? AND term NOT IN (SELECT term FROM "+vocabTable(projectID)+")", boundsRefTerm); err != nil {
		return fmt.Errorf("prune bounds of project %d: %w", projectID, err)
	}
	return nil
}

// rebuildBounds computes project id's bounds anew from its chunks, at
// the table's present average length, for a project whose lexical table
// predates the bounds (addBounds).
func rebuildBounds(ctx context.Context, tx *sql.Tx, projectID int64, lang string) error {
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		return err
	}
	if err := dropBoundsTable(ctx, tx, projectID); err != nil {
		return err
	}
	if err := createBoundsTable(ctx, tx, projectID); err != nil {
		return err
	}
	w, err := newBoundsWriter(ctx, tx, projectID)
	if err != nil {
		return err
	}
	defer w.Close()
	rows, err := tx.QueryContext(ctx, "SELECT seq, title, heading_path, content FROM chunks WHERE project_id = ? ORDER BY seq", projectID)
	if err != nil {
		return fmt.Errorf("rebuild bounds of project %d: %w", projectID, err)
	}
	texts, err := rules.ReadTexts(rows)
	rows.Close()
	if err != nil {
		return fmt.Errorf("rebuild bounds of project %d: %w", projectID, err)
	}
	for _, t := range texts {
		if err := w.insert(ctx, analyseChunk(a, t.Title, t.Heading, t.Content)); err != nil {
			return fmt.Errorf("rebuild bounds of project %d: %w", projectID, err)
		}
	}
	if err := w.flush(ctx); err != nil {
		return fmt.Errorf("rebuild bounds of project %d: %w", projectID, err)
	}
	return nil
}

// keptDocs fills docs with the row counts of tokens that project id's
// bounds table keeps, and reports whether it keeps them for the lexical
// table as it is: its count of rows must be the index's, rows (a write
// that did not keep them, or a delete whose text analyses otherwise now,
// leaves them unused). A token the table lacks is in no row.
func keptDocs(ctx context.Context, q queryer, projectID int64, tokens []any, rows int64, docs map[string]int64) (bool, error) {
	if st, err := boundsOf(ctx, q, projectID); err != nil || st != boundsAndCounts {
		return false, err
	}
	args := append([]any{boundsRefTerm}, tokens...)
	res, err := q.QueryContext(ctx, "SELECT term, docs FROM "+boundsTable(projectID)+" WHERE term IN ("+placeholders(len(args))+")", args...)
	if err != nil {
		return false, fmt.Errorf("row counts of project %d: %w", projectID, err)
	}
	defer res.Close()
	kept := false
	for res.Next() {
		var tok string
		var n sql.NullInt64
		if err := res.Scan(&tok, &n); err != nil {
			return false, fmt.Errorf("row counts of project %d: %w", projectID, err)
		}
		if !n.Valid {
			return false, nil
		}
		if tok == boundsRefTerm {
			kept = n.Int64 == rows
		} else {
			docs[tok] = n.Int64
		}
	}
	if err := res.Err(); err != nil {
		return false, fmt.Errorf("row counts of project %d: %w", projectID, err)
	}
	return kept, nil
}

// addBounds computes the words' bounds and row counts of project id when
// its bounds table does not keep them for the lexical table as it is
// (rebuildBounds, in a transaction of its own): once, at the first
// reindex after an upgrade (a table from before the bounds, or before the
// counts), or after a delete lost the counts. It reads and analyses every
// chunk of the project (about 4 minutes of CPU at 1M chunks).
func (s *Store) addBounds(ctx context.Context, projectID int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("bounds of project %d: begin: %w", projectID, err)
	}
	defer tx.Rollback()
	td, err := (&Snapshot{tx: tx}).TermDocs(ctx, projectID, nil)
	if err != nil {
		return err
	}
	if ok, err := keptDocs(ctx, tx, projectID, nil, td.Rows, map[string]int64{}); err != nil || ok {
		return err
	}
	setting, built, err := projectLanguages(ctx, tx, projectID)
	if err != nil {
		return fmt.Errorf("bounds: %w", err)
	}
	if err := rebuildBounds(ctx, tx, projectID, rules.InForce(setting, built)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("bounds of project %d: commit: %w", projectID, err)
	}
	s.logger.Info("computed the words' bounds and row counts of a lexical index without them", "project", projectID)
	return nil
}

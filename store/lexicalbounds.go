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

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

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

// createBoundsTable creates a project's empty bounds table.
func createBoundsTable(ctx context.Context, tx execer, projectID int64) error {
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+boundsTable(projectID)+
		" (term TEXT PRIMARY KEY, sat REAL NOT NULL) WITHOUT ROWID"); err != nil {
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

// hasBounds reports whether project id has a bounds table.
func hasBounds(ctx context.Context, q queryer, projectID int64) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", boundsTable(projectID)).Scan(&n); err != nil {
		return false, fmt.Errorf("bounds table of project %d: %w", projectID, err)
	}
	return n > 0, nil
}

// rowSats returns each word of d with its sat at average length ref.
func rowSats(d lexicalDoc, ref float64) map[string]float64 {
	freq := map[string]int{}
	count := func(tok string) { freq[tok]++ }
	size := asciiTokens(d.title, count) + asciiTokens(d.heading, count) + asciiTokens(d.content, count)
	out := make(map[string]float64, len(freq))
	for tok, f := range freq {
		out[tok] = bm25Sat(float64(f), float64(size), ref)
	}
	return out
}

// boundsWriter raises the bounds of one project's words in a transaction.
type boundsWriter struct {
	tx    *sql.Tx
	table string
	ref   float64 // a₀; 0 until the first row sets it
	// known are the bounds read or written in the transaction.
	known map[string]float64
	up    *sql.Stmt
}

// newBoundsWriter returns the project's bounds writer, or nil when its
// lexical table has no bounds table (it predates them).
func newBoundsWriter(ctx context.Context, tx *sql.Tx, projectID int64) (*boundsWriter, error) {
	if ok, err := hasBounds(ctx, tx, projectID); err != nil || !ok {
		return nil, err
	}
	w := &boundsWriter{tx: tx, table: boundsTable(projectID), known: map[string]float64{}}
	err := tx.QueryRowContext(ctx, "SELECT sat FROM "+w.table+" WHERE term = ?", boundsRefTerm).Scan(&w.ref)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// No row yet: the first sets a₀, from the table's average if it
		// has rows (TermDocs), else from its own length.
		td, err := (&Snapshot{tx: tx}).TermDocs(ctx, projectID, nil)
		if err != nil {
			return nil, err
		}
		if td.Rows > 0 && td.Tokens > 0 {
			if err := w.setRef(ctx, float64(td.Tokens)/float64(td.Rows)); err != nil {
				return nil, err
			}
		}
	case err != nil:
		return nil, fmt.Errorf("read bounds of project %d: %w", projectID, err)
	}
	up, err := tx.PrepareContext(ctx, "INSERT INTO "+w.table+" (term, sat) VALUES (?, ?) ON CONFLICT (term) DO UPDATE SET sat = max(sat, excluded.sat)")
	if err != nil {
		return nil, fmt.Errorf("prepare bounds update: %w", err)
	}
	w.up = up
	return w, nil
}

func (w *boundsWriter) setRef(ctx context.Context, ref float64) error {
	if _, err := w.tx.ExecContext(ctx, "INSERT INTO "+w.table+" (term, sat) VALUES (?, ?)", boundsRefTerm, ref); err != nil {
		return fmt.Errorf("set the bounds' reference length: %w", err)
	}
	w.ref = ref
	return nil
}

// boundsReadBatch is the most words read in one query.
const boundsReadBatch = 200

// insert raises the bounds of the words of row d.
func (w *boundsWriter) insert(ctx context.Context, d lexicalDoc) error {
	if w.ref == 0 {
		size := asciiTokens(d.title, func(string) {}) + asciiTokens(d.heading, func(string) {}) + asciiTokens(d.content, func(string) {})
		if size == 0 {
			return nil // a row of no token holds no word
		}
		if err := w.setRef(ctx, float64(size)); err != nil {
			return err
		}
	}
	sats := rowSats(d, w.ref)
	var unknown []any
	for tok := range sats {
		if _, ok := w.known[tok]; !ok {
			unknown = append(unknown, tok)
			w.known[tok] = 0
		}
	}
	for len(unknown) > 0 {
		batch := unknown[:min(len(unknown), boundsReadBatch)]
		unknown = unknown[len(batch):]
		rows, err := w.tx.QueryContext(ctx, "SELECT term, sat FROM "+w.table+" WHERE term IN ("+placeholders(len(batch))+")", batch...)
		if err != nil {
			return fmt.Errorf("read bounds: %w", err)
		}
		for rows.Next() {
			var tok string
			var sat float64
			if err := rows.Scan(&tok, &sat); err != nil {
				rows.Close()
				return fmt.Errorf("read bounds: %w", err)
			}
			w.known[tok] = sat
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read bounds: %w", err)
		}
	}
	for tok, sat := range sats {
		if sat <= w.known[tok] {
			continue
		}
		if _, err := w.up.ExecContext(ctx, tok, sat); err != nil {
			return fmt.Errorf("raise the bound of %q: %w", tok, err)
		}
		w.known[tok] = sat
	}
	return nil
}

func (w *boundsWriter) Close() {
	if w != nil && w.up != nil {
		w.up.Close()
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
	return nil
}

// addBounds computes the words' bounds of project id when its lexical
// table predates them (rebuildBounds, in a transaction of its own): once,
// at the first reindex after an upgrade. It reads and analyses every
// chunk of the project (about 4 minutes of CPU at 1M chunks).
func (s *Store) addBounds(ctx context.Context, projectID int64) error {
	if ok, err := hasBounds(ctx, s.db, projectID); err != nil || ok {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("bounds of project %d: begin: %w", projectID, err)
	}
	defer tx.Rollback()
	if ok, err := hasBounds(ctx, tx, projectID); err != nil || ok {
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
	s.logger.Info("computed the words' bounds of a lexical index that predates them", "project", projectID)
	return nil
}

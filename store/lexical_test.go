package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// lexicalVocab lists every token instance of an FTS5 table: term, row,
// column and offset, in a fixed order.
func lexicalVocab(t *testing.T, db interface {
	execer
	queryer
}, table string) []string {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE VIRTUAL TABLE temp.v_"+table+" USING fts5vocab(main, "+table+", 'instance')"); err != nil {
		t.Fatalf("vocab of %s: %v", table, err)
	}
	defer db.ExecContext(ctx, "DROP TABLE temp.v_"+table)
	rows, err := db.QueryContext(ctx, "SELECT term, doc, col, offset FROM temp.v_"+table+" ORDER BY doc, col, offset, term")
	if err != nil {
		t.Fatalf("vocab of %s: %v", table, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var term, col string
		var doc, off int64
		if err := rows.Scan(&term, &doc, &col, &off); err != nil {
			t.Fatalf("vocab of %s: %v", table, err)
		}
		out = append(out, fmt.Sprintf("%d %s %d %s", doc, col, off, term))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("vocab of %s: %v", table, err)
	}
	return out
}

// assertLexicalInStep checks that a project's lexical table holds exactly
// what a rebuild from its chunks would: every chunk, analysed for the
// recorded language, and nothing else.
func assertLexicalInStep(t *testing.T, s *Store, projectID int64) {
	t.Helper()
	ctx := context.Background()
	_, built, err := projectLanguages(ctx, s.db, projectID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "INSERT INTO "+lexicalTable(projectID)+" ("+lexicalTable(projectID)+") VALUES ('integrity-check')"); err != nil {
		t.Fatalf("fts integrity of project %d: %v", projectID, err)
	}
	got := lexicalVocab(t, s.db, lexicalTable(projectID))
	// Rebuild under another project id nobody uses, in a transaction
	// rolled back: the table is compared, then gone.
	const scratch = 1 << 40
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := createLexicalTable(ctx, tx, scratch); err != nil {
		t.Fatal(err)
	}
	lang := inForce("", built)
	a, err := analyzerFor(lang)
	if err != nil {
		t.Fatal(err)
	}
	w, err := newLexicalWriter(ctx, tx, scratch)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.QueryContext(ctx, "SELECT seq, title, heading_path, content FROM chunks WHERE project_id = ?", projectID)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		seq                     int64
		title, heading, content string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.seq, &r.title, &r.heading, &r.content); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	rows.Close()
	for _, r := range all {
		if err := w.insert(ctx, r.seq, analyseChunk(a, r.title, r.heading, r.content)); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	want := lexicalVocab(t, tx, lexicalTable(scratch))
	if !slices.Equal(got, want) {
		t.Fatalf("project %d: lexical table (%d token instances) is not its chunks analysed as %s (%d)", projectID, len(got), lang, len(want))
	}
}

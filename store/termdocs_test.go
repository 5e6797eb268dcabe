package store

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// termDocsOf reads TermDocs on a fresh snapshot.
func termDocsOf(t *testing.T, s *Store, projectID int64, tokens []string) TermDocs {
	t.Helper()
	ctx := context.Background()
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	td, err := sn.(*Snapshot).TermDocs(ctx, projectID, tokens)
	if err != nil {
		t.Fatal(err)
	}
	return td
}

// assertTermDocs checks TermDocs against what FTS5 itself counts: the
// project's chunks for the row count, and the rows a MATCH of each token
// finds for its document frequency (the nHit bm25 computes its idf from).
func assertTermDocs(t *testing.T, s *Store, projectID int64, lang string, words []string) {
	t.Helper()
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, w := range words {
		tokens = append(tokens, a.Text(w))
	}
	td := termDocsOf(t, s, projectID, tokens)
	var rows int64
	if err := s.db.QueryRow("SELECT count(*) FROM chunks WHERE project_id = ?", projectID).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if td.Rows != rows {
		t.Errorf("project %d: %d rows, the project has %d chunks", projectID, td.Rows, rows)
	}
	if len(td.Docs) != len(tokens) {
		t.Errorf("project %d: %d tokens counted, %d asked", projectID, len(td.Docs), len(tokens))
	}
	for i, tok := range tokens {
		want := len(lexicalRanking(t, s, projectID, `"`+tok+`"`))
		if got, ok := td.Docs[tok]; !ok || got != int64(want) {
			t.Errorf("project %d, %q (%s): %d rows (present %v), FTS5 matches %d", projectID, words[i], tok, got, ok, want)
		}
	}
}

// TestTermDocs_FollowsTheIndex: the row count and document frequencies
// are FTS5's own after inserts, deletes, a replace that keeps, changes and
// drops chunks, a language rebuild, and in a second project beside it.
func TestTermDocs_FollowsTheIndex(t *testing.T) {
	s := mustOpen(t, 4)
	p := mustProject(t, s, "one")
	other := mustProject(t, s, "two")
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "indexing", "title", "absent"}
	// alpha in every chunk, beta in about half, the rest rarer; "title" is
	// every chunk's title and heading.
	r := rand.New(rand.NewSource(3))
	content := func(i int) string {
		ws := []string{"alpha"}
		for _, w := range []struct {
			word  string
			share float64
		}{{"beta", 0.5}, {"gamma", 0.2}, {"delta", 0.05}, {"indexing", 0.3}} {
			if r.Float64() < w.share {
				ws = append(ws, w.word)
			}
		}
		return fmt.Sprintf("%s chunk %d", strings.Join(ws, " "), i)
	}
	var docs, adr []ragd.ChunkInput
	for i := range 60 {
		docs = append(docs, docChunk(fmt.Sprintf("docs/%d.md", i/5), i%5, content(i), nil))
	}
	for i := range 20 {
		adr = append(adr, docChunk(fmt.Sprintf("docs/adr/%d.md", i), 0, content(100+i), nil))
	}
	if td := termDocsOf(t, s, p.ID, []string{"alpha"}); td.Rows != 0 || td.Docs["alpha"] != 0 {
		t.Errorf("empty project: %+v", td)
	}
	mustReplace(t, s, p.ID, ragd.ScopeDocs, docs)
	mustReplace(t, s, p.ID, ragd.ScopeADR, adr)
	mustReplace(t, s, other.ID, ragd.ScopeDocs, docs[:7])
	assertTermDocs(t, s, p.ID, "english", words)
	assertTermDocs(t, s, other.ID, "english", words)

	// Keep a third, change a third, drop a third: deletes leave tombstones
	// in a contentless_delete table, which must not count.
	var next []ragd.ChunkInput
	for i, c := range docs {
		switch i % 3 {
		case 0:
			next = append(next, c)
		case 1:
			next = append(next, docChunk(c.SourcePath, c.Position, "epsilon "+content(200+i), nil))
		}
	}
	mustReplace(t, s, p.ID, ragd.ScopeDocs, next)
	assertTermDocs(t, s, p.ID, "english", words)
	mustReplace(t, s, p.ID, ragd.ScopeADR, nil)
	assertTermDocs(t, s, p.ID, "english", words)

	// A language change rebuilds the table: the vocabulary follows it.
	if _, err := s.SetLanguage(context.Background(), p.ID, "simple"); err != nil {
		t.Fatal(err)
	}
	assertTermDocs(t, s, p.ID, "simple", words)
	if td := termDocsOf(t, s, p.ID, []string{"index"}); td.Docs["index"] != 0 {
		t.Errorf("after the rebuild without stemming, the stem %q is still in %d rows", "index", td.Docs["index"])
	}
	assertTermDocs(t, s, other.ID, "english", words)

	// Removing every chunk leaves a table of no rows.
	mustReplace(t, s, p.ID, ragd.ScopeDocs, nil)
	if td := termDocsOf(t, s, p.ID, []string{"alpha", "alpha"}); td.Rows != 0 || td.Docs["alpha"] != 0 || len(td.Docs) != 1 {
		t.Errorf("emptied project: %+v", td)
	}
}

// TestTermDocs_UnknownProject fails rather than answering zeros.
func TestTermDocs_UnknownProject(t *testing.T) {
	s := mustOpen(t, 4)
	ctx := context.Background()
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	if td, err := sn.(*Snapshot).TermDocs(ctx, 99, []string{"x"}); err == nil {
		t.Fatalf("project 99: %+v, no error", td)
	}
}

// TestSQLiteVarint decodes the varints of SQLite's record format.
func TestSQLiteVarint(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want uint64
		size int
	}{
		{[]byte{0x00}, 0, 1},
		{[]byte{0x7f, 0xff}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0x86, 0x8d, 0x20}, 100_000, 3},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, 9},
		{[]byte{0x81}, 0, 0},
		{nil, 0, 0},
	} {
		got, size := sqliteVarint(tc.in)
		if got != tc.want || size != tc.size {
			t.Errorf("%x: %d %d, want %d %d", tc.in, got, size, tc.want, tc.size)
		}
	}
}

// TestMigration3_VocabularyForExistingProjects: projects of a version 2
// database get their vocabulary table, and TermDocs answers for them.
func TestMigration3_VocabularyForExistingProjects(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	old := openAtVersion(t, path, 2, 4)
	for _, id := range []int64{1, 2} {
		if _, err := old.db.ExecContext(ctx, "INSERT INTO projects (id, name, path, created_at) VALUES (?, ?, ?, ?)", id, fmt.Sprint("p", id), fmt.Sprint("/repos/p", id), now()); err != nil {
			t.Fatal(err)
		}
		// As version 2 created it: the lexical table alone.
		if _, err := old.db.ExecContext(ctx, "CREATE VIRTUAL TABLE "+lexicalTable(id)+` USING fts5(title, heading_path, content,
			content = '', contentless_delete = 1, tokenize = 'ascii')`); err != nil {
			t.Fatal(err)
		}
	}
	old.db.Close()
	s := mustOpenAt(t, path, 4)
	if v, err := s.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Fatalf("schema version %d, %v", v, err)
	}
	mustReplace(t, s, 2, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "Indexing twice.", nil), docChunk("docs/b.md", 0, "Search.", nil)})
	assertTermDocs(t, s, 1, "english", []string{"indexing"})
	assertTermDocs(t, s, 2, "english", []string{"indexing", "search", "title"})
	assertIntegrity(t, s)
}

// assertKeptDocs checks that the row counts the bounds table keeps are
// in use (TermDocs reads them) and are FTS5's own: each word's, against
// fts5vocab's count of its rows, for every word of the index and every
// word the bounds table names.
func assertKeptDocs(t *testing.T, s *Store, projectID int64, stage string) {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	sn := snap.(*Snapshot)
	want := map[string]int64{}
	rows, err := sn.tx.QueryContext(ctx, "SELECT term, doc FROM "+vocabTable(projectID))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var term string
		var n int64
		if err := rows.Scan(&term, &n); err != nil {
			t.Fatal(err)
		}
		want[term] = n
	}
	rows.Close()
	named, err := sn.tx.QueryContext(ctx, "SELECT term FROM "+boundsTable(projectID)+" WHERE term <> ''")
	if err != nil {
		t.Fatal(err)
	}
	tokens := []any{"absent-word"}
	for named.Next() {
		var term string
		if err := named.Scan(&term); err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, term)
	}
	named.Close()
	for term := range want {
		tokens = append(tokens, term)
	}
	if len(want) < 50 {
		t.Fatalf("%s: %d words in the index: the check proves little", stage, len(want))
	}
	td := termDocsOf(t, s, projectID, nil)
	kept := map[string]int64{}
	ok, err := keptDocs(ctx, sn.tx, projectID, tokens, td.Rows, kept)
	if err != nil || !ok {
		t.Fatalf("%s: the kept row counts are not in use (%v, %v)", stage, ok, err)
	}
	bad := 0
	for _, tok := range tokens {
		if got := kept[tok.(string)]; got != want[tok.(string)] {
			if bad++; bad <= 10 {
				t.Errorf("%s: %q kept in %d rows, FTS5 counts %d", stage, tok, got, want[tok.(string)])
			}
		}
	}
	if bad > 10 {
		t.Errorf("%s: %d words differ in all", stage, bad)
	}
}

// TestKeptDocs_AreFTS5s: the row counts kept beside the bounds equal
// FTS5's after every kind of write: a reindex, appends, a session titled
// later, a reindex that keeps, retitles, changes and drops chunks, a
// redaction, a forgotten session and a language rebuild. A delete whose
// text no longer analyses to its row loses them (TermDocs counts in the
// index again, still exact), and the reindex's repair step computes them
// anew.
func TestKeptDocs_AreFTS5s(t *testing.T) {
	ctx := context.Background()
	c := newZipfCorpus(t, 400)
	c.replaceDocs(t, 300)
	assertKeptDocs(t, c.s, c.p.ID, "reindexed")
	c.appendSession(t, "s1", 40)
	c.appendSession(t, "s2", 30)
	assertKeptDocs(t, c.s, c.p.ID, "appended")

	named := ev("t1", "s1", "summary", "", time.Hour)
	named.Title = "Choosing z1 storage"
	if res, err := c.s.AppendSession(ctx, c.p.ID, []ragd.Event{named}, nil); err != nil || res.Retitled != 40 {
		t.Fatalf("retitle: %+v, %v", res, err)
	}
	assertKeptDocs(t, c.s, c.p.ID, "retitled")

	// Keep a third, retitle a third (same text, its row rewritten), drop a
	// third, add new ones.
	var in []ragd.ChunkInput
	stored, err := c.s.ScopeChunks(ctx, c.p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range stored {
		switch i % 3 {
		case 0:
			in = append(in, ragd.ChunkInput{SourcePath: ch.SourcePath, Position: ch.Position, Title: ch.Title, Content: ch.Content, ContentHash: ch.ContentHash})
		case 1:
			in = append(in, ragd.ChunkInput{SourcePath: ch.SourcePath, Position: ch.Position, Title: "z2 z7 title", Content: ch.Content, ContentHash: ch.ContentHash})
		}
	}
	for i := range 50 {
		text := zipfText(c.r, c.z)
		in = append(in, ragd.ChunkInput{SourcePath: "docs/new.md", Position: i, Content: text, ContentHash: fmt.Sprintf("new-%d", i)})
	}
	res, err := c.s.ReplaceScope(ctx, c.p.ID, ragd.ScopeDocs, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted < 90 || res.Kept < 190 || res.Inserted != 50 {
		t.Fatalf("replace: %+v", res)
	}
	assertKeptDocs(t, c.s, c.p.ID, "replaced")

	if _, err := c.s.RewriteSessions(ctx, c.p.ID, ragd.Rewriter{
		Text: func(s string, _ bool) string { return strings.ReplaceAll(s, "z5 ", "REDACTED ") },
		JSON: func(b []byte) []byte { return b },
	}); err != nil {
		t.Fatal(err)
	}
	assertKeptDocs(t, c.s, c.p.ID, "redacted")
	if _, err := c.s.ForgetSession(ctx, c.p.ID, "s2"); err != nil {
		t.Fatal(err)
	}
	assertKeptDocs(t, c.s, c.p.ID, "forgotten")
	if _, err := c.s.SetLanguage(ctx, c.p.ID, "german"); err != nil {
		t.Fatal(err)
	}
	assertKeptDocs(t, c.s, c.p.ID, "rebuilt")

	// A chunk's text changed behind the index (as a new analyser would
	// read it): deleting its row loses the counts.
	if _, err := c.s.db.ExecContext(ctx, "UPDATE chunks SET content = content || ' z9 z9' WHERE project_id = ? AND scope = 'docs' AND source_path = 'docs/new.md' AND position = 0", c.p.ID); err != nil {
		t.Fatal(err)
	}
	c.replaceDocs(t, 10)
	td := termDocsOf(t, c.s, c.p.ID, nil)
	snap, err := c.s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := keptDocs(ctx, snap.(*Snapshot).tx, c.p.ID, nil, td.Rows, map[string]int64{}); err != nil || ok {
		t.Errorf("counts in use after a delete that did not match its row: %v, %v", ok, err)
	}
	snap.Close()
	assertTermDocs(t, c.s, c.p.ID, "german", []string{"z1", "z2", "z3", "z9", "z40"})
	if repaired, err := c.s.RepairLexical(ctx, c.p.ID); err != nil || repaired {
		t.Fatalf("repair: %v, %v", repaired, err)
	}
	assertKeptDocs(t, c.s, c.p.ID, "repaired")
}

package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/store/rules"
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
	lang := rules.InForce("", built)
	a, err := rules.AnalyzerFor(lang)
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

// lexicalRanking is every chunk a match finds in a project, with its score.
func lexicalRanking(t *testing.T, s *Store, projectID int64, match string) []ragd.LexicalCandidate {
	t.Helper()
	ctx := context.Background()
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	got, err := sn.(*Snapshot).matchCandidates(ctx, ragd.Filter{ProjectID: projectID}, match, 1000)
	if err != nil {
		t.Fatalf("match %s: %v", match, err)
	}
	return got
}

// analysed is a plain word as a match: its tokens for lang, as a phrase.
func analysed(t *testing.T, lang, word string) string {
	t.Helper()
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		t.Fatal(err)
	}
	return `"` + a.Text(word) + `"`
}

// TestLexical_ProjectsDoNotMoveEachOthersScores: a project's bm25 scores
// are its own, whatever another project with the same words holds, before,
// during and after that project.
func TestLexical_ProjectsDoNotMoveEachOthersScores(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	a := mustProject(t, s, "a")
	mustReplace(t, s, a.ID, ragd.ScopeDocs, []ragd.ChunkInput{
		docChunk("docs/a.md", 0, "The index holds chunks; the lexical index ranks them with bm25.", nil),
		docChunk("docs/b.md", 0, "Vectors are stored beside the chunks in sqlite-vec.", nil),
		docChunk("docs/c.md", 0, "A reindex rebuilds the index of a project from git.", nil),
	})
	queries := []string{`"index"`, `"chunk"`, `"index" OR "vector" OR "git"`}
	before := map[string][]ragd.LexicalCandidate{}
	for _, q := range queries {
		before[q] = lexicalRanking(t, s, a.ID, q)
		if len(before[q]) == 0 {
			t.Fatalf("%s finds nothing in project a", q)
		}
	}
	b := mustProject(t, s, "b")
	var many []ragd.ChunkInput
	for i := range 50 {
		many = append(many, docChunk(fmt.Sprintf("docs/%d.md", i), 0, strings.Repeat("index chunks git ", i%5+1)+fmt.Sprint("document ", i), nil))
	}
	mustReplace(t, s, b.ID, ragd.ScopeDocs, many)
	for _, q := range queries {
		if got := lexicalRanking(t, s, a.ID, q); !slices.Equal(got, before[q]) {
			t.Errorf("%s in a after b was indexed:\n got %v\nwant %v", q, got, before[q])
		}
		if len(lexicalRanking(t, s, b.ID, q)) == 0 {
			t.Errorf("%s finds nothing in b", q)
		}
	}
	if _, err := s.RemoveProject(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if got := lexicalRanking(t, s, a.ID, q); !slices.Equal(got, before[q]) {
			t.Errorf("%s in a after b was removed:\n got %v\nwant %v", q, got, before[q])
		}
	}
	var n int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'chunks_fts_%'").Scan(&n)
	if n == 0 || n > 1+4+2 { // a's table, its shadow tables, its vocabulary and bounds tables
		t.Errorf("%d lexical tables and shadows after removing b", n)
	}
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name LIKE ?", lexicalTable(b.ID)+"%").Scan(&n)
	if n != 0 {
		t.Errorf("b's lexical table survived its project: %d tables", n)
	}
	assertIntegrity(t, s)
}

func mustReplace(t *testing.T, s *Store, projectID int64, scope string, chunks []ragd.ChunkInput) ragd.ReplaceResult {
	t.Helper()
	return testdb.Replace(t, s, projectID, scope, chunks)
}

func projectByID(t *testing.T, s *Store, id int64) ragd.Project {
	t.Helper()
	ps, err := s.Projects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("project %d not found", id)
	return ragd.Project{}
}

// TestLexical_LanguageDetectedAtFirstWrite: an unset language is chosen
// from the first chunks written, recorded, and kept by later writes.
func TestLexical_LanguageDetectedAtFirstWrite(t *testing.T) {
	s := mustOpen(t, 4)
	for _, tc := range []struct {
		name, text, want string
	}{
		{"ru", "Индекс строится при регистрации проекта, и поиск по индексу работает без сети. Это решение записано в ADR.", "russian"},
		{"pt", "O índice é construído quando o projeto é registrado, e a busca pelo índice funciona sem rede. Esta decisão está num ADR.", "portuguese"},
		{"en", "The index is built when the project is registered, and the search works without a network. This decision is in an ADR.", "english"},
	} {
		p := mustProject(t, s, tc.name)
		if p.Language != "" || p.LexicalLanguage != "" {
			t.Fatalf("%s: new project has language %q, in force %q", tc.name, p.Language, p.LexicalLanguage)
		}
		mustReplace(t, s, p.ID, ragd.ScopeDocs, nil) // nothing written decides nothing
		if got := projectByID(t, s, p.ID).LexicalLanguage; got != "" {
			t.Fatalf("%s: an empty write decided %q", tc.name, got)
		}
		mustReplace(t, s, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, tc.text, nil)})
		if got := projectByID(t, s, p.ID).LexicalLanguage; got != tc.want {
			t.Errorf("%s: detected %q, want %q", tc.name, got, tc.want)
		}
		// A later write in another language changes nothing.
		mustReplace(t, s, p.ID, ragd.ScopeADR, []ragd.ChunkInput{docChunk("docs/adr/1.md", 0, "ภาษาไทย 全文検索エンジン 全文検索エンジン 全文検索エンジン 全文検索エンジン", nil)})
		if got := projectByID(t, s, p.ID).LexicalLanguage; got != tc.want {
			t.Errorf("%s: a later write changed the language to %q", tc.name, got)
		}
		assertLexicalInStep(t, s, p.ID)
	}
}

// TestLexical_Stemming runs Russian and Portuguese inflections through
// the real store: written analysed for the language, found by another form.
func TestLexical_Stemming(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	for _, tc := range []struct {
		lang  string
		docs  []string
		query string // another form of a word of docs[0] only
		miss  string // the same query analysed as English: finds nothing
	}{
		{"russian", []string{"Индексом управляет демон; индексы строятся заново.", "Векторы хранятся отдельно."}, "индекса", ""},
		{"russian", []string{"Поиск по документам работает без сети.", "Векторы хранятся отдельно."}, "поиском", ""},
		{"portuguese", []string{"As buscas combinam o índice lexical e os vetores.", "A decisão foi registrada."}, "busca", "busca"},
		{"portuguese", []string{"Os índices são reconstruídos.", "A decisão foi registrada."}, "indice", ""},
	} {
		p := mustProject(t, s, tc.lang+"-"+tc.query)
		if _, err := s.SetLanguage(ctx, p.ID, tc.lang); err != nil {
			t.Fatal(err)
		}
		var chunks []ragd.ChunkInput
		for i, d := range tc.docs {
			chunks = append(chunks, docChunk(fmt.Sprintf("docs/%d.md", i), 0, d, nil))
		}
		mustReplace(t, s, p.ID, ragd.ScopeDocs, chunks)
		if got := projectByID(t, s, p.ID).LexicalLanguage; got != tc.lang {
			t.Fatalf("language in force %q, want the setting %q", got, tc.lang)
		}
		got := lexicalRanking(t, s, p.ID, analysed(t, tc.lang, tc.query))
		if len(got) != 1 {
			t.Errorf("%s %q found %d chunks, want the one with another form of it", tc.lang, tc.query, len(got))
		}
		if tc.miss != "" {
			if got := lexicalRanking(t, s, p.ID, analysed(t, "english", tc.miss)); len(got) != 0 {
				t.Errorf("%s %q analysed as English found %d chunks: the test shows nothing", tc.lang, tc.miss, len(got))
			}
		}
	}
}

// TestSetLanguage_RebuildsOnlyThatProject: a new language re-analyses the
// project's lexical table from its chunks; vectors, ids, and the other
// project stay as they were.
func TestSetLanguage_RebuildsOnlyThatProject(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	r := rand.New(rand.NewSource(1))
	ru := mustProject(t, s, "ru")
	other := mustProject(t, s, "other")
	mustReplace(t, s, other.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/o.md", 0, "Индексы и индексом, index and indexes.", randomUnit(r, 4))})
	otherBefore := lexicalVocab(t, s.db, lexicalTable(other.ID))
	// Russian text, but English set first: Cyrillic is stemmed anyway, and
	// the Russian stop words are not; "simple" stems nothing.
	if _, err := s.SetLanguage(ctx, ru.ID, "simple"); err != nil {
		t.Fatal(err)
	}
	mustReplace(t, s, ru.ID, ragd.ScopeDocs, []ragd.ChunkInput{
		docChunk("docs/a.md", 0, "Индексом управляет демон.", randomUnit(r, 4)),
		docChunk("docs/b.md", 0, "Векторы хранятся отдельно.", randomUnit(r, 4)),
	})
	chunksBefore, err := s.ScopeChunks(ctx, ru.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if got := lexicalRanking(t, s, ru.ID, analysed(t, "simple", "индекса")); len(got) != 0 {
		t.Fatalf("simple found an inflection: %v", got)
	}
	ch, err := s.SetLanguage(ctx, ru.ID, "Russian")
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Rebuilt || ch.Chunks != 2 || ch.Project.Language != "russian" || ch.Project.LexicalLanguage != "russian" {
		t.Fatalf("set russian: %+v", ch)
	}
	if got := lexicalRanking(t, s, ru.ID, analysed(t, "russian", "индекса")); len(got) != 1 {
		t.Fatalf("russian found %d chunks for an inflection, want 1", len(got))
	}
	chunksAfter, err := s.ScopeChunks(ctx, ru.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunksAfter) != len(chunksBefore) {
		t.Fatalf("chunks %d then %d", len(chunksBefore), len(chunksAfter))
	}
	for i := range chunksAfter {
		if chunksAfter[i].ID != chunksBefore[i].ID || chunksAfter[i].EmbeddingSpace != chunksBefore[i].EmbeddingSpace || chunksAfter[i].EmbeddingSpace == "" {
			t.Errorf("chunk %d changed: %+v then %+v", i, chunksBefore[i], chunksAfter[i])
		}
	}
	if got := lexicalVocab(t, s.db, lexicalTable(other.ID)); !slices.Equal(got, otherBefore) {
		t.Errorf("the other project's lexical table changed")
	}
	// The same language again, or automatic when the text says the same:
	// nothing to rebuild.
	for _, l := range []string{"russian", ""} {
		ch, err := s.SetLanguage(ctx, ru.ID, l)
		if err != nil {
			t.Fatal(err)
		}
		if ch.Rebuilt || ch.Project.Language != l || ch.Project.LexicalLanguage != "russian" {
			t.Errorf("set %q: %+v", l, ch)
		}
	}
	if _, err := s.SetLanguage(ctx, ru.ID, "klingon"); !errors.Is(err, ErrUnknownLanguage) {
		t.Errorf("klingon: %v", err)
	}
	if _, err := s.SetLanguage(ctx, 999, "english"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("unknown project: %v", err)
	}
	assertIntegrity(t, s)
}

// TestReplaceScope_KeptChunkNewHeading: a chunk kept under a new heading
// or title is found by its new words only.
func TestReplaceScope_KeptChunkNewHeading(t *testing.T) {
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	c := docChunk("docs/a.md", 0, "Body text without the heading words.", nil)
	c.HeadingPath, c.Title = []string{"Gardening"}, "Tomatoes"
	mustReplace(t, s, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{c})
	c.HeadingPath, c.Title = []string{"Compost"}, "Watering"
	if res := mustReplace(t, s, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{c}); res.Kept != 1 {
		t.Fatalf("%+v: the chunk was not kept", res)
	}
	for w, want := range map[string]int{"gardening": 0, "tomatoes": 0, "compost": 1, "watering": 1, "body": 1} {
		if got := lexicalRanking(t, s, p.ID, analysed(t, "english", w)); len(got) != want {
			t.Errorf("%s: %d chunks, want %d", w, len(got), want)
		}
	}
	assertIntegrity(t, s)
}

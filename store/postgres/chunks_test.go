package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/store/rules"
)

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// doc is a docs chunk of path at pos with text and, unless nil, vec.
func doc(path string, pos int, text string, vec []float32) ragd.ChunkInput {
	return ragd.ChunkInput{SourcePath: path, SourceCommit: "c1", Title: path, HeadingPath: []string{"Intro"},
		Position: pos, Content: text, ContentHash: hashOf(text), Vector: vec}
}

// sessionChunk is a chunk of event in session.
func sessionChunk(session, event, text string, vec []float32) ragd.ChunkInput {
	return ragd.ChunkInput{SessionID: session, EventID: event, Title: session, Content: text, ContentHash: hashOf(text), Vector: vec}
}

func addProject(t testing.TB, s *Store, name string) ragd.Project {
	t.Helper()
	return testdb.AddProject(t, s, name, "/home/"+s.Owner()+"/"+name)
}

func replace(t testing.TB, s *Store, projectID int64, scope string, chunks ...ragd.ChunkInput) ragd.ReplaceResult {
	t.Helper()
	return testdb.Replace(t, s, projectID, scope, chunks)
}

func TestReplaceScopeCounts(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	v := []float32{1, 0, 0, 0}

	res := replace(t, s, p.ID, ragd.ScopeDocs,
		doc("a.md", 0, "the quick brown fox", v),
		doc("a.md", 1, "jumps over the lazy dog", nil),
		doc("b.md", 0, "an entirely different text", v))
	if want := (ragd.ReplaceResult{Inserted: 3, Vectors: 2}); res != want {
		t.Fatalf("first replace: %+v, want %+v", res, want)
	}
	// One kept with a new title (vector kept), one changed (new id), one gone.
	kept := doc("a.md", 0, "the quick brown fox", nil)
	kept.Title = "A renamed"
	res = replace(t, s, p.ID, ragd.ScopeDocs, kept, doc("a.md", 1, "jumps over the lazy cat", v))
	if want := (ragd.ReplaceResult{Inserted: 1, Kept: 1, Deleted: 2, Vectors: 2}); res != want {
		t.Fatalf("second replace: %+v, want %+v", res, want)
	}
	got, err := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Title != "A renamed" || got[0].EmbeddingSpace != s.Space() || got[1].Content != "jumps over the lazy cat" {
		t.Fatalf("scope after replace: %+v", got)
	}
	st, err := s.ScopeStats(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if st.Chunks != 2 || st.LexicalOnly != 0 || st.Sources["a.md"] != 2 {
		t.Fatalf("scope stats: %+v", st)
	}
	states, err := s.ChunkStates(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if st := states[kept.ID(p.ID, ragd.ScopeDocs)]; !st.Vector || st.Title != "A renamed" || !st.Matches(&kept) {
		t.Fatalf("state of the kept chunk: %+v", st)
	}
	// The lexical index follows the new title.
	if n := lexicalCount(t, s, p.ID, "renamed"); n != 1 {
		t.Fatalf("chunks matching the new title: %d, want 1", n)
	}
	// Emptied.
	res = replace(t, s, p.ID, ragd.ScopeDocs)
	if want := (ragd.ReplaceResult{Deleted: 2}); res != want {
		t.Fatalf("emptying replace: %+v, want %+v", res, want)
	}
}

// lexicalCount counts a project's chunks whose tsv holds token.
func lexicalCount(t testing.TB, s *Store, projectID int64, token string) int {
	t.Helper()
	a, err := rules.AnalyzerFor("english")
	if err != nil {
		t.Fatal(err)
	}
	token = a.Text(token)
	var n int
	if err := s.pool.QueryRow(context.Background(), "SELECT count(*) FROM chunks WHERE project_id = $1 AND tsv @@ to_tsquery('simple', $2)",
		projectID, quoteLexeme(token)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReplaceScopeRefusesBadInput(t *testing.T) {
	s, _ := openTest(t, Options{})
	p := addProject(t, s, "demo")
	for name, chunks := range map[string][]ragd.ChunkInput{
		"duplicate": {doc("a.md", 0, "x", nil), doc("a.md", 0, "x", nil)},
		"no path":   {doc("", 0, "x", nil)},
		"short vec": {doc("a.md", 0, "x", []float32{1})},
		"zero vec":  {doc("a.md", 0, "x", []float32{0, 0, 0, 0})},
		"no hash":   {{SourcePath: "a.md", Content: "x"}},
	} {
		if _, err := s.ReplaceScope(context.Background(), p.ID, ragd.ScopeDocs, chunks); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := s.ReplaceScope(context.Background(), p.ID, "nope", nil); err == nil {
		t.Error("unknown scope: no error")
	}
	if _, err := s.ReplaceScope(context.Background(), 999, ragd.ScopeDocs, []ragd.ChunkInput{doc("a.md", 0, "x", nil)}); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("unknown project: %v, want ErrNotFound", err)
	}
}

// A replace that fails halfway leaves the old scope whole: here the server
// refuses the last insert (a position past the integer column), after the
// delete of the vanished chunks and the first inserts ran.
func TestReplaceScopeIsAtomic(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs, doc("a.md", 0, "old text", nil), doc("b.md", 0, "other old text", nil))

	bad := doc("c.md", 0, "new text", nil)
	_, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{doc("a.md", 0, "new a", nil), bad, {SourcePath: "d.md", Position: 1 << 40, Content: "x", ContentHash: "h"}})
	if err == nil {
		t.Fatal("replace with an out-of-range position: no error")
	}
	got, err := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Content != "old text" || got[1].Content != "other old text" {
		t.Fatalf("scope after a failed replace: %+v", got)
	}
}

// idOf is c's chunk id in a project's scope.
func idOf(c ragd.ChunkInput, projectID int64, scope string) string { return c.ID(projectID, scope) }

// A write of more new chunks than one insert statement takes stores each
// row as one INSERT per chunk stored it (before the statements took
// arrays): the chunks' seqs in the order given, each tsvector the formula
// of tsvSQL over the chunk's analysed text, each vector the input's unit
// vector (none where none was given), every column as given. And a write
// whose last statement the server refuses leaves the scope and its lexical
// generation as they were.
func TestReplaceScopeManyChunks(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	n := 2*insertRowsPerStatement + 17
	in := make([]ragd.ChunkInput, n)
	for i := range in {
		var vec []float32
		if i%3 != 0 {
			vec = []float32{float32(i), 1, float32(i % 7), 2}
		}
		in[i] = doc(fmt.Sprintf("f%03d.md", i/10), i%10, fmt.Sprintf("chunk %d says word%d and word%d", i, i%13, i%101), vec)
		in[i].HeadingPath = []string{"Part " + strconv.Itoa(i%5), "Section"}
		in[i].Start, in[i].End = i*3, i*3+2
		if i%4 == 0 {
			in[i].SourceCommit = ""
		}
	}
	res := replace(t, s, p.ID, ragd.ScopeDocs, in...)
	if res.Inserted != n || res.Vectors != n-(n+2)/3 {
		t.Fatalf("replace: %+v, want %d inserted, %d vectors", res, n, n-(n+2)/3)
	}
	_, lang, err := projectLanguages(ctx, s.pool, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	items, _, err := s.prepareChunks(p.ID, ragd.ScopeDocs, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := analyseWritten(items, nil, lang); err != nil {
		t.Fatal(err)
	}
	// What one INSERT a chunk wrote: the tsv of its own parameters.
	b := &pgx.Batch{}
	for _, it := range items {
		b.Queue("SELECT ("+tsvSQL(1, 2, 3)+")::text", it.doc.title, it.doc.heading, it.doc.content)
	}
	br := s.pool.SendBatch(ctx, b)
	want := make([]string, len(items))
	for i := range items {
		if err := br.QueryRow().Scan(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := br.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := s.pool.Query(ctx, `SELECT id, tsv::text, embedding, coalesce(embedding_space, ''), coalesce(source_commit, ''),
		heading_path, position, start_offset, end_offset, owner, shared FROM chunks WHERE project_id = $1 ORDER BY seq`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var id, tsv, space, commit, heading, owner string
		var vec *pgvector.Vector
		var pos, start, end int
		var shared bool
		if err := rows.Scan(&id, &tsv, &vec, &space, &commit, &heading, &pos, &start, &end, &owner, &shared); err != nil {
			t.Fatal(err)
		}
		if i >= n {
			t.Fatalf("more than %d rows", n)
		}
		it, c := items[i], in[i]
		if id != it.id || tsv != want[i] || commit != c.SourceCommit || heading != it.heading || pos != c.Position ||
			start != c.Start || end != c.End || owner != "" || shared {
			t.Fatalf("row %d: id %s tsv %q commit %q heading %s position %d offsets %d-%d owner %q shared %v; want id %s tsv %q and %+v",
				i, id, tsv, commit, heading, pos, start, end, owner, shared, it.id, want[i], c)
		}
		switch {
		case c.Vector == nil && (vec != nil || space != ""):
			t.Fatalf("row %d: vector %v in %q, want none", i, vec, space)
		case c.Vector != nil && (vec == nil || space != s.Space() || !slices.Equal(vec.Slice(), it.vec.Slice())):
			t.Fatalf("row %d: vector %v in %q, want %v in %q", i, vec, space, it.vec, s.Space())
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != n {
		t.Fatalf("%d rows, want %d", i, n)
	}

	var gen string
	if err := s.pool.QueryRow(ctx, "SELECT ragd_lexical_generation($1)", p.ID).Scan(&gen); err != nil {
		t.Fatal(err)
	}
	// Half the chunks kept, the rest new, the last new one refused by the
	// server (a position past the integer column): in the last statement.
	again := append(append([]ragd.ChunkInput{}, in[:n/2]...), make([]ragd.ChunkInput, n-n/2)...)
	for i := n / 2; i < n; i++ {
		again[i] = doc("new.md", i, fmt.Sprintf("new chunk %d", i), nil)
	}
	again[n-1].Position = 1 << 40
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, again); err == nil || !strings.Contains(err.Error(), "insert chunks") {
		t.Fatalf("replace with an out-of-range position in the last statement: %v", err)
	}
	var after string
	var count int
	if err := s.pool.QueryRow(ctx, "SELECT ragd_lexical_generation($1), (SELECT count(*) FROM chunks WHERE project_id = $1 AND source_path = 'new.md')",
		p.ID).Scan(&after, &count); err != nil {
		t.Fatal(err)
	}
	got, err := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if after != gen || count != 0 || len(got) != n {
		t.Fatalf("after a failed replace: generation %q (was %q), %d new chunks, %d chunks (want %d)", after, gen, count, len(got), n)
	}
}

// TestReplaceScopeKeptChunksInPlace: a reindex that keeps every chunk of a
// scope larger than one statement's rows writes each kept chunk's new
// commit, offsets, heading and (where given) vector, and rewrites the tsv
// of the chunks whose heading changed; the chunks whose heading did not
// change are updated in place on their page (HOT), adding no entry to any
// index. The write runs in the test's transaction so that the server's
// counts of this transaction's updates can be read in it.
//
// The vectors have 768 dimensions: PostgreSQL keeps them out of line
// (TOAST), where a vector merely set to itself came back as a new value
// and no update was in place.
func TestReplaceScopeKeptChunksInPlace(t *testing.T) {
	const dims = 768
	s, _ := openTest(t, Options{Space: fmt.Sprintf("test/%d", dims), Dims: dims})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	r := rand.New(rand.NewSource(7))
	n := insertRowsPerStatement + 5
	in := make([]ragd.ChunkInput, n)
	for i := range in {
		in[i] = doc(fmt.Sprintf("f%04d.md", i/10), i%10, fmt.Sprintf("chunk %d says word%d and word%d", i, i%13, i%101),
			vectest.RandomUnit(r, dims))
	}
	replace(t, s, p.ID, ragd.ScopeDocs, in...)

	again := slices.Clone(in)
	headed, vectored := 0, 0
	for i := range again {
		again[i].SourceCommit = "c2"
		again[i].Vector = nil // kept: the indexer sends no vector
		again[i].Start, again[i].End = i, i+1
		if i%100 == 0 {
			again[i].HeadingPath = []string{"Zzyzx"}
			headed++
		}
		if i%7 == 0 {
			again[i].Vector = vectest.RandomUnit(r, dims)
			vectored++
		}
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	items, seen, err := s.prepareChunks(p.ID, ragd.ScopeDocs, again)
	if err != nil {
		t.Fatal(err)
	}
	_, lang, err := projectLanguages(ctx, tx, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := analyseWritten(items, nil, lang); err != nil {
		t.Fatal(err)
	}
	old, err := s.readScopeChunks(ctx, tx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != n || len(seen) != n {
		t.Fatalf("%d stored chunks, %d input ids, want %d", len(old), len(seen), n)
	}
	res, err := s.applyReplace(ctx, tx, p.ID, ragd.ScopeDocs, items, old, nil)
	if err != nil || res.Kept != n || res.Inserted != 0 || res.Vectors != n {
		t.Fatalf("kept replace: %+v, %v", res, err)
	}
	var updated, hot int
	if err := tx.QueryRow(ctx, `SELECT pg_stat_get_xact_tuples_updated('chunks'::regclass),
		pg_stat_get_xact_tuples_hot_updated('chunks'::regclass)`).Scan(&updated, &hot); err != nil {
		t.Fatal(err)
	}
	// A chunk whose heading changed is updated twice, its tsv (the GIN
	// index reads it) and its row, not in place; a new vector is a new
	// entry in the HNSW graph, not in place either. Every other update is.
	if updated != n+headed || hot < n-vectored-headed {
		t.Errorf("%d updates, %d of them in place (HOT); want %d, at least %d in place", updated, hot, n+headed, n-vectored-headed)
	}
	rows, err := tx.Query(ctx, `SELECT id, source_commit, start_offset, end_offset, heading_path, embedding,
		tsv @@ to_tsquery('simple', 'zzyzx') FROM chunks WHERE project_id = $1`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	byID := map[string]int{}
	for i, it := range items {
		byID[it.id] = i
	}
	got := 0
	for rows.Next() {
		var id, commit, heading string
		var start, end int
		var vec pgvector.Vector
		var moved bool
		if err := rows.Scan(&id, &commit, &start, &end, &heading, &vec, &moved); err != nil {
			t.Fatal(err)
		}
		i, ok := byID[id]
		if !ok {
			t.Fatalf("chunk %s not in the input", id)
		}
		given := in[i].Vector
		if again[i].Vector != nil {
			given = again[i].Vector
		}
		want, err := s.vector(given) // stored as a unit vector
		if err != nil {
			t.Fatal(err)
		}
		if commit != "c2" || start != i || end != i+1 || heading != items[i].heading || !slices.Equal(vec.Slice(), want.Slice()) ||
			moved != (i%100 == 0) {
			t.Fatalf("chunk %d: commit %q offsets %d-%d heading %s vector %v tsv has the new heading %v; want %+v, vector %v",
				i, commit, start, end, heading, vec, moved, again[i], want)
		}
		got++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Fatalf("%d chunks, want %d", got, n)
	}
}

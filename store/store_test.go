package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/store/rules"
)

// mustOpen opens a fresh store of dims in a temp dir.
func mustOpen(tb testing.TB, dims int) *Store {
	tb.Helper()
	return mustOpenAt(tb, filepath.Join(tb.TempDir(), "ragd.db"), dims)
}

func mustOpenAt(tb testing.TB, path string, dims int) *Store {
	tb.Helper()
	s, err := Open(context.Background(), path, Options{Space: fmt.Sprintf("test/%d", dims), Dims: dims})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func mustProject(tb testing.TB, s *Store, name string) ragd.Project {
	tb.Helper()
	return testdb.AddProject(tb, s, name, "/repos/"+name)
}

func randomUnit(r *rand.Rand, dims int) []float32 { return vectest.RandomUnit(r, dims) }

func docChunk(path string, pos int, content string, vec []float32) ragd.ChunkInput {
	return ragd.ChunkInput{
		SourcePath: path, SourceCommit: "c0ffee", HeadingPath: []string{"Title"}, Title: "Title",
		Position: pos, Content: content, ContentHash: fmt.Sprintf("%x", hashString(content)), Vector: vec,
	}
}

func hashString(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func TestOpen_MigrationsTwiceChangeNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragd.db")
	s := mustOpenAt(t, path, 4)
	ctx := context.Background()
	schema := func(s *Store) string {
		rows, err := s.db.QueryContext(ctx, "SELECT type, name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var typ, name, sql string
			if err := rows.Scan(&typ, &name, &sql); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %s %s\n", typ, name, sql)
		}
		return b.String()
	}
	before := schema(s)
	var applied int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&applied)
	s.Close()

	s2 := mustOpenAt(t, path, 4)
	if after := schema(s2); after != before {
		t.Errorf("schema changed on second open:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	var again int
	s2.db.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&again)
	if again != applied || applied == 0 {
		t.Errorf("schema_migrations rows: %d then %d", applied, again)
	}
	// The migrator skips what is applied, whatever the files now say: a
	// list of the same length whose first file would fail is not run.
	ms := make([]migration, applied)
	for i := range ms {
		ms[i] = migration{version: i + 1, name: fmt.Sprintf("%04d_x.sql", i+1), sql: "CREATE TABLE never_created (x)"}
	}
	if err := s2.applyMigrations(ctx, s2.db, s2.path, ms); err != nil {
		t.Fatal(err)
	}
	var n int
	s2.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'never_created'").Scan(&n)
	if n != 0 {
		t.Error("an applied migration ran again")
	}
}

func TestOpen_NewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragd.db")
	s := mustOpenAt(t, path, 4)
	if _, err := s.db.Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999_future.sql', 'x')"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(context.Background(), path, Options{Space: "test/4", Dims: 4})
	if !errors.Is(err, ragd.ErrSchemaTooNew) {
		t.Fatalf("err = %v, want ErrSchemaTooNew", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "999") {
		t.Errorf("error should name the path and the version: %v", err)
	}
}

func TestLoadMigrations_BadNames(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"no number": {"init.sql": {Data: []byte("x")}},
		"gap":       {"0001_a.sql": {Data: []byte("x")}, "0003_c.sql": {Data: []byte("x")}},
		"duplicate": {"0001_a.sql": {Data: []byte("x")}, "0001_b.sql": {Data: []byte("x")}},
	} {
		if _, err := loadMigrations(fsys); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestOpen_BadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	t.Run("not a database", func(t *testing.T) {
		path := filepath.Join(dir, "garbage.db")
		if err := os.WriteFile(path, []byte(strings.Repeat("this is not sqlite\n", 500)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, path, Options{Space: "test/4", Dims: 4})
		if !errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), path) {
			t.Fatalf("err = %v, want ErrNotDatabase naming %s", err, path)
		}
	})
	t.Run("directory", func(t *testing.T) {
		_, err := Open(ctx, dir, Options{Space: "test/4", Dims: 4})
		if err == nil || !strings.Contains(err.Error(), "directory") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unwritable directory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			// root writes anywhere: make the parent a file instead, which no
			// one can create a directory in.
			file := filepath.Join(dir, "plainfile")
			os.WriteFile(file, nil, 0o600)
			_, err := Open(ctx, filepath.Join(file, "sub", "ragd.db"), Options{Space: "test/4", Dims: 4})
			if err == nil || !strings.Contains(err.Error(), file) {
				t.Fatalf("err = %v", err)
			}
			return
		}
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o500)
		_, err := Open(ctx, filepath.Join(ro, "ragd.db"), Options{Space: "test/4", Dims: 4})
		if err == nil || !strings.Contains(err.Error(), "not writable") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("dims out of range", func(t *testing.T) {
		if _, err := Open(ctx, filepath.Join(dir, "x.db"), Options{Space: "test/-3", Dims: -3}); err == nil {
			t.Fatal("no error")
		}
	})
}

func TestOpen_SpaceMismatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	s := mustOpenAt(t, path, 4)
	p := mustProject(t, s, "p")
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", []float32{1, 0, 0, 0})}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	_, err := Open(ctx, path, Options{Space: "other/8", Dims: 8})
	if !errors.Is(err, ragd.ErrSpaceMismatch) {
		t.Fatalf("err = %v, want ErrSpaceMismatch", err)
	}
	for _, want := range []string{path, "reindex", "test/4", "other/8"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	s2, err := Open(ctx, path, Options{Space: "other/8", Dims: 8, ResetSpace: true})
	if err != nil {
		t.Fatalf("reset: %v", err)
	}
	defer s2.Close()
	chunks, err := s2.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil || len(chunks) != 1 || chunks[0].EmbeddingSpace != "" {
		t.Fatalf("after reset: chunks %+v, err %v; want the chunk kept without vector", chunks, err)
	}
}

// An index that holds no vector (lexical-only so far, e.g. the `make run`
// path with the embedding server down) takes the configured space without
// --reset-vectors: there is nothing of the old space to lose (issue 15 #4).
func TestOpen_SpaceChangeWithoutVectors(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	s := mustOpenAt(t, path, 4)
	p := mustProject(t, s, "p")
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", nil)}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2, err := Open(ctx, path, Options{Space: "other/8", Dims: 8})
	if err != nil {
		t.Fatalf("open a vectorless index in another space: %v", err)
	}
	defer s2.Close()
	if space, dims, err := s2.storedSpace(ctx); err != nil || space != "other/8" || dims != 8 {
		t.Fatalf("stored space %q/%d (err %v), want other/8 with 8 dims", space, dims, err)
	}
	// The new space's vectors fit: the vec0 table was made for 8 dims.
	in := []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", []float32{1, 0, 0, 0, 0, 0, 0, 0})}
	if res, err := s2.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil || res.Vectors != 1 {
		t.Fatalf("store an 8-dim vector: %+v, %v", res, err)
	}
	chunks, err := s2.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil || len(chunks) != 1 || chunks[0].EmbeddingSpace != "other/8" {
		t.Fatalf("chunks %+v, err %v; want the chunk in other/8", chunks, err)
	}
	assertIntegrity(t, s2)
}

func TestReplaceScope_KeepsIDsAndVotes(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	v := []float32{1, 0, 0, 0}
	first := []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha text", v), docChunk("docs/a.md", 1, "beta text", v), docChunk("docs/b.md", 0, "gamma", nil)}
	res, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, first)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 3 || res.Vectors != 2 {
		t.Fatalf("first replace: %+v", res)
	}
	before, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)

	// Twice in a row: same chunks, same ids.
	res, err = s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, first)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kept != 3 || res.Inserted != 0 || res.Deleted != 0 {
		t.Fatalf("idempotent replace: %+v", res)
	}
	again, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	for i := range before {
		if before[i].ID != again[i].ID || before[i].Content != again[i].Content {
			t.Fatalf("chunk %d changed: %+v vs %+v", i, before[i], again[i])
		}
	}

	// Votes on an unchanged chunk survive; votes on a changed one go.
	vote := func(chunkID string) {
		t.Helper()
		r, err := s.tdb.Exec("INSERT INTO rag_searches (query, weights, degraded, vector_available, latency_ms, actor, created_at) VALUES ('q', '{}', 0, 1, 1, 'person', ?)", now())
		if err != nil {
			t.Fatal(err)
		}
		id, _ := r.LastInsertId()
		if _, err := s.tdb.Exec("INSERT INTO rag_feedback (search_id, chunk_id, rank, verdict, actor, created_at) VALUES (?, ?, 1, 'useful', 'person', ?)", id, chunkID, now()); err != nil {
			t.Fatal(err)
		}
	}
	vote(before[0].ID)
	vote(before[1].ID)
	second := []ragd.ChunkInput{first[0], docChunk("docs/a.md", 1, "beta text, edited", v)}
	res, err = s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Kept != 1 || res.Inserted != 1 || res.Deleted != 2 {
		t.Fatalf("edit replace: %+v", res)
	}
	var votes []string
	rows, _ := s.tdb.Query("SELECT chunk_id FROM rag_feedback")
	for rows.Next() {
		var id string
		rows.Scan(&id)
		votes = append(votes, id)
	}
	rows.Close()
	if len(votes) != 1 || votes[0] != before[0].ID {
		t.Fatalf("votes after edit: %v, want only %s", votes, before[0].ID)
	}
	// FTS and vectors follow: nothing of the deleted chunks is found.
	sn, _ := s.Snapshot(ctx)
	defer sn.Close()
	lex, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, words("gamma"), 10)
	if err != nil || len(lex.Candidates) != 0 {
		t.Fatalf("deleted chunk still in FTS: %v %v", lex, err)
	}
	knn, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, v, 10)
	if err != nil || len(knn) != 2 {
		t.Fatalf("knn after edit: %v %v, want 2", knn, err)
	}
	assertIntegrity(t, s)
}

func TestReplaceScope_NilVectorKeepsExisting(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", []float32{0, 1, 0, 0})}); err != nil {
		t.Fatal(err)
	}
	res, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", nil)})
	if err != nil || res.Vectors != 1 {
		t.Fatalf("res %+v err %v, want the vector kept", res, err)
	}
	// And a null vector that gets filled later.
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeADR, []ragd.ChunkInput{docChunk("docs/adr/1.md", 0, "beta", nil)}); err != nil {
		t.Fatal(err)
	}
	res, err = s.ReplaceScope(ctx, p.ID, ragd.ScopeADR, []ragd.ChunkInput{docChunk("docs/adr/1.md", 0, "beta", []float32{0, 0, 1, 0})})
	if err != nil || res.Vectors != 1 || res.Kept != 1 {
		t.Fatalf("fill: res %+v err %v", res, err)
	}
	chunks, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeADR)
	if chunks[0].EmbeddingSpace != "test/4" {
		t.Fatalf("space after fill: %q", chunks[0].EmbeddingSpace)
	}
}

func TestReplaceScope_RejectsBadVectors(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	for name, v := range map[string][]float32{
		"short": {1, 0, 0},
		"nan":   {float32(math.NaN()), 0, 0, 0},
		"inf":   {float32(math.Inf(1)), 0, 0, 0},
		"zero":  {0, 0, 0, 0},
	} {
		_, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "x", v)})
		if !errors.Is(err, ragd.ErrBadVector) {
			t.Errorf("%s: err = %v, want ErrBadVector", name, err)
		}
	}
	if _, err := s.ReplaceScope(ctx, p.ID, "code", nil); err == nil {
		t.Error("unknown scope accepted")
	}
}

func TestReplaceScope_FailureMidwayKeepsOldScope(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	r := rand.New(rand.NewSource(1))
	var old []ragd.ChunkInput
	for i := 0; i < 50; i++ {
		old = append(old, docChunk("docs/old.md", i, fmt.Sprintf("old chunk %d", i), randomUnit(r, 4)))
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, old); err != nil {
		t.Fatal(err)
	}
	before, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)

	var fresh []ragd.ChunkInput
	for i := 0; i < 50; i++ {
		fresh = append(fresh, docChunk("docs/new.md", i, fmt.Sprintf("new chunk %d", i), randomUnit(r, 4)))
	}
	injected := errors.New("injected failure")
	s.failAfterInsert = func(n int) error {
		if n == 25 {
			return injected
		}
		return nil
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, fresh); !errors.Is(err, injected) {
		t.Fatalf("err = %v, want the injected failure", err)
	}
	s.failAfterInsert = nil

	after, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if len(after) != len(before) {
		t.Fatalf("%d chunks after failed replace, want %d", len(after), len(before))
	}
	for i := range before {
		if before[i].ID != after[i].ID || before[i].Content != after[i].Content {
			t.Fatalf("chunk %d changed", i)
		}
	}
	sn, _ := s.Snapshot(ctx)
	defer sn.Close()
	if lex, _ := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, words("new"), 100); len(lex.Candidates) != 0 {
		t.Fatalf("half-written chunks visible in FTS: %d", len(lex.Candidates))
	}
	if knn, _ := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, randomUnit(r, 4), 100); len(knn) != 50 {
		t.Fatalf("knn sees %d vectors, want 50", len(knn))
	}
	assertIntegrity(t, s)
}

func assertIntegrity(t *testing.T, s *Store) {
	t.Helper()
	if err := s.IntegrityCheck(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Each project's lexical table holds exactly its chunks, analysed.
	ps, err := s.Projects(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		assertLexicalInStep(t, s, p.ID)
	}
	var orphans int
	s.db.QueryRow("SELECT count(*) FROM chunk_vectors WHERE chunk_seq NOT IN (SELECT seq FROM chunks)").Scan(&orphans)
	if orphans != 0 {
		t.Fatalf("%d orphan vectors", orphans)
	}
	assertFloatsInStep(t, s)
}

// assertFloatsInStep checks that the plain table of floats (migration 5)
// holds exactly the vectors of the vec0 table, byte for byte, and one for
// each chunk with a vector.
func assertFloatsInStep(t *testing.T, s *Store) {
	t.Helper()
	var floats, vectors, same, chunks int
	err := s.db.QueryRow(`SELECT (SELECT count(*) FROM chunk_floats), (SELECT count(*) FROM chunk_vectors),
		(SELECT count(*) FROM chunk_floats f JOIN chunk_vectors v ON v.chunk_seq = f.seq WHERE v.embedding = f.embedding),
		(SELECT count(*) FROM chunks WHERE embedding_space IS NOT NULL)`).Scan(&floats, &vectors, &same, &chunks)
	if err != nil {
		t.Fatal(err)
	}
	if floats != vectors || same != vectors || chunks != vectors {
		t.Fatalf("%d floats rows, %d vectors, %d of them equal, %d chunks with a vector: want all equal", floats, vectors, same, chunks)
	}
}

func TestKNN_EqualsBruteForceCosine(t *testing.T) {
	ctx := context.Background()
	const dims, n = 32, 600
	s := mustOpen(t, dims)
	p := mustProject(t, s, "p")
	other := mustProject(t, s, "other")
	r := rand.New(rand.NewSource(42))
	byContent := map[string]rec{}
	inputs := map[string][]ragd.ChunkInput{}
	for i := 0; i < n; i++ {
		scope := ragd.Scopes[i%2] // docs, adr
		content := fmt.Sprintf("chunk %d", i)
		// Unnormalised on purpose: the store normalises.
		v := randomUnit(r, dims)
		for j := range v {
			v[j] *= float32(1 + r.Intn(5))
		}
		path := "docs/x.md"
		if scope == ragd.ScopeADR {
			path = "docs/adr/x.md"
		}
		inputs[scope] = append(inputs[scope], docChunk(path, i, content, v))
		byContent[content] = rec{scope, v}
	}
	for scope, in := range inputs {
		if _, err := s.ReplaceScope(ctx, p.ID, scope, in); err != nil {
			t.Fatal(err)
		}
	}
	// Another project's vectors must never show up.
	if _, err := s.ReplaceScope(ctx, other.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/x.md", 0, "other", randomUnit(r, dims))}); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	all, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	adr, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeADR)
	all = append(all, adr...)

	for trial := 0; trial < 20; trial++ {
		q := randomUnit(r, dims)
		for _, scopes := range [][]string{nil, {ragd.ScopeADR}, {ragd.ScopeDocs, ragd.ScopeADR}, {ragd.ScopeDocs, ragd.ScopeSession}} {
			want := bruteForce(all, byContent, q, scopes)
			got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID, Scopes: scopes}, q, 12)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 12 {
				t.Fatalf("scopes %v: %d candidates, want 12", scopes, len(got))
			}
			for i := range got {
				if got[i].ChunkID != want[i].id || math.Abs(got[i].Distance-want[i].dist) > 1e-4 {
					t.Fatalf("scopes %v rank %d: got %s %.6f, want %s %.6f", scopes, i, got[i].ChunkID, got[i].Distance, want[i].id, want[i].dist)
				}
			}
		}
	}
}

type ranked struct {
	id   string
	dist float64
}

type rec struct {
	scope string
	vec   []float32
}

func bruteForce(chunks []ragd.Chunk, recs map[string]rec, q []float32, scopes []string) []ranked {
	ok := map[string]bool{}
	for _, sc := range scopes {
		ok[sc] = true
	}
	var out []ranked
	for _, c := range chunks {
		if len(scopes) > 0 && !ok[c.Scope] {
			continue
		}
		v := recs[c.Content].vec
		var dot, nv, nq float64
		for i := range v {
			dot += float64(v[i]) * float64(q[i])
			nv += float64(v[i]) * float64(v[i])
			nq += float64(q[i]) * float64(q[i])
		}
		out = append(out, ranked{c.ID, 1 - dot/math.Sqrt(nv*nq)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].dist != out[j].dist {
			return out[i].dist < out[j].dist
		}
		return out[i].id < out[j].id
	})
	return out
}

func TestLexical_BM25OrderingIsSane(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	docs := []ragd.ChunkInput{
		docChunk("docs/a.md", 0, "The weights of the hybrid fusion: vector weight and lexical weight, weights weights.", nil),
		docChunk("docs/b.md", 0, "A long chapter about gardening, tomatoes, soil, compost and watering, which mentions weights once in passing among many other words that dilute it considerably over a long paragraph.", nil),
		docChunk("docs/c.md", 0, "Nothing relevant here at all.", nil),
		docChunk("docs/d.md", 0, "Résumé des décisions: café, naïve façade.", nil),
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, docs); err != nil {
		t.Fatal(err)
	}
	sn, _ := s.Snapshot(ctx)
	defer sn.Close()
	m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, words("weight"), 10)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Candidates
	chunks, _ := s.Chunks(ctx, []string{got[0].ChunkID, got[1].ChunkID})
	if len(got) != 2 || chunks[0].SourcePath != "docs/a.md" || chunks[1].SourcePath != "docs/b.md" {
		t.Fatalf("order: %+v", chunks)
	}
	if !(got[0].Score > got[1].Score && got[1].Score > 0) {
		t.Fatalf("score (−bm25) not positive and increasing with quality: %v", got)
	}
	// Snowball English stemming and diacritics folding: the match holds
	// analysed tokens, as the search package's parser builds them.
	a, err := rules.AnalyzerFor(p.LexicalLanguage)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"weight", "cafe", "resume", "decisions", "Façades"} {
		if got, _ := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, words(a.Text(q)), 10); len(got.Candidates) == 0 {
			t.Errorf("%q (%s) found nothing", q, a.Text(q))
		}
	}
	// LexicalScores agrees with LexicalCandidates.
	scores, err := sn.LexicalScores(ctx, p.ID, words("weight"), []string{got[0].ChunkID, got[1].ChunkID, "missing"})
	if err != nil || len(scores) != 2 || scores[got[0].ChunkID] != got[0].Score {
		t.Fatalf("scores %v err %v", scores, err)
	}
}

func TestSnapshot_DoesNotSeeLaterReplace(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "old words", []float32{1, 0, 0, 0})}); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/b.md", 0, "new words", []float32{0, 1, 0, 0})}); err != nil {
		t.Fatal(err)
	}
	f := ragd.Filter{ProjectID: p.ID, Scopes: []string{ragd.ScopeDocs}}
	m, err := sn.LexicalCandidates(ctx, f, words("word"), 10)
	if err != nil {
		t.Fatal(err)
	}
	lex := m.Candidates
	knn, err := sn.VectorCandidates(ctx, f, []float32{0, 1, 0, 0}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(lex) != 1 || len(knn) != 1 || lex[0].ChunkID != knn[0].ChunkID {
		t.Fatalf("snapshot saw a mix: lex %v knn %v", lex, knn)
	}
	chunks, _ := sn.Chunks(ctx, []string{lex[0].ChunkID})
	if len(chunks) != 1 || chunks[0].Content != "old words" {
		t.Fatalf("snapshot chunk: %+v", chunks)
	}
	// A new snapshot sees the new scope.
	sn2, _ := s.Snapshot(ctx)
	defer sn2.Close()
	lex2, _ := sn2.LexicalCandidates(ctx, f, words("new"), 10)
	if len(lex2.Candidates) != 1 {
		t.Fatalf("new snapshot: %v", lex2)
	}
}

func TestVectorDistances_MatchKNN(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 8)
	p := mustProject(t, s, "p")
	r := rand.New(rand.NewSource(7))
	var in []ragd.ChunkInput
	for i := 0; i < 20; i++ {
		in = append(in, docChunk("docs/a.md", i, fmt.Sprintf("c%d", i), randomUnit(r, 8)))
	}
	in = append(in, docChunk("docs/a.md", 20, "no vector", nil))
	s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in)
	sn, _ := s.Snapshot(ctx)
	defer sn.Close()
	q := randomUnit(r, 8)
	knn, _ := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, q, 20)
	all, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	var ids []string
	for _, c := range all {
		ids = append(ids, c.ID)
	}
	d, err := sn.VectorDistances(ctx, q, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 20 {
		t.Fatalf("%d distances, want 20 (the chunk without vector has none)", len(d))
	}
	for _, c := range knn {
		if math.Abs(d[c.ChunkID]-c.Distance) > 1e-6 {
			t.Fatalf("%s: %v vs %v", c.ChunkID, d[c.ChunkID], c.Distance)
		}
	}
}

func TestProjects(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "ragd")
	if _, err := s.AddProject(ctx, "ragd", "/elsewhere"); !errors.Is(err, ragd.ErrExists) {
		t.Fatalf("duplicate name: %v", err)
	}
	got, err := s.Project(ctx, "/repos/ragd")
	if err != nil || got.ID != p.ID {
		t.Fatalf("by path: %+v %v", got, err)
	}
	if _, err := s.Project(ctx, "nope"); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("unknown: %v", err)
	}
	s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", []float32{1, 0, 0, 0})})
	if _, err := s.RemoveProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	s.db.QueryRow("SELECT (SELECT count(*) FROM chunks) + (SELECT count(*) FROM chunk_vectors)").Scan(&n)
	if n != 0 {
		t.Fatalf("%d rows left after removing the project", n)
	}
	assertIntegrity(t, s)
}

func TestEmbeddingCache(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	in := map[string][]float32{"k1": {1, 2, 3, 4}, "k2": {0.5, 0, 0, 0}}
	if err := s.StoreEmbeddings(ctx, "m/4", in); err != nil {
		t.Fatal(err)
	}
	got, err := s.LookupEmbeddings(ctx, "m/4", []string{"k1", "k2", "k3"})
	if err != nil || len(got) != 2 || got["k1"][3] != 4 {
		t.Fatalf("got %v err %v", got, err)
	}
	if other, _ := s.LookupEmbeddings(ctx, "other/4", []string{"k1"}); len(other) != 0 {
		t.Fatal("cache leaked across spaces")
	}
}

func TestOpen_DropsOrphanVotes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	s := mustOpenAt(t, path, 4)
	p := mustProject(t, s, "p")
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "alpha", nil)}); err != nil {
		t.Fatal(err)
	}
	kept, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	r, err := s.tdb.Exec("INSERT INTO rag_searches (query, weights, degraded, vector_available, latency_ms, actor, created_at) VALUES ('q', '{}', 0, 1, 1, 'person', ?)", now())
	if err != nil {
		t.Fatal(err)
	}
	id, _ := r.LastInsertId()
	// A vote on a live chunk, and one on a chunk a crashed reindex removed.
	for _, chunk := range []string{kept[0].ID, "0123456789abcdef0123456789abcdef"} {
		if _, err := s.tdb.Exec("INSERT INTO rag_feedback (search_id, chunk_id, rank, verdict, actor, created_at) VALUES (?, ?, 1, 'useful', 'person', ?)", id, chunk, now()); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s2 := mustOpenAt(t, path, 4)
	var votes []string
	rows, _ := s2.tdb.Query("SELECT chunk_id FROM rag_feedback")
	for rows.Next() {
		var c string
		rows.Scan(&c)
		votes = append(votes, c)
	}
	rows.Close()
	if len(votes) != 1 || votes[0] != kept[0].ID {
		t.Fatalf("votes after reopen: %v, want only the live chunk's", votes)
	}
	if _, err := os.Stat(TelemetryPath(path)); err != nil {
		t.Fatalf("telemetry file: %v", err)
	}
}

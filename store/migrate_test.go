package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/migrations"
)

// openAtVersion creates a database at path migrated up to version only, with
// its vector table, as a ragd of that version left it.
func openAtVersion(t *testing.T, path string, version, dims int) *Store {
	t.Helper()
	ctx := context.Background()
	ms, err := loadMigrations(migrations.Main)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driverName, dsn(path, DefaultBusyTimeout, false))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{path: path, space: "test/4", dims: dims, db: db, logger: slog.Default()}
	if err := s.applyMigrations(ctx, db, path, ms[:version]); err != nil {
		t.Fatal(err)
	}
	if err := s.ensureVectorTable(ctx, false); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMigration2_FromVersion1: a database with projects, chunks, vectors and
// cached embeddings, written by the version 1 schema (shared chunks_fts and
// its triggers), comes out of migration 2 with a lexical table per project
// analysed as English, the old table gone, and every vector and cached
// embedding kept.
func TestMigration2_FromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	old := openAtVersion(t, path, 1, 4)
	r := rand.New(rand.NewSource(7))
	stamp := now()
	type oldChunk struct {
		project int64
		path    string
		heading string
		title   string
		content string
	}
	chunks := []oldChunk{
		{1, "docs/a.md", `["Indexing"]`, "Guide", "The indexer rebuilds indexes from git; résumé of the decisions."},
		{1, "docs/b.md", `["Search"]`, "Guide", "Hybrid search fuses vectors with bm25."},
		{2, "docs/c.md", `["Поиск"]`, "Заметки", "Индексом управляет демон. The index again."},
	}
	for _, p := range []struct {
		id   int64
		name string
	}{{1, "one"}, {2, "two"}, {3, "empty"}} {
		if _, err := old.db.ExecContext(ctx, "INSERT INTO projects (id, name, path, created_at) VALUES (?, ?, ?, ?)", p.id, p.name, "/repos/"+p.name, stamp); err != nil {
			t.Fatal(err)
		}
	}
	vectors := map[int64][]byte{}
	for i, c := range chunks {
		res, err := old.db.ExecContext(ctx, `INSERT INTO chunks (id, project_id, scope, source_path, source_commit, heading_path, title,
			position, content, content_hash, embedding_space, indexed_at) VALUES (?, ?, 'docs', ?, 'c0ffee', ?, ?, 0, ?, ?, 'test/4', ?)`,
			ragd.ChunkID(c.project, "docs", c.path, 0, c.content), c.project, c.path, c.heading, c.title, c.content, c.content, stamp)
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		seq, _ := res.LastInsertId()
		blob, err := old.encodeVector(randomUnit(r, 4))
		if err != nil {
			t.Fatal(err)
		}
		vectors[seq] = blob
		if _, err := old.db.ExecContext(ctx, "INSERT INTO chunk_vectors (chunk_seq, project_id, scope, embedding) VALUES (?, ?, 'docs', ?)", seq, c.project, blob); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.StoreEmbeddings(ctx, "test/4", map[string][]float32{"k1": randomUnit(r, 4)}); err != nil {
		t.Fatal(err)
	}
	// The old table was in use: it found the chunks.
	var n int
	if err := old.db.QueryRowContext(ctx, "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'index'").Scan(&n); err != nil || n != 2 {
		t.Fatalf("version 1 chunks_fts: %d matches, %v", n, err)
	}
	old.db.Close()

	s := mustOpenAt(t, path, 4)
	if v, err := s.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Fatalf("schema version %d, %v", v, err)
	}
	// Migration 5 copied the floats of the vectors there were.
	assertFloatsInStep(t, s)
	// Migration 4 counted the chunks and vectors there were.
	for _, want := range []struct{ project, chunks, vectors int64 }{{1, 2, 2}, {2, 1, 1}} {
		var chunks, vectors int64
		if err := s.db.QueryRowContext(ctx, "SELECT chunks, vectors FROM chunk_counts WHERE project_id = ? AND scope = 'docs'", want.project).Scan(&chunks, &vectors); err != nil {
			t.Fatalf("chunk counts of project %d: %v", want.project, err)
		}
		if chunks != want.chunks || vectors != want.vectors {
			t.Errorf("project %d: counted %d chunks, %d vectors; want %d, %d", want.project, chunks, vectors, want.chunks, want.vectors)
		}
	}
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'chunks_fts' OR name LIKE 'chunks_fts_insert' OR name LIKE 'chunks_fts_update' OR name LIKE 'chunks_fts_delete'").Scan(&n)
	if n != 0 {
		t.Errorf("%d objects of the shared chunks_fts survived", n)
	}
	for id, want := range map[int64]string{1: "english", 2: "english", 3: ""} {
		p := projectByID(t, s, id)
		if p.Language != "" || p.LexicalLanguage != want {
			t.Errorf("project %d: language %q, in force %q, want automatic and %q", id, p.Language, p.LexicalLanguage, want)
		}
		assertLexicalInStep(t, s, id)
	}
	// Analysed as English: stems meet, folded diacritics too; title and
	// headings are searched.
	for _, tc := range []struct {
		project int64
		word    string
		want    int
	}{
		{1, "indexes", 1}, {1, "resume", 1}, {1, "guide", 2}, {1, "searching", 1}, {2, "индекса", 1}, {2, "поиск", 1}, {3, "index", 0},
	} {
		if got := lexicalRanking(t, s, tc.project, analysed(t, "english", tc.word)); len(got) != tc.want {
			t.Errorf("project %d, %q: %d chunks, want %d", tc.project, tc.word, len(got), tc.want)
		}
	}
	got := map[int64][]byte{}
	rows, err := s.db.QueryContext(ctx, "SELECT chunk_seq, embedding FROM chunk_vectors")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var seq int64
		var b []byte
		if err := rows.Scan(&seq, &b); err != nil {
			t.Fatal(err)
		}
		got[seq] = b
	}
	rows.Close()
	if len(got) != len(vectors) {
		t.Fatalf("%d vectors after the migration, %d before", len(got), len(vectors))
	}
	for seq, b := range vectors {
		if !slices.Equal(got[seq], b) {
			t.Errorf("vector of chunk %d changed", seq)
		}
	}
	cached, err := s.LookupEmbeddings(ctx, "test/4", []string{"k1"})
	if err != nil || len(cached) != 1 {
		t.Errorf("embedding cache after the migration: %v, %v", cached, err)
	}
	// The migrated store goes on as a new one: writes, and a new project.
	mustReplace(t, s, 1, ragd.ScopeADR, []ragd.ChunkInput{docChunk("docs/adr/1.md", 0, "Indexing decisions.", nil)})
	p := mustProject(t, s, "new")
	mustReplace(t, s, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/x.md", 0, "Indexing anew.", nil)})
	assertIntegrity(t, s)
}

// TestMigration_GoStepFailureRollsBackItsSQL: a migration whose Go step fails
// leaves neither its SQL nor its record behind, so the next open retries it.
func TestMigration_GoStepFailureRollsBackItsSQL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	v, err := s.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := migration{version: v + 1, name: "9999_x.sql", sql: "CREATE TABLE half_done (x)",
		after: func(context.Context, *sql.Tx) error { return errors.New("step failed") }}
	if err := applyMigration(ctx, s.db, s.path, m); err == nil {
		t.Fatal("a failing step was applied")
	}
	var n int
	s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'half_done'").Scan(&n)
	if after, _ := s.SchemaVersion(ctx); n != 0 || after != v {
		t.Errorf("after a failed step: table %d, version %d (was %d)", n, after, v)
	}
}

// latestVersion is the version of the last migration of the main database.
func latestVersion(t *testing.T) int {
	t.Helper()
	ms, err := loadMigrations(migrations.Main)
	if err != nil {
		t.Fatal(err)
	}
	return len(ms)
}

// TestMigration6_TablesAnOlderOpenCreated: a version 5 database already
// has the transcript tables and the queue index (an older ragd created them
// at open); migration 6 keeps them and their rows.
func TestMigration6_TablesAnOlderOpenCreated(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	old := openAtVersion(t, path, 5, 4)
	for _, q := range []string{
		`INSERT INTO projects (id, name, path, created_at) VALUES (1, 'p', '/repos/p', '2026-11-30T00:00:00Z')`,
		`CREATE TABLE transcript_files (path TEXT NOT NULL, project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
			format TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, checkpoint TEXT NOT NULL, updated_at TEXT NOT NULL,
			PRIMARY KEY (path, project_id)) STRICT`,
		`CREATE TABLE forgotten_sessions (project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
			session_id TEXT NOT NULL, forgotten_at TEXT NOT NULL, PRIMARY KEY (project_id, session_id)) STRICT`,
		`CREATE INDEX chunks_without_vector ON chunks (seq) WHERE embedding_space IS NULL`,
		`INSERT INTO forgotten_sessions VALUES (1, 's1', '2026-11-30T00:00:00Z')`,
	} {
		if _, err := old.db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.db.Close()
	s := mustOpenAt(t, path, 4)
	if v, err := s.SchemaVersion(ctx); err != nil || v != latestVersion(t) {
		t.Fatalf("schema version %d, %v", v, err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM forgotten_sessions WHERE session_id = 's1'").Scan(&n); err != nil || n != 1 {
		t.Errorf("forgotten sessions after the migration: %d, %v", n, err)
	}
	if _, err := s.PendingVectorCount(ctx); err != nil {
		t.Errorf("the queue index after the migration: %v", err)
	}
}

// TestMigration7_ProjectLayout: a version 6 database's projects come out of
// migration 7 with no settings, and keep their chunks and ids; settings
// set afterwards are read back.
func TestMigration7_ProjectLayout(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ragd.db")
	old := openAtVersion(t, path, 6, 4)
	if _, err := old.db.ExecContext(ctx, `INSERT INTO projects (id, name, path, created_at) VALUES (1, 'p', '/repos/p', '2026-11-30T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	old.db.Close()
	s := mustOpenAt(t, path, 4)
	p, err := s.Project(ctx, "p")
	if err != nil || !p.Layout.IsZero() {
		t.Fatalf("project after the migration: %+v, %v", p, err)
	}
	want := ragd.Layout{ADRDirs: []string{"doc/adr"}, Exclude: []string{"docs/archive/**"}, NoPackageReadmes: true}
	if err := s.SetLayout(ctx, p.ID, want); err != nil {
		t.Fatal(err)
	}
	if p, err = s.Project(ctx, "p"); err != nil || !p.Layout.Equal(want) {
		t.Errorf("layout read back: %+v, %v; want %+v", p.Layout, err, want)
	}
	if err := s.SetLayout(ctx, p.ID, ragd.Layout{}); err != nil {
		t.Fatal(err)
	}
	if p, err = s.Project(ctx, "p"); err != nil || !p.Layout.IsZero() {
		t.Errorf("layout after a reset: %+v, %v", p.Layout, err)
	}
	if err := s.SetLayout(ctx, 99, want); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("layout of no project: %v", err)
	}
}

package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
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

package storetest

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ragd/ragd"
)

// The domain's sentinel errors, as every engine wraps them.
var errorTests = []subtest{
	{"bad vector", testBadVector},
	{"space mismatch", testSpaceMismatch},
	{"schema too new", testSchemaTooNew},
}

// testBadVector: a chunk whose vector has other dims, a NaN or no length
// is refused with ragd.ErrBadVector, and the scope stays as it was.
func testBadVector(t *testing.T, e *env) {
	s := e.store()
	p := e.project("p")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "kept", unit(s, 0)))
	nan := unit(s, 1)
	nan[0] = float32(math.NaN())
	for name, v := range map[string][]float32{
		"other dims": {1, 0},
		"NaN":        nan,
		"zero":       make([]float32, s.Dims()),
	} {
		_, err := s.ReplaceScope(t.Context(), p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/b.md", 0, "bad", v)})
		if !errors.Is(err, ragd.ErrBadVector) {
			t.Errorf("%s: %v, want ragd.ErrBadVector", name, err)
		}
	}
	if got := e.states(p.ID, ragd.ScopeDocs); len(got) != 1 {
		t.Errorf("scope after refused vectors: %d chunks, want the 1 kept", len(got))
	}
}

// testSpaceMismatch: a database holding vectors of one embedding space
// refuses to open in another with ragd.ErrSpaceMismatch, naming both, and
// opens again in its own with its vectors.
func testSpaceMismatch(t *testing.T, e *env) {
	s := e.store()
	space, dims := s.Space(), s.Dims()
	p := e.project("p")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "held", unit(s, 0)))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	other, err := e.su.OpenSpace(t, fmt.Sprintf("other/%d", dims+1), dims+1)
	if err == nil {
		other.Close()
		t.Fatalf("opened a database of %s in another space", space)
	}
	if !errors.Is(err, ragd.ErrSpaceMismatch) || !strings.Contains(err.Error(), space) {
		t.Fatalf("open in another space: %v, want ragd.ErrSpaceMismatch naming %s", err, space)
	}
	e.s = e.open()
	if cov := e.scopeStats(p.ID, ragd.ScopeDocs); cov.Chunks != 1 || cov.LexicalOnly != 0 {
		t.Errorf("after the refused open: %+v, want the chunk and its vector", cov)
	}
}

// testSchemaTooNew: a database a newer ragd migrated is refused with
// ragd.ErrSchemaTooNew.
func testSchemaTooNew(t *testing.T, e *env) {
	s := e.store()
	space, dims := s.Space(), s.Dims()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	e.su.SchemaAhead(t)
	st, err := e.su.OpenSpace(t, space, dims)
	if err == nil {
		st.Close()
		t.Fatal("opened a database a newer ragd migrated")
	}
	if !errors.Is(err, ragd.ErrSchemaTooNew) {
		t.Fatalf("open: %v, want ragd.ErrSchemaTooNew", err)
	}
}

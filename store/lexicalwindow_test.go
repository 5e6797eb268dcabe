package store

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// fullLexical is the lexical query without the window: every match joined
// to its chunk, then cut. The window must answer exactly this.
func fullLexical(t *testing.T, s *Store, projectID int64, scopes []string, match string, k int) []ragd.LexicalCandidate {
	t.Helper()
	tbl := lexicalTable(projectID)
	q := `SELECT c.id, bm25(` + tbl + `) AS score FROM ` + tbl + ` JOIN chunks c ON c.seq = ` + tbl + `.rowid WHERE ` + tbl + ` MATCH ?`
	args := []any{match}
	if len(scopes) > 0 {
		q += " AND c.scope IN (" + placeholders(len(scopes)) + ")"
		for _, sc := range scopes {
			args = append(args, sc)
		}
	}
	rows, err := s.db.Query(q+" ORDER BY score, c.seq LIMIT ?", append(args, k)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []ragd.LexicalCandidate
	for rows.Next() {
		var c ragd.LexicalCandidate
		var bm25 float64
		if err := rows.Scan(&c.ChunkID, &bm25); err != nil {
			t.Fatal(err)
		}
		c.Score = -bm25
		out = append(out, c)
	}
	return out
}

// The window (the FTS table's best rows, then their chunks) answers what
// the whole join answers, ties at the cut and filtered scopes included:
// the corpus repeats texts, so many rows share a score, and one scope is
// rare, so a window can hold too few of it.
func TestLexicalCandidates_WindowEqualsFullJoin(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	r := rand.New(rand.NewSource(11))
	words := []string{"alpha", "beta", "gamma", "delta", "index", "search", "daemon", "socket"}
	text := func() string {
		// Few distinct texts: identical texts tie exactly.
		n := 2 + r.Intn(3)
		out := ""
		for i := range n {
			out += words[(r.Intn(4)+i)%len(words)] + " "
		}
		return out
	}
	for _, scope := range []string{ragd.ScopeDocs, ragd.ScopeADR} {
		var in []ragd.ChunkInput
		n := 150
		if scope == ragd.ScopeADR {
			n = 6 // written last: ties put them after every docs row
		}
		for i := range n {
			in = append(in, docChunk(fmt.Sprintf("docs/%s%d.md", scope, i%7), i, text(), nil))
		}
		if scope == ragd.ScopeADR {
			for i := range in {
				in[i].SourcePath = fmt.Sprintf("docs/adr/%04d.md", i%7)
			}
		}
		if _, err := s.ReplaceScope(ctx, p.ID, scope, in); err != nil {
			t.Fatal(err)
		}
	}
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	windowed, fellBack := 0, 0
	for _, match := range []string{`"alpha"`, `"alpha" OR "gamma"`, `"socket"`, `"daemon" OR "index" OR "beta"`, `"nomatch"`} {
		for _, scopes := range [][]string{nil, {ragd.ScopeDocs}, {ragd.ScopeADR, ragd.ScopeSession}} {
			for _, k := range []int{1, 3, 12, 40, 400} {
				got, err := sn.(*Snapshot).matchCandidates(ctx, ragd.Filter{ProjectID: p.ID, Scopes: scopes}, match, k)
				if err != nil {
					t.Fatal(err)
				}
				want := fullLexical(t, s, p.ID, scopes, match, k)
				if !slices.Equal(got, want) {
					t.Errorf("%s in %v, k %d:\n got %v\nwant %v", match, scopes, k, got, want)
				}
				fs, _ := rules.FilterScopes(ragd.Filter{Scopes: scopes})
				w, exact, err := sn.(*Snapshot).lexicalWindow(ctx, lexicalTable(p.ID), fs, match, fts5Scoring(lexicalTable(p.ID)), k)
				switch {
				case err != nil:
					t.Fatal(err)
				case exact && !slices.Equal(w, want):
					t.Errorf("%s in %v, k %d: the window vouched for %v, want %v", match, scopes, k, w, want)
				case exact:
					windowed++
				default:
					fellBack++
				}
			}
		}
	}
	// Both paths ran: the window alone, and the whole join when the
	// scopes left too few in the window.
	if windowed == 0 || fellBack == 0 {
		t.Errorf("the window answered %d times and fell back %d times; want both", windowed, fellBack)
	}
}

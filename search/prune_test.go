package search

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
	"github.com/ragd/ragd/store"
)

// Frequent-word pruning is the store's (store/lexicalquery.go, tested
// there): the searcher asks for it, or not, and reports what was dropped.

// pruneCorpus indexes testdb.ZipfScopes' n chunks: "w1" is in nearly
// every chunk, "w300" in a few percent. It returns the store's searcher
// and project.
func pruneCorpus(t *testing.T, n int) (*Searcher, int64) {
	t.Helper()
	st := sqlitedb.OpenDims(t, 4)
	p := testdb.AddProject(t, st, "zipf", "/repos/zipf").ID
	corpus := testdb.ZipfScopes(n, func(path string, pos int, text string) ragd.ChunkInput {
		return doc(path, pos, []string{"Heading"}, text, nil)
	})
	for _, sc := range corpus {
		testdb.Replace(t, st, p, sc.Scope, sc.Chunks)
	}
	return searcher(st, nil), p
}

// TestPrune_SearchReportsDropped: a search leaves out of its lexical query
// the words in most chunks when a rarer one remains, and says so (explain's
// dropped words and match, Retrieved's Query); with KeepFrequentTerms it
// searches every word, and the lists agree up to ties.
func TestPrune_SearchReportsDropped(t *testing.T) {
	ctx := context.Background()
	s, project := pruneCorpus(t, 1200)
	sn, err := s.Store.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for i := 1; i <= 3000; i++ {
		words = append(words, "w"+strconv.Itoa(i))
	}
	td, err := sn.(*store.Snapshot).TermDocs(ctx, project, words)
	sn.Close()
	if err != nil {
		t.Fatal(err)
	}
	var frequent, rare string
	for _, w := range words {
		switch n := td.Docs[w]; {
		case frequent == "" && n >= td.Rows/2+1:
			frequent = w
		case rare == "" && n >= 2*DefaultCandidates && n < td.Rows/4:
			rare = w
		}
	}
	if frequent == "" || rare == "" {
		t.Fatalf("corpus of %d rows: frequent %q, rare %q: too few to test", td.Rows, frequent, rare)
	}
	q := frequent + " " + rare
	resp, err := s.Search(ctx, Request{ProjectID: project, Query: q, Limit: DefaultLimit, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if e := resp.Explain; e == nil || !slices.Equal(e.Dropped, []string{frequent}) || e.Match != `"`+rare+`"` {
		t.Errorf("%q: explain %+v, want %s dropped", q, resp.Explain, frequent)
	}
	off, on := *s, *s
	off.KeepFrequentTerms = true
	// Deeper without pruning, to hold the members of a tie the cut splits.
	full, err := off.Candidates(ctx, CandidatesRequest{ProjectID: project, Query: q, Depth: 4 * DefaultCandidates})
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := on.Candidates(ctx, CandidatesRequest{ProjectID: project, Query: q, Depth: DefaultCandidates})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pruned.Query.Dropped, []string{frequent}) || pruned.Query.Expression != `"`+rare+`"` ||
		full.Query.Dropped != nil || full.Query.Expression != `"`+frequent+`" OR "`+rare+`"` {
		t.Errorf("%q: pruned %q %s, full %q %s", q, pruned.Query.Dropped, pruned.Query.Expression, full.Query.Dropped, full.Query.Expression)
	}
	if len(pruned.Candidates.Lexical) != DefaultCandidates {
		t.Errorf("%q: %d candidates pruned", q, len(pruned.Candidates.Lexical))
	}
	for i, c := range pruned.Candidates.Lexical {
		if !slices.ContainsFunc(full.Candidates.Lexical, func(x ragd.LexicalCandidate) bool { return x.ChunkID == c.ChunkID }) {
			t.Errorf("%q: pruning found %s at %d, not found without", q, c.ChunkID, i+1)
		}
	}
}

package search

import (
	"context"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
)

// While the background fill has embedded only part of a scope, the chunks
// that have a vector must not outrank the keyword matches of the rest
// (issue 35 #22: on the Kuma docs with 53 of 2,423 chunks embedded, "how
// do I enable mutual TLS between services" answered `§ Make Targets` and
// `§ Design`, vector-only and off topic, above every keyword match). The
// searcher's default ranks the keyword matches as the lexical half alone
// does, with the vector-only chunks below them.
func TestSearch_DuringFillKeywordMatchesKeepTheirRank(t *testing.T) {
	st := sqlitedb.OpenDims(t, 4)
	project := testdb.AddProject(t, st, "kuma", "/repos/kuma").ID
	// Filled: two off-topic sections whose vectors sit nearer the query
	// than random pairs do (cosine 0.75 and 0.7 in a space whose random
	// pairs score 0.6), matching no word of it.
	testdb.Replace(t, st, project, ragd.ScopeDocs, []ragd.ChunkInput{
		doc("docs/make.md", 0, []string{"Make Targets"}, "Run make build to compile the binaries and make check for linters.", unit(0.75)),
		doc("docs/design.md", 0, []string{"Design"}, "The control plane keeps its state in the store and pushes it to the proxies.", unit(0.7)),
		// Not filled yet: the sections that answer, by their words.
		doc("docs/mtls.md", 0, []string{"Mutual TLS"}, "Enable mutual TLS between services with a mesh that sets mtls enabled; services then talk over TLS.", nil),
		doc("docs/certs.md", 0, []string{"Certificates"}, "Certificates for mutual TLS between services rotate every day; enable rotation in the mesh.", nil),
		doc("docs/gateway.md", 0, []string{"Gateway"}, "The gateway terminates mutual TLS for services outside the mesh.", nil),
	})
	ctx := context.Background()
	const query = "how do I enable mutual TLS between services"

	lexical := searcher(st, downEmbedder("the provider is down"))
	alone, err := lexical.Search(ctx, Request{ProjectID: project, Query: query, Limit: DefaultLimit})
	if err != nil {
		t.Fatal(err)
	}
	var keyword []string
	for _, h := range alone.Hits {
		keyword = append(keyword, h.Origin.Title)
	}
	if len(keyword) < 2 || keyword[0] != "Mutual TLS" {
		t.Fatalf("the lexical half alone answers %q: want TLS sections, Mutual TLS first", keyword)
	}

	s := searcher(st, upEmbedder(e1))
	s.Baseline = func(context.Context) (float64, bool) { return 0.6, true }
	resp, err := s.Search(ctx, Request{ProjectID: project, Query: query, Limit: DefaultLimit, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.VectorCoverage; c == nil || c.Chunks != 5 || c.Vectors != 2 {
		t.Errorf("coverage %+v: want 2 of 5 chunks with a vector, said in the answer", c)
	}
	var got []string
	for _, h := range resp.Hits {
		got = append(got, h.Origin.Title)
	}
	if len(got) < len(keyword) {
		t.Fatalf("hybrid during the fill answers %q: fewer than the keyword half's %q", got, keyword)
	}
	for i, title := range keyword {
		if got[i] != title {
			t.Fatalf("hybrid during the fill answers %q: want the keyword half's %q first, in its order", got, keyword)
		}
	}
}

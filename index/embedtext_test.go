package index_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
)

// A document's chunk is embedded after its title and heading path where
// its content does not say them, and the same text whether the reindex
// embeds it or the background fill does later: one chunk, one vector.
func TestEmbeddedText_HeaderInlineAndInTheFill(t *testing.T) {
	ctx := context.Background()
	var body strings.Builder
	for i := range 40 {
		body.WriteString("Each attempt waits twice as long as the one before it, up to a minute. ")
		if i%10 == 9 {
			body.WriteString("\n\n")
		}
	}
	files := map[string]string{"docs/sink.md": "# Kafka sink\n\nWrites events to a topic.\n\n## Retries\n\n" + body.String()}

	embedded := func(inline bool) []string {
		t.Helper()
		s := openStore(t)
		repo := gittest.New(t)
		repo.Commit(t, "docs", files)
		p := testdb.AddProject(t, s, "p", repo.Dir)
		srv, svc := fakeOllama(t, s, testDims)
		if inline {
			reindex(t, newIndexer(s, svc), p, ragd.ScopeDocs)
		} else {
			reindex(t, newIndexer(s, downService(t, s)), p, ragd.ScopeDocs)
			b := &index.Backfill{Store: s, Embedder: svc, Batch: 3, Logger: quiet}
			for more := true; more; {
				var err error
				if _, more, err = b.Step(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, c := range chunks(t, s, p, ragd.ScopeDocs) {
			if c.EmbeddingSpace != s.Space() {
				t.Fatalf("chunk %d (%q) has no vector", c.Position, c.Content)
			}
		}
		var texts []string
		for _, in := range srv.Inputs() {
			texts = append(texts, in...)
		}
		slices.Sort(texts)
		return texts
	}

	inline := embedded(true)
	var later int
	for _, text := range inline {
		// (The model's document prefix comes first: testModel is a nomic.)
		if strings.Contains(text, "Kafka sink > Retries\n\n") {
			later++
		}
		if strings.Contains(text, "# Kafka sink") && strings.Count(text, "Kafka sink") > 1 {
			t.Errorf("the title's own chunk got a header: %q", text)
		}
	}
	if later < 2 {
		t.Fatalf("%d texts embedded with the header \"Kafka sink > Retries\", want the section's later chunks (at least 2): %q", later, inline)
	}
	if filled := embedded(false); !slices.Equal(inline, filled) {
		t.Errorf("the fill embedded other texts than the reindex:\n reindex %q\n fill    %q", inline, filled)
	}
}

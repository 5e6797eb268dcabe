package daemon_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// A reindex larger than index.inline_vectors is searchable at once, by
// words; each answer says which share of the searched chunks had a vector;
// health and coverage show the queue; the background fill fills it once the
// provider answers, and the answers then search every chunk's vector.
func TestBackfill_LargeReindexSearchableAtOnceFilledInBackground(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	srv.SetFault(ollamatest.Respond(http.StatusInternalServerError, `{"error":"model runner crashed"}`))
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(srv.URL)
	cfg.Index.InlineVectors = 4
	d := daemontest.Start(t, w, cfg)
	steps := make(chan error, 256)
	d.SetBackfillHook(func(_ int, err error) {
		select {
		case steps <- err:
		default:
		}
	})
	await := func(what string, cond func(err error) bool) {
		t.Helper()
		timeout := time.After(daemontest.Timeout)
		for {
			select {
			case err := <-steps:
				if cond(err) {
					return
				}
			case <-timeout:
				t.Fatalf("no backfill step brought %s within %s", what, daemontest.Timeout)
			}
		}
	}

	repo := daemontest.Repo(t, daemontest.Corpus(3, 4, "v1"))
	daemontest.AddProject(t, d.Client, repo.Dir, "p")
	rep := daemontest.Reindex(t, d.Client, "p", "docs")
	sr := rep.Scopes[0]
	total := sr.Chunks.Total
	if total <= cfg.Index.InlineVectors || sr.Embedding.Deferred != total || sr.LexicalOnly != total || rep.Complete {
		t.Fatalf("reindex of %d chunks over inline_vectors %d: %s (%+v)", total, cfg.Index.InlineVectors, sr.Summary, sr.Embedding)
	}
	await("a failed step", func(err error) bool { return err != nil })

	// Searchable at once, by words; the answer says no chunk had a vector.
	resp := daemontest.Search(t, d.Client, "p", api.SearchRequest{Query: "alpha1 beta2"})
	if len(resp.Hits) == 0 || resp.VectorCoverage == nil || *resp.VectorCoverage != (api.VectorCoverage{Chunks: total, Vectors: 0, Share: 0}) {
		t.Fatalf("search before the fill: %d hits, coverage %+v", len(resp.Hits), resp.VectorCoverage)
	}
	h, err := d.Client.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := h.Backfill; b == nil || b.Pending != total || b.Filled != 0 || b.LastError == "" {
		t.Fatalf("health while the provider fails: backfill %+v", b)
	}

	// The provider answers again; a reindex (nothing changed) wakes the fill.
	srv.SetFault(nil)
	daemontest.Reindex(t, d.Client, "p", "docs")
	await("every vector", func(err error) bool {
		if err != nil {
			return false
		}
		h, err := d.Client.Health(ctx)
		return err == nil && h.Backfill != nil && h.Backfill.Pending == 0
	})

	cov, err := d.Client.Coverage(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range cov.Scopes {
		if sc.LexicalOnly != 0 {
			t.Errorf("coverage after the fill: %s has %d chunks without a vector", sc.Scope, sc.LexicalOnly)
		}
	}
	if b := cov.Backfill; b == nil || b.Pending != 0 || b.Filled != total || b.LastError != "" || b.PerSecond <= 0 {
		t.Errorf("coverage's backfill after the fill: %+v; want %d filled", b, total)
	}
	resp = daemontest.Search(t, d.Client, "p", api.SearchRequest{Query: "alpha1 beta2"})
	if resp.Degraded || resp.VectorCoverage == nil || resp.VectorCoverage.Vectors != total || resp.VectorCoverage.Share != 1 {
		t.Fatalf("search after the fill: degraded %v, coverage %+v", resp.Degraded, resp.VectorCoverage)
	}
	if len(resp.Hits) == 0 || resp.Hits[0].VectorScore == nil {
		t.Errorf("the best hit after the fill has no vector score: %+v", resp.Hits)
	}

	// Appended messages are chunked at once, without vectors; the append
	// wakes the fill, which embeds them.
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	res, err := d.Client.AppendEvents(ctx, "p", []ragd.Event{
		{ID: "m1", SessionID: "s1", Type: ragd.TypeChatMessage, Actor: "person", Text: "Where does the zeppelin hangar keep its logs?", Time: at},
		{ID: "m2", SessionID: "s1", Type: ragd.TypeAgentResponse, Actor: "agent", Text: "The zeppelin hangar logs go to the state directory.", Time: at.Add(time.Second)},
	})
	if err != nil || res.Chunks != 2 {
		t.Fatalf("append: %+v, %v; want 2 chunks written", res, err)
	}
	await("the appended messages' vectors", func(err error) bool {
		if err != nil {
			return false
		}
		h, err := d.Client.Health(ctx)
		return err == nil && h.Backfill != nil && h.Backfill.Pending == 0
	})
	resp = daemontest.Search(t, d.Client, "p", api.SearchRequest{Query: "zeppelin hangar logs", Scopes: []string{ragd.ScopeSession}})
	if resp.VectorCoverage == nil || *resp.VectorCoverage != (api.VectorCoverage{Chunks: 2, Vectors: 2, Share: 1}) || len(resp.Hits) == 0 || resp.Hits[0].VectorScore == nil {
		t.Fatalf("search of the appended messages: coverage %+v, hits %+v", resp.VectorCoverage, resp.Hits)
	}
}

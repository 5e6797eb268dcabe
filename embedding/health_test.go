package embedding_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
)

func TestHealth(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	cache := embedding.NewMemoryCache()
	s := newService(t, srv.URL, cache, nil)
	h := s.Health(t.Context())
	want := ragd.EmbeddingHealth{
		Provider: "ollama", Host: srv.URL, Model: "nomic-embed-text", Dims: 768,
		Space: "nomic-embed-text/768", DocumentPrefix: "search_document: ", QueryPrefix: "search_query: ",
		Version: "0.17.4", Available: true, ContextLength: ollamatest.DefaultContextLength,
	}
	if h != want {
		t.Fatalf("Health\n got %+v\nwant %+v", h, want)
	}
	if srv.Calls() != 1 || cache.Len() != 0 {
		t.Fatalf("probe: %d calls, %d cached; want one real call, not cached", srv.Calls(), cache.Len())
	}
	b, err := json.Marshal(api.FromEmbeddingHealth(h))
	if err != nil || !strings.Contains(string(b), `"available":true`) || strings.Contains(string(b), `"reason"`) {
		t.Fatalf("JSON %s, %v", b, err)
	}
}

func TestHealthReasons(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{})
	hung := ollamatest.NewServer(t, ollamatest.Options{})
	hung.SetFault(hung.Hang())
	wrongDims := ollamatest.NewServer(t, ollamatest.Options{})
	wrongDims.SetFault(ollamatest.WithDims(384))
	notOllama := httptest.NewServer(http.NotFoundHandler())
	defer notOllama.Close()
	down := ollamatest.ClosedURL(t)

	queueFull := ollamatest.NewServer(t, ollamatest.Options{})
	queueFull.SetFault(ollamatest.Respond(http.StatusServiceUnavailable, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`))

	// The hung server answers /api/version but not /api/embed: up, busy.
	tests := []struct {
		name, host, model, reason, version string
		timeout                            time.Duration
		busy                               bool
	}{
		{"down", down, "nomic-embed-text", "ollama not reachable at " + down, "", 0, false},
		{"not pulled", srv.URL, "nope", "model nope not pulled: run `ollama pull nope`", "0.17.4", 0, false},
		{"wrong dims", wrongDims.URL, "nomic-embed-text", "model returned 384 dims, index expects 768", "0.17.4", 0, false},
		{"hung", hung.URL, "nomic-embed-text", "timeout after 500ms", "0.17.4", 500 * time.Millisecond, true},
		{"queue full", queueFull.URL, "nomic-embed-text", "ollama is busy (HTTP 503): server busy, please try again. maximum pending requests exceeded", "0.17.4", 0, true},
		{"not ollama", notOllama.URL, "nomic-embed-text", "no ollama API at " + notOllama.URL + " (GET /api/version: HTTP 404)", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t, tt.host, nil, func(c *embedding.Config) {
				c.Model = tt.model
				if tt.timeout > 0 {
					c.QueryTimeout = tt.timeout
				}
			})
			h := s.Health(t.Context())
			if h.Available || h.Reason != tt.reason || h.Version != tt.version || h.Host != tt.host || h.Busy != tt.busy {
				t.Fatalf("Health = %+v, want reason %q version %q busy %v", h, tt.reason, tt.version, tt.busy)
			}
		})
	}
}

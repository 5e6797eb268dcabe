package daemon_test

import (
	"os"
	"strings"
	"testing"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
)

// hostedDims is the native vector length the fake gives the hosted model,
// so that the README's send_dimensions is what makes its dims fit.
const hostedDims = 1536

// TestREADME_EmbeddingServers parses every ```toml block of the README's
// configuration section as a configuration file (unknown keys refused,
// values validated), and runs each provider block against the fake, which
// speaks both APIs: its base_url pointed at the fake's /v1, the block's
// model served with the block's dims, an API key required where the block
// names its variable. Each must embed, as configured and nothing else.
func TestREADME_EmbeddingServers(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Configuration\n")
	if !ok {
		t.Fatalf("%s has no configuration section", readmePath)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := strings.Split(section, "```toml\n")[1:]
	providers := 0
	for i, blk := range blocks {
		text, _, ok := strings.Cut(blk, "```")
		if !ok {
			t.Fatalf("toml block %d: not closed", i+1)
		}
		cfg := daemon.DefaultConfig()
		if err := daemon.ParseConfig(strings.NewReader(text), &cfg); err != nil {
			t.Fatalf("toml block %d does not parse: %v\n%s", i+1, err, text)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("toml block %d is not valid: %v\n%s", i+1, err, text)
		}
		if !strings.Contains(text, "[embedding]") {
			continue
		}
		providers++
		e := cfg.Embedding
		if e.Provider != embedding.ProviderOpenAI || e.BaseURL == "" || e.ContextLength == 0 {
			t.Errorf("block %d: want provider openai with base_url and context_length: %+v", i+1, e)
		}
		served := e.Dims
		if e.SendDimensions {
			served = hostedDims
		}
		srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{e.Model: served}})
		if e.APIKeyEnv != "" {
			t.Setenv(e.APIKeyEnv, "sk-readme-test")
			srv.SetFault(ollamatest.RequireKey("sk-readme-test"))
		}
		e.BaseURL = srv.URL + "/v1"
		svc, err := embedding.New(e.Service(nil), nil)
		if err != nil {
			t.Fatalf("block %d: %v", i+1, err)
		}
		r := svc.EmbedDocuments(t.Context(), []string{"a text to embed"})
		if !r.Available || len(r.Vectors[0]) != cfg.Embedding.Dims {
			t.Errorf("block %d (%s): %+v", i+1, cfg.Embedding.Model, r)
		}
		if h := svc.Health(t.Context()); !h.Available || h.Provider != "openai" {
			t.Errorf("block %d health: %+v", i+1, h)
		}
	}
	if providers < 5 {
		t.Errorf("%d provider blocks, want one for each of llama.cpp, LM Studio, vLLM, Ollama /v1 and a hosted API", providers)
	}
}

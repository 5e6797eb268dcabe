package daemon_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math/rand"
	"net/http"
	"strings"
	"testing"

	ollama "github.com/ollama/ollama/api"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/search"
)

// vectors answers every embedding with a pseudo-random ±1 direction of
// the text's own, plus shared times one common direction: random pairs
// score cosine about shared²/(shared²+1) (0.86 at 2.5, as glove-100d's
// do; 0 at 0).
func vectors(shared float32) ollamatest.Fault {
	return func(w http.ResponseWriter, _ *http.Request, req ollamatest.Request) bool {
		resp := ollama.EmbedResponse{Model: req.Model, Embeddings: make([][]float32, len(req.Input))}
		for i, text := range req.Input {
			h := fnv.New64a()
			h.Write([]byte(text))
			r := rand.New(rand.NewSource(int64(h.Sum64())))
			v := make([]float32, daemontest.Dims)
			for j := range v {
				v[j] = float32(2*r.Intn(2)-1) / 8 // unit length over 64 dims
			}
			v[0] += shared
			resp.Embeddings[i] = v
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
		return true
	}
}

// TestSpaceProfile: the daemon measures its embedding space's flatness
// and says, in coverage, health and the first search's notice, when the
// weighted fusion in force is unreliable with it, and what to do; a space
// that tells texts apart gets no warning. Under the seed's raw cosine a
// space whose random pairs score 0.86 is flat; under the default, which
// reads cosine against those random pairs (ADR 0016), it is not: an
// unrelated chunk's vector half is about 0 there too.
func TestSpaceProfile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		shared float32
		cfg    search.Config
		flat   bool
	}{
		{"raw cosine, random pairs 0.86", 2.5, search.SeedConfig(), true},
		{"raw cosine, random pairs 0", 0, search.SeedConfig(), false},
		{"read against the random pairs, 0.86", 2.5, search.DefaultConfig(), false},
	} {
		flat := tc.flat
		srv := newServer(t)
		srv.SetFault(vectors(tc.shared))
		cfg := daemontest.Config(srv.URL)
		cfg.Search.Config = tc.cfg
		d := daemontest.Start(t, daemontest.NewWorld(t), cfg)
		repo := daemontest.Repo(t, daemontest.Corpus(40, 4, "v1")) // 200 chunks
		daemontest.AddProject(t, d.Client, repo.Dir, "demo")
		daemontest.Reindex(t, d.Client, "demo")

		cov := daemontest.Coverage(t, d.Client, "demo")
		h, err := d.Client.Health(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for what, p := range map[string]*api.SpaceProfile{"coverage": cov.Space, "health": h.Space} {
			if p == nil || p.Pairs < search.MinProfilePairs || p.Space != h.Database.Space {
				t.Fatalf("%s: %s space profile %+v", tc.name, what, p)
			}
			if p.WeightedUnreliable != flat || (p.Advice != "") != flat || tc.shared > 0 && p.RandomCosine < 0.8 || flat && !strings.Contains(p.Advice, "ragd calibrate") {
				t.Errorf("%s: %s space profile %+v", tc.name, what, p)
			}
		}
		first := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "alpha3 beta1"})
		second := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "alpha3 beta1"})
		if (first.Notice != "") != flat || second.Notice != "" {
			t.Errorf("%s: notices %q then %q, want the advice once when flat", tc.name, first.Notice, second.Notice)
		}
		rrf := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "alpha3", Fusion: string(search.FusionRRF)})
		if rrf.Notice != "" {
			t.Errorf("%s: rrf search noticed %q", tc.name, rrf.Notice)
		}
	}
}

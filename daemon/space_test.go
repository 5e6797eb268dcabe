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
// weighted default is unreliable with it, and what to do; a space that
// tells texts apart gets no warning.
func TestSpaceProfile(t *testing.T) {
	ctx := context.Background()
	for _, flat := range []bool{true, false} {
		srv := newServer(t)
		if flat {
			srv.SetFault(vectors(2.5))
		} else {
			srv.SetFault(vectors(0))
		}
		d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(srv.URL))
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
				t.Fatalf("flat %v: %s space profile %+v", flat, what, p)
			}
			if p.WeightedUnreliable != flat || (p.Advice != "") != flat || flat && (p.RandomCosine < 0.8 || !strings.Contains(p.Advice, "ragd calibrate")) {
				t.Errorf("flat %v: %s space profile %+v", flat, what, p)
			}
		}
		first := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "alpha3 beta1"})
		second := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "alpha3 beta1"})
		if (first.Notice != "") != flat || second.Notice != "" {
			t.Errorf("flat %v: notices %q then %q, want the advice once", flat, first.Notice, second.Notice)
		}
		rrf := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "alpha3", Fusion: string(search.FusionRRF)})
		if rrf.Notice != "" {
			t.Errorf("flat %v: rrf search noticed %q", flat, rrf.Notice)
		}
	}
}

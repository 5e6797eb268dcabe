package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/syncbuf"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
	"github.com/ragd/ragd/store"
)

// corpus is a project of every scope. The query vector is e1; each chunk's
// vector has the cosine similarity to it given in sims (the ETag chunk has no
// vector: only the lexical signal can find it).
type corpus struct {
	st      *store.Store
	project int64
	ids     map[string]string // content → chunk id
}

const (
	cFusion    = "Weighted fusion mixes the vector signal and the lexical signal."
	cThreshold = "The threshold drops weak hits below 0.2."
	cETag      = "ETag ETag ETag If-None-Match conditional requests."
	cADR       = "We choose reciprocal rank fusion as an option."
	cAsk       = "How do I tune the fusion weights?"
	cAnswer    = "Lower the vector weight and enable fill."
)

var sims = map[string]float64{cFusion: 0.9, cThreshold: 0.3, cADR: 0.6, cAsk: 0.7, cAnswer: 0.2}

func newCorpus(t *testing.T) corpus {
	t.Helper()
	st := sqlitedb.OpenDims(t, 4)
	project := testdb.AddProject(t, st, "p", "/repos/p").ID
	testdb.Replace(t, st, project, ragd.ScopeDocs, []ragd.ChunkInput{
		doc("docs/guide.md", 0, []string{"Guide", "Fusion"}, cFusion, unit(sims[cFusion])),
		doc("docs/guide.md", 1, []string{"Guide", "Threshold"}, cThreshold, unit(sims[cThreshold])),
		doc("docs/etag.md", 0, []string{"Caching"}, cETag, nil),
	})
	testdb.Replace(t, st, project, ragd.ScopeADR, []ragd.ChunkInput{
		doc("docs/adr/0001-fusion.md", 0, []string{"ADR 0001", "Decision"}, cADR, unit(sims[cADR])),
	})
	testdb.Replace(t, st, project, ragd.ScopeSession, []ragd.ChunkInput{
		message("s1", "e1", 0, cAsk, unit(sims[cAsk])),
		message("s1", "e2", 0, cAnswer, unit(sims[cAnswer])),
	})
	// Another project's chunks must never show up.
	other := testdb.AddProject(t, st, "other", "/repos/other").ID
	testdb.Replace(t, st, other, ragd.ScopeDocs, []ragd.ChunkInput{doc("docs/guide.md", 0, nil, cFusion+" elsewhere", unit(1))})
	return corpus{st: st, project: project, ids: chunkIDs(t, st, project)}
}

var e1 = []float32{1, 0, 0, 0}

func (c corpus) search(t *testing.T, s *Searcher, req Request) *ragd.SearchResult {
	t.Helper()
	if req.ProjectID == 0 {
		req.ProjectID = c.project
	}
	if req.Limit == 0 {
		req.Limit = DefaultLimit
	}
	resp, err := s.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("search %q: %v", req.Query, err)
	}
	return resp
}

func contents(resp *ragd.SearchResult) []string {
	var out []string
	for _, h := range resp.Hits {
		out = append(out, h.Content)
	}
	return out
}

func TestSearch_Hybrid(t *testing.T) {
	c := newCorpus(t)
	emb := upEmbedder(e1)
	s := searcher(c.st, emb)
	s.Config = SeedConfig() // raw cosine and s/(s+1): the arithmetic below
	resp := c.search(t, s, Request{Query: `How are the "fusion" weights tuned? -nothing`})

	if emb.texts[0] != "How are the fusion weights tuned?" {
		t.Errorf("embedded %q, want the positive words without syntax", emb.texts[0])
	}
	if !resp.VectorAvailable || resp.Degraded || resp.Reason != "" || resp.SearchID == nil {
		t.Fatalf("answer flags: %+v", resp)
	}
	// The vector signal lists every chunk with a vector; "fusion" and
	// "weights" (stemmed) match all but cThreshold and cETag. In a corpus
	// this small both words are in most chunks, so bm25 gives them almost
	// nothing except "weights" in cAsk. cThreshold (0.6·0.3) and cAnswer
	// (0.6·0.2 + ε) fall under the threshold.
	want := []string{cAsk, cFusion, cADR}
	if got := contents(resp); !slices.Equal(got, want) {
		t.Fatalf("hits:\n%q\nwant\n%q", got, want)
	}
	for i, h := range resp.Hits {
		if h.Rank != i+1 {
			t.Errorf("%s: rank %d at position %d", h.Content, h.Rank, i+1)
		}
		if h.VectorScore == nil || !approx(*h.VectorScore, sims[h.Content]) {
			t.Errorf("%s: vector score %s, want %v", h.Content, show(h.VectorScore), sims[h.Content])
		}
		if h.LexicalScore == nil {
			t.Errorf("%s: lexical score %s", h.Content, show(h.LexicalScore))
		}
		score := 0.6 * *h.VectorScore
		if h.LexicalScore != nil {
			score += 0.4 * *h.LexicalScore
		}
		if !near(h.Score, score) || h.Score < DefaultThreshold {
			t.Errorf("%s: score %v, want 0.6·vector + 0.4·lexical = %v", h.Content, h.Score, score)
		}
	}
	if got := resp.Hits[0].Origin; got.Kind != ragd.OriginSession || got.SessionID != "s1" || got.EventID != "e1" || resp.Hits[0].Scope != ragd.ScopeSession {
		t.Errorf("session origin %+v", got)
	}
	if got := resp.Hits[1].Origin; got.Kind != ragd.OriginFile || got.SourcePath != "docs/guide.md" ||
		!slices.Equal(got.HeadingPath, []string{"Guide", "Fusion"}) || got.Title != "Guide" || resp.Hits[1].Scope != ragd.ScopeDocs {
		t.Errorf("file origin %+v", got)
	}
	if resp.Hits[2].Scope != ragd.ScopeADR || resp.Hits[2].Origin.SourcePath != "docs/adr/0001-fusion.md" {
		t.Errorf("adr hit %+v", resp.Hits[2])
	}
	if resp.Fusion != string(FusionWeighted) || resp.Normalization != string(NormSaturate) || resp.Fill ||
		*resp.Weights.Vector != 0.6 || *resp.Weights.Lexical != 0.4 || *resp.Weights.Threshold != 0.2 || resp.LatencyMs <= 0 {
		t.Errorf("settings in the answer: %+v %+v", resp, resp.Weights)
	}
	if resp.Explain != nil || resp.Hits[0].Explain != nil {
		t.Error("explain without asking")
	}

	// The limit cuts after ordering.
	resp = c.search(t, s, Request{Query: `How are the "fusion" weights tuned? -nothing`, Limit: 2})
	if got := contents(resp); !slices.Equal(got, []string{cAsk, cFusion}) {
		t.Errorf("limit 2: %q", got)
	}
}

func TestSearch_JSON(t *testing.T) {
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	resp := c.search(t, s, Request{Query: "ETag threshold", Explain: true})
	// The answer as the socket sends it (the daemon converts it at its edge).
	b, err := json.Marshal(api.FromSearchResult(resp))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SearchID *float64 `json:"searchId"`
		Hits     []map[string]any
		Weights  map[string]any
		Explain  map[string]any
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	byContent := map[string]map[string]any{}
	for _, h := range doc.Hits {
		byContent[h["content"].(string)] = h
	}
	// ETag has no vector: null, not 0. Threshold matches "threshold".
	etag, thr := byContent[cETag], byContent[cThreshold]
	if etag == nil || thr == nil {
		t.Fatalf("hits %s", b)
	}
	if v, ok := etag["vectorScore"]; !ok || v != nil {
		t.Errorf("ETag vectorScore = %v (present %v), want null", v, ok)
	}
	if _, ok := etag["lexicalScore"].(float64); !ok {
		t.Errorf("ETag lexicalScore = %v", etag["lexicalScore"])
	}
	if strings.Contains(string(b), `"vectorScore":0,`) || strings.Contains(string(b), `"lexicalScore":0,`) {
		t.Errorf("an absent score printed as 0: %s", b)
	}
	origin := etag["origin"].(map[string]any)
	if len(origin) != 5 || origin["kind"] != "file" || origin["sourcePath"] != "docs/etag.md" || origin["commit"] != "c0ffee" {
		t.Errorf("file origin %v", origin)
	}
	if _, ok := origin["sessionId"]; ok {
		t.Errorf("file origin carries session fields: %v", origin)
	}
	ex := etag["explain"].(map[string]any)
	if ex["vectorRank"] != nil || ex["distance"] != nil || ex["lexicalRank"] == nil || ex["lexical"].(float64) <= 0 {
		t.Errorf("ETag explain %v", ex)
	}
	for _, key := range []string{"match", "vector", "lexical"} {
		if _, ok := doc.Explain[key]; !ok {
			t.Errorf("explain lacks %s: %v", key, doc.Explain)
		}
	}
	if doc.SearchID == nil || doc.Weights["vector"] != 0.6 {
		t.Errorf("answer %s", b)
	}

	// A session origin has exactly its own fields.
	resp = c.search(t, s, Request{Query: "tune", Scopes: []string{ragd.ScopeSession}, Limit: 1})
	b, _ = json.Marshal(resp.Hits[0].Origin)
	if string(b) != `{"kind":"session","sessionId":"s1","eventId":"e1","title":"Session s1"}` {
		t.Errorf("session origin %s", b)
	}
	// Nothing found: hits is [], not null.
	resp = c.search(t, searcher(c.st, nil), Request{Query: "zebra"})
	if b, _ := json.Marshal(api.FromSearchResult(resp)); !strings.Contains(string(b), `"hits":[]`) {
		t.Errorf("empty answer %s", b)
	}
}

func TestSearch_RRFAnswer(t *testing.T) {
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	resp := c.search(t, s, Request{Query: "fusion", Fusion: FusionRRF, Limit: MaxLimit})
	b, _ := json.Marshal(api.FromSearchResult(resp))
	if !strings.Contains(string(b), `"weights":{"vector":null,"lexical":null,"threshold":null}`) ||
		!strings.Contains(string(b), `"fusion":"rrf"`) || !strings.Contains(string(b), `"rrfK":60`) {
		t.Errorf("rrf answer %s", b)
	}
	// No threshold: every candidate of the union comes back (5 vectors,
	// 3 lexical matches all among them).
	if len(resp.Hits) != 5 || !near(resp.Hits[0].Score, 1.0/61+1.0/61) || resp.Hits[0].Content != cFusion {
		t.Errorf("rrf hits %+v", resp.Hits)
	}
}

func TestSearch_Degraded(t *testing.T) {
	c := newCorpus(t)
	for _, tc := range []struct {
		name   string
		emb    Embedder
		reason string
	}{
		{"provider down", downEmbedder("ollama: dial tcp 127.0.0.1:11434: connection refused"), "connection refused"},
		{"no provider", nil, "no embedding provider"},
		{"wrong dimensions", upEmbedder([]float32{1, 0, 0}), "3 dimensions"},
		{"NaN", upEmbedder([]float32{float32(math.NaN()), 0, 0, 0}), "NaN"},
		{"zero vector", upEmbedder([]float32{0, 0, 0, 0}), "all zeros"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := searcher(c.st, tc.emb)
			resp := c.search(t, s, Request{Query: "ETag conditional", Explain: true})
			if resp.VectorAvailable || !resp.Degraded || !strings.Contains(resp.Reason, tc.reason) {
				t.Fatalf("flags: available %v degraded %v reason %q", resp.VectorAvailable, resp.Degraded, resp.Reason)
			}
			// The lexical signal answers alone: the only match is the best
			// it found, and scores 1.
			if len(resp.Hits) != 1 || resp.Hits[0].Content != cETag {
				t.Fatalf("hits %q", contents(resp))
			}
			h := resp.Hits[0]
			if h.VectorScore != nil || h.LexicalScore == nil || !near(h.Score, *h.LexicalScore) || !near(h.Score, 1) {
				t.Errorf("keyword-only hit: score %v vector %s lexical %s", h.Score, show(h.VectorScore), show(h.LexicalScore))
			}
			if len(resp.Explain.Vector) != 0 || resp.SearchID == nil {
				t.Errorf("vector candidates %v, search id %v", resp.Explain.Vector, resp.SearchID)
			}
			rec, err := c.st.LoadSearch(context.Background(), *resp.SearchID)
			if err != nil || rec.VectorAvailable || !rec.Degraded {
				t.Errorf("telemetry row %+v %v", rec, err)
			}
		})
	}
	// In a hybrid search the chunk is still keyword-only and still passes.
	resp := c.search(t, searcher(c.st, upEmbedder(e1)), Request{Query: "ETag conditional"})
	i := slices.IndexFunc(resp.Hits, func(h ragd.Hit) bool { return h.Content == cETag })
	if i < 0 || resp.Hits[i].VectorScore != nil || resp.Hits[i].Score < DefaultThreshold {
		t.Errorf("hybrid: %q", contents(resp))
	}
}

// With the vector half missing, the lexical half alone answers what it
// finds, however common the word (issue 15 #6, docs/adr/0007): the answer's
// weights and the telemetry say the fusion ran on it alone.
func TestSearch_DegradedAnswersWhatLexicalFinds(t *testing.T) {
	st := sqlitedb.OpenDims(t, 4)
	project := testdb.AddProject(t, st, "p", "/repos/p").ID
	r := rand.New(rand.NewSource(3))
	var in []ragd.ChunkInput
	const chunks = 30
	for i := range chunks {
		// "widgets" in every chunk: its idf is at FTS5's floor.
		in = append(in, doc(fmt.Sprintf("docs/w%02d.md", i), 0, []string{"Widgets"},
			fmt.Sprintf("The widgets of part %d are blue.", i), randomUnit(r, 4)))
	}
	testdb.Replace(t, st, project, ragd.ScopeDocs, in)
	s := searcher(st, downEmbedder("connection refused"))
	ctx := context.Background()

	resp, err := s.Search(ctx, Request{ProjectID: project, Query: "widgets", Limit: DefaultLimit})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Degraded || len(resp.Hits) != DefaultLimit {
		t.Fatalf("degraded %v, %d hits, want %d: %q", resp.Degraded, len(resp.Hits), DefaultLimit, contents(resp))
	}
	w := resp.Weights
	if w.Vector == nil || *w.Vector != 0 || w.Lexical == nil || *w.Lexical != 1 || w.Threshold == nil || *w.Threshold != DefaultThreshold ||
		resp.Normalization != string(NormMax) {
		t.Errorf("applied weights v=%s l=%s t=%s %s, want 0, 1, %v, max", show(w.Vector), show(w.Lexical), show(w.Threshold),
			resp.Normalization, DefaultThreshold)
	}
	for _, h := range resp.Hits {
		if h.LexicalScore == nil || !near(h.Score, *h.LexicalScore) || h.Score < DefaultThreshold || h.Score > 1 {
			t.Errorf("hit %s: score %v lexical %s", h.ChunkID, h.Score, show(h.LexicalScore))
		}
	}
	rec, err := st.LoadSearch(ctx, *resp.SearchID)
	if err != nil {
		t.Fatal(err)
	}
	var frozen Weights
	if err := json.Unmarshal(rec.Weights, &frozen); err != nil {
		t.Fatal(err)
	}
	if frozen.Vector != 0 || frozen.Lexical != 1 || frozen.Threshold != DefaultThreshold || frozen.Normalization != NormMax || frozen.Fusion != FusionWeighted {
		t.Errorf("frozen weights %s: want what the degraded fusion applied", rec.Weights)
	}

	// With the vector half present, the configured fusion applies as it is.
	up := searcher(st, upEmbedder(e1))
	resp, err = up.Search(ctx, Request{ProjectID: project, Query: "widgets", Limit: DefaultLimit})
	if err != nil {
		t.Fatal(err)
	}
	if *resp.Weights.Vector != DefaultVectorWeight || *resp.Weights.Lexical != DefaultLexicalWeight || resp.Normalization != string(NormSpace) {
		t.Errorf("hybrid weights v=%s l=%s %s", show(resp.Weights.Vector), show(resp.Weights.Lexical), resp.Normalization)
	}

	// RRF alone keeps its meaning: lexical ranks, no weights, no threshold.
	resp, err = s.Search(ctx, Request{ProjectID: project, Query: "widgets", Limit: DefaultLimit, Fusion: FusionRRF})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Hits) != DefaultLimit || resp.Weights.Vector != nil || resp.Weights.Threshold != nil || !near(resp.Hits[0].Score, 1.0/(DefaultRRFK+1)) {
		t.Errorf("rrf degraded: %d hits, weights %+v, top score %v", len(resp.Hits), resp.Weights, resp.Hits[0].Score)
	}
}

// The limit is a promise: each signal contributes at least as many
// candidates as hits were asked for, and the row freezes the depth used
// (issue 15 #9).
func TestSearch_LimitAboveCandidateDepth(t *testing.T) {
	st := sqlitedb.OpenDims(t, 4)
	project := testdb.AddProject(t, st, "p", "/repos/p").ID
	r := rand.New(rand.NewSource(4))
	var in []ragd.ChunkInput
	const chunks = 40
	for i := range chunks {
		in = append(in, doc(fmt.Sprintf("docs/g%02d.md", i), 0, []string{"Gadgets"},
			fmt.Sprintf("Gadget number %d, a gadget among gadgets.", i), randomUnit(r, 4)))
	}
	testdb.Replace(t, st, project, ragd.ScopeDocs, in)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		emb   Embedder
		limit int
		depth int
	}{
		{"lexical alone, limit 20", downEmbedder("down"), MaxLimit, MaxLimit},
		{"hybrid rrf, limit 20", upEmbedder(e1), MaxLimit, MaxLimit},
		{"lexical alone, limit 5", downEmbedder("down"), 5, seedCandidates},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := searcher(st, tc.emb)
			s.Config.Fusion = FusionRRF          // no threshold: the depth alone bounds the hits
			s.Config.Candidates = seedCandidates // under the largest limit
			resp, err := s.Search(ctx, Request{ProjectID: project, Query: "gadget", Limit: tc.limit, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Hits) != tc.limit || len(resp.Explain.Lexical) != tc.depth {
				t.Fatalf("%d hits from %d lexical candidates, want %d from %d", len(resp.Hits), len(resp.Explain.Lexical), tc.limit, tc.depth)
			}
			if n := len(resp.Explain.Vector); resp.VectorAvailable && n != tc.depth {
				t.Errorf("%d vector candidates, want %d", n, tc.depth)
			}
			rec, err := st.LoadSearch(ctx, *resp.SearchID)
			if err != nil {
				t.Fatal(err)
			}
			var frozen Weights
			if err := json.Unmarshal(rec.Weights, &frozen); err != nil || frozen.Candidates != tc.depth {
				t.Errorf("frozen weights %s (%v): want candidates %d, the depth used", rec.Weights, err, tc.depth)
			}
		})
	}
}

func TestSearch_Scopes(t *testing.T) {
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	// No threshold: every candidate of the asked scopes comes back.
	cfg := withConfig(func(c *Config) { c.Threshold = 0 })
	for _, tc := range []struct {
		scopes []string
		want   []string
	}{
		{[]string{ragd.ScopeADR}, []string{cADR}},
		{[]string{ragd.ScopeSession}, []string{cAsk, cAnswer}},
		{[]string{ragd.ScopeDocs, ragd.ScopeDocs}, []string{cFusion, cThreshold}},
		{[]string{ragd.ScopeSession, ragd.ScopeADR}, []string{cAsk, cADR, cAnswer}},
	} {
		resp := c.search(t, s, Request{Query: "fusion weights", Scopes: tc.scopes, Config: &cfg})
		if got := contents(resp); !slices.Equal(got, tc.want) {
			t.Errorf("scopes %v: %q, want %q", tc.scopes, got, tc.want)
		}
		rec, _ := c.st.LoadSearch(context.Background(), *resp.SearchID)
		if len(rec.Scopes) == 0 || len(rec.Scopes) > len(tc.scopes) {
			t.Errorf("scopes recorded %v", rec.Scopes)
		}
	}
}

func TestSearch_TiesAreDeterministic(t *testing.T) {
	st := sqlitedb.OpenDims(t, 4)
	project := testdb.AddProject(t, st, "ties", "/repos/ties").ID
	const text = "identical tie text"
	v := unit(0.8)
	// Written in an order that is neither the citation order nor the ids'.
	testdb.Replace(t, st, project, ragd.ScopeSession, []ragd.ChunkInput{
		message("s1", "e2", 0, text, v), message("s1", "e1", 0, text, v),
	})
	docs := []ragd.ChunkInput{
		doc("docs/b.md", 0, nil, text, v), doc("docs/a.md", 1, nil, text, v), doc("docs/a.md", 0, nil, text, v),
	}
	// bm25 counts a row's whole length, titles included: the same title as
	// the session's keeps every row the same length, so the scores tie.
	for i := range docs {
		docs[i].Title = "Session s1"
	}
	testdb.Replace(t, st, project, ragd.ScopeDocs, docs)
	s := searcher(st, upEmbedder(e1))
	for _, fusion := range []Fusion{FusionWeighted, FusionRRF} {
		resp, err := s.Search(context.Background(), Request{ProjectID: project, Query: "tie", Limit: MaxLimit, Fusion: fusion})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range resp.Hits {
			got = append(got, h.Origin.SourcePath+h.Origin.SessionID+"/"+h.Origin.EventID+"#"+string(rune('0'+len(got))))
		}
		want := []string{"docs/a.md/#0", "docs/a.md/#1", "docs/b.md/#2", "s1/e1#3", "s1/e2#4"}
		if fusion == FusionWeighted && !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", fusion, got, want)
		}
		if fusion == FusionRRF {
			// RRF ranks differ by list position, so only check it is stable.
			again, _ := s.Search(context.Background(), Request{ProjectID: project, Query: "tie", Limit: MaxLimit, Fusion: fusion})
			for i := range resp.Hits {
				if resp.Hits[i].ChunkID != again.Hits[i].ChunkID {
					t.Fatalf("rrf order changed between identical searches")
				}
			}
		}
		for _, h := range resp.Hits[1:] {
			if fusion == FusionWeighted && h.Score != resp.Hits[0].Score {
				t.Fatalf("scores differ: %v vs %v", h.Score, resp.Hits[0].Score)
			}
		}
	}
}

func TestSearch_Fill(t *testing.T) {
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	// Two candidates per signal (a limit of 2 keeps the depth there): in
	// docs and adr the KNN lists cFusion and cADR only, the lexical list
	// cThreshold. RRF ranks cFusion and cThreshold (rank 1 each) first.
	cfg := withConfig(func(c *Config) { c.Candidates = 2; c.Fusion = FusionRRF })
	req := Request{Query: "threshold", Scopes: []string{ragd.ScopeDocs, ragd.ScopeADR}, Limit: 2, Config: &cfg, Explain: true}
	without := c.search(t, s, req)
	cfg.Fill = true
	with := c.search(t, s, req)

	find := func(resp *ragd.SearchResult, content string) ragd.Hit {
		for _, h := range resp.Hits {
			if h.Content == content {
				return h
			}
		}
		t.Fatalf("%q not among %q", content, contents(resp))
		return ragd.Hit{}
	}
	// cThreshold is lexical-only: fill scores its stored vector.
	if h := find(without, cThreshold); h.VectorScore != nil {
		t.Errorf("no fill: vector score %v", *h.VectorScore)
	}
	h := find(with, cThreshold)
	if h.VectorScore == nil || !approx(*h.VectorScore, 0.3) || h.Explain.VectorRank != nil || h.Explain.Distance == nil {
		t.Errorf("fill: vector %s explain %+v", show(h.VectorScore), h.Explain)
	}
	// cFusion is vector-only and has no query term: still null with fill.
	if h := find(with, cFusion); h.LexicalScore != nil || h.Explain.Lexical != nil {
		t.Errorf("fill invented a lexical score: %v", *h.LexicalScore)
	}
	if !with.Fill || without.Fill {
		t.Error("fill flag not reported")
	}
	rec, _ := c.st.LoadSearch(context.Background(), *with.SearchID)
	var w Weights
	if err := json.Unmarshal(rec.Weights, &w); err != nil || !w.Fill || w.Candidates != 2 {
		t.Errorf("frozen weights %s", rec.Weights)
	}
}

func TestSearch_SnapshotDuringReindex(t *testing.T) {
	for _, fill := range []bool{false, true} {
		st := sqlitedb.OpenDims(t, 4)
		project := testdb.AddProject(t, st, "p", "/repos/p").ID
		testdb.Replace(t, st, project, ragd.ScopeDocs, []ragd.ChunkInput{doc("docs/a.md", 0, nil, "snapshot old words", unit(0.9))})
		s := searcher(st, upEmbedder(e1))
		s.Config.Fill = fill
		reindexed := 0
		// Between the vector query and the lexical one, a reindex replaces
		// the scope and commits.
		s.betweenQueries = func() {
			testdb.Replace(t, st, project, ragd.ScopeDocs, []ragd.ChunkInput{
				doc("docs/a.md", 0, nil, "snapshot new words", unit(0.95)),
				doc("docs/b.md", 0, nil, "snapshot more words", unit(0.99)),
			})
			reindexed++
		}
		resp, err := s.Search(context.Background(), Request{ProjectID: project, Query: "snapshot", Limit: DefaultLimit, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if reindexed != 1 {
			t.Fatal("the reindex hook did not run")
		}
		if got := contents(resp); len(got) != 1 || got[0] != "snapshot old words" {
			t.Fatalf("fill %v: a search begun before the reindex saw %q", fill, got)
		}
		h := resp.Hits[0]
		if h.VectorScore == nil || h.LexicalScore == nil || len(resp.Explain.Vector) != 1 || len(resp.Explain.Lexical) != 1 ||
			resp.Explain.Vector[0].ChunkID != resp.Explain.Lexical[0].ChunkID {
			t.Fatalf("fill %v: the two signals read different states: %+v", fill, resp.Explain)
		}
		s.betweenQueries = nil
		resp, err = s.Search(context.Background(), Request{ProjectID: project, Query: "snapshot", Limit: DefaultLimit})
		if err != nil {
			t.Fatal(err)
		}
		if got := contents(resp); !slices.Equal(got, []string{"snapshot more words", "snapshot new words"}) {
			t.Fatalf("the next search sees %q", got)
		}
	}
}

func TestSearch_BadInput(t *testing.T) {
	c := newCorpus(t)
	emb := upEmbedder(e1)
	s := searcher(c.st, emb)
	bad := Config{}
	ok := Request{ProjectID: c.project, Query: "fusion", Limit: DefaultLimit}
	for _, tc := range []struct {
		name string
		mut  func(*Request)
	}{
		{"empty query", func(r *Request) { r.Query = "" }},
		{"white space query", func(r *Request) { r.Query = " \t\n " }},
		{"1001 characters", func(r *Request) { r.Query = strings.Repeat("x", 1001) }},
		{"NUL byte", func(r *Request) { r.Query = "fu\x00sion" }},
		{"invalid UTF-8", func(r *Request) { r.Query = "fusion \xff" }},
		{"limit 0", func(r *Request) { r.Limit = 0 }},
		{"limit 21", func(r *Request) { r.Limit = 21 }},
		{"limit -1", func(r *Request) { r.Limit = -1 }},
		{"unknown scope", func(r *Request) { r.Scopes = []string{"docs", "code"} }},
		{"unknown fusion", func(r *Request) { r.Fusion = "sum" }},
		{"invalid config", func(r *Request) { r.Config = &bad }},
		{"unknown actor", func(r *Request) { r.Actor = "robot" }},
		{"unknown purpose", func(r *Request) { r.Purpose = "test" }},
		{"no project", func(r *Request) { r.ProjectID = 0 }},
		{"bad session id", func(r *Request) { r.SessionID = "\xff" }},
	} {
		r := ok
		tc.mut(&r)
		resp, err := s.Search(context.Background(), r)
		if !errors.Is(err, ragd.ErrInvalid) || resp != nil {
			t.Errorf("%s: resp %v err %v, want ragd.ErrInvalid", tc.name, resp, err)
		}
	}
	if len(emb.texts) != 0 {
		t.Errorf("bad input reached the embedder: %q", emb.texts)
	}
	w, _ := c.st.SearchTelemetry(context.Background(), ragd.TelemetryFilter{Until: time.Now().Add(time.Hour)})
	if len(w.Searches) != 0 {
		t.Errorf("bad input left %d telemetry rows", len(w.Searches))
	}

	// Valid but nothing to search for: an empty answer, recorded, with no
	// provider call and no FTS5 error.
	for _, q := range []string{`*** -fusion`, `""`, "OR", "()", "🚀"} {
		resp, err := s.Search(context.Background(), Request{ProjectID: c.project, Query: q, Limit: DefaultLimit})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		if len(resp.Hits) != 0 || resp.SearchID == nil || !strings.Contains(resp.Reason, "no searchable words") ||
			!resp.VectorAvailable || resp.Degraded {
			t.Errorf("%q: %+v", q, resp)
		}
	}
	if len(emb.texts) != 0 {
		t.Errorf("an empty query reached the embedder: %q", emb.texts)
	}
	// A broken server-side configuration is not the client's fault.
	s.Config = Config{}
	if _, err := s.Search(context.Background(), ok); err == nil || errors.Is(err, ragd.ErrInvalid) {
		t.Errorf("invalid searcher config: %v", err)
	}
}

func TestSearch_Telemetry(t *testing.T) {
	c := newCorpus(t)
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := searcher(c.st, upEmbedder(e1))
	s.Now = func() time.Time { return at }
	resp := c.search(t, s, Request{Query: " fusion weights ", Scopes: []string{ragd.ScopeSession, ragd.ScopeDocs},
		Actor: ActorAgent, SessionID: "s1", Purpose: PurposeEval})
	// Changing the configuration afterwards changes nothing in the row.
	s.Config.VectorWeight, s.Config.Threshold = 0.1, 0.5

	rec, err := c.st.LoadSearch(context.Background(), *resp.SearchID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Query != "fusion weights" || rec.Actor != "agent" || rec.SessionID != "s1" || rec.Purpose != "eval" ||
		!rec.CreatedAt.Equal(at) || rec.LatencyMs != resp.LatencyMs || rec.Degraded || !rec.VectorAvailable ||
		!slices.Equal(rec.Scopes, []string{ragd.ScopeDocs, ragd.ScopeSession}) || rec.ProjectID != c.project {
		t.Errorf("row %+v", rec)
	}
	const frozen = `{"vector":0.6,"lexical":0.4,"threshold":0.2,"fusion":"weighted","normalization":"space","rrfK":60,"candidates":50,"fill":true}`
	if string(rec.Weights) != frozen {
		t.Errorf("weights %s\nwant %s", rec.Weights, frozen)
	}
	if len(rec.Hits) != len(resp.Hits) {
		t.Fatalf("%d hits recorded, %d returned", len(rec.Hits), len(resp.Hits))
	}
	for i, h := range rec.Hits {
		r := resp.Hits[i]
		if h.ChunkID != r.ChunkID || h.Rank != i+1 || h.Score != r.Score || !samePtr(h.VectorScore, r.VectorScore) || !samePtr(h.LexicalScore, r.LexicalScore) {
			t.Errorf("hit %d: recorded %+v, returned %+v", i+1, h, r)
		}
	}

	// Without a session: NULL, and person by default.
	resp = c.search(t, s, Request{Query: "fusion"})
	rec, _ = c.st.LoadSearch(context.Background(), *resp.SearchID)
	if rec.SessionID != "" || rec.Actor != "person" || rec.Purpose != "search" || !strings.Contains(string(rec.Weights), `"vector":0.1`) {
		t.Errorf("row %+v", rec)
	}
}

func TestSearch_TelemetryFailure(t *testing.T) {
	c := newCorpus(t)
	var logs syncbuf.Buffer
	s := searcher(c.st, upEmbedder(e1))
	s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s.Recorder = failingRecorder{errors.New("disk I/O error")}

	// The caller going away does not stop the attempt either.
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := s.Search(ctx, Request{ProjectID: c.project, Query: "ETag requests", Limit: DefaultLimit})
	cancel()
	if err != nil {
		t.Fatalf("a telemetry failure failed the search: %v", err)
	}
	if resp.SearchID != nil || len(resp.Hits) == 0 {
		t.Fatalf("answer %+v", resp)
	}
	if b, _ := json.Marshal(api.FromSearchResult(resp)); !strings.Contains(string(b), `"searchId":null`) {
		t.Errorf("answer %s", b)
	}
	log := logs.String()
	for _, want := range []string{"level=ERROR", "disk I/O error", `query="ETag requests"`, "searchId null"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestSearch_Concurrent(t *testing.T) {
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	queries := []string{"fusion", "ETag", "threshold weights", `"vector signal"`, "tune -fill"}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 6 {
		wg.Go(func() {
			for i := range 8 {
				resp, err := s.Search(context.Background(), Request{ProjectID: c.project, Query: queries[(g+i)%len(queries)], Limit: DefaultLimit})
				if err != nil {
					errs <- err
					return
				}
				if resp.SearchID == nil {
					errs <- errors.New("no search id")
					return
				}
			}
		})
	}
	// A reindex runs alongside: every search sees the session scope whole.
	wg.Go(func() {
		r := rand.New(rand.NewSource(1))
		for i := range 5 {
			in := []ragd.ChunkInput{message("s1", "e1", 0, cAsk, unit(sims[cAsk])), message("s1", "e9", i, "fusion churn", randomUnit(r, 4))}
			if _, err := c.st.ReplaceScope(context.Background(), c.project, ragd.ScopeSession, in); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Each answer counts the chunks it searched and those with a vector: the
// ETag chunk has none.
func TestSearch_VectorCoverage(t *testing.T) {
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	for _, tc := range []struct {
		scopes          []string
		chunks, vectors int
	}{
		{nil, 6, 5},
		{[]string{ragd.ScopeDocs}, 3, 2},
		{[]string{ragd.ScopeSession, ragd.ScopeADR}, 3, 3},
	} {
		resp := c.search(t, s, Request{Query: "fusion", Scopes: tc.scopes})
		want := ragd.VectorCoverage{Chunks: tc.chunks, Vectors: tc.vectors, Share: float64(tc.vectors) / float64(tc.chunks)}
		if resp.VectorCoverage == nil || *resp.VectorCoverage != want {
			t.Errorf("scopes %v: coverage %+v, want %+v", tc.scopes, resp.VectorCoverage, want)
		}
	}
	// Nothing to search for: nothing searched, no coverage.
	if resp := c.search(t, s, Request{Query: "-fusion"}); resp.VectorCoverage != nil {
		t.Errorf("a query with no positive term reports coverage %+v", resp.VectorCoverage)
	}
	// A project without chunks is fully covered, not divided by zero.
	empty := testdb.AddProject(t, c.st, "empty", "/repos/empty").ID
	if resp := c.search(t, s, Request{ProjectID: empty, Query: "fusion"}); resp.VectorCoverage == nil || resp.VectorCoverage.Share != 1 {
		t.Errorf("empty project: coverage %+v, want share 1", resp.VectorCoverage)
	}
}

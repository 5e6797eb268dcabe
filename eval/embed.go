package eval

import (
	"context"
	"fmt"
	"time"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/search"
)

// QueryVectors is a search.Embedder answering from query vectors computed
// in advance, in batches: an evaluation embeds hundreds of queries, and one
// request per query would spend most of its time on round trips.
type QueryVectors struct {
	vecs   map[string][]float32
	reason string
	Stats  EmbedStats
}

// EmbedStats is what embedding the queries did.
type EmbedStats struct {
	// Texts is the number of distinct texts to embed; Embedded came from
	// the provider, Cached from the cache, Failed got no vector.
	Texts    int `json:"texts"`
	Embedded int `json:"embedded"`
	Cached   int `json:"cached"`
	Failed   int `json:"failed"`
	Calls    int `json:"calls"`
	// Available is false when some text got no vector; Reason says why.
	Available bool          `json:"available"`
	Reason    string        `json:"reason,omitempty"`
	Elapsed   time.Duration `json:"-"`
}

var _ search.Embedder = (*QueryVectors)(nil)

// EmbedQueries embeds what a search embeds for each query, the parsed
// query's semantic text, with cfg's model and query prefix (the model's
// known convention unless cfg.QueryPrefix is set), in batches of
// cfg.BatchSize through cache (nil for none). Like a search, it never
// fails for the provider's state: queries without a vector are searched
// lexical-only, and Stats says why.
func EmbedQueries(ctx context.Context, cfg embedding.Config, cache embedding.Cache, queries []*Query) (*QueryVectors, error) {
	_, prefix := embedding.PrefixesFor(cfg.Model)
	if cfg.QueryPrefix != nil {
		prefix = *cfg.QueryPrefix
	}
	cfg.DocumentPrefix = &prefix // queries go through the document path: batched
	svc, err := embedding.New(cfg, cache)
	if err != nil {
		return nil, fmt.Errorf("embed queries: %w", err)
	}
	seen := map[string]bool{}
	var texts []string
	for _, q := range queries {
		pq, err := search.ParseQuery(q.Text)
		if err != nil || pq.Empty() || seen[pq.Semantic] {
			continue
		}
		seen[pq.Semantic] = true
		texts = append(texts, pq.Semantic)
	}
	start := time.Now()
	res := svc.EmbedDocuments(ctx, texts)
	qv := &QueryVectors{vecs: make(map[string][]float32, len(texts)), reason: res.Reason}
	qv.Stats = EmbedStats{Texts: len(texts), Embedded: res.Embedded, Cached: res.Cached, Failed: res.Failed,
		Calls: res.Calls, Available: res.Available, Reason: res.Reason, Elapsed: time.Since(start)}
	for i, t := range texts {
		if res.Vectors[i] != nil {
			qv.vecs[t] = res.Vectors[i]
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed queries: %w", err)
	}
	return qv, nil
}

// EmbedQuery returns the vector computed for text.
func (qv *QueryVectors) EmbedQuery(ctx context.Context, text string) ([]float32, bool, string) {
	if v, ok := qv.vecs[text]; ok {
		return v, true, ""
	}
	if qv.reason != "" {
		return nil, false, qv.reason
	}
	return nil, false, "the query was not embedded in advance"
}

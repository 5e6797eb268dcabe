package eval

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
)

// Retrieval is one judged query's candidates, retrieved once and replayed
// under every mode.
type Retrieval struct {
	Query *Query
	R     *search.Retrieved
	judge *judge
}

// RetrieveOptions configure Retrieve.
type RetrieveOptions struct {
	ProjectID int64
	// Depth is the candidates per signal retrieved: the deepest list any
	// replay reads.
	Depth int
	// Workers run queries in parallel. Optional: GOMAXPROCS.
	Workers int
	// Progress, if not nil, is called after each query (from any worker).
	Progress func(done, total int)
}

// Retrieve fetches the candidates of every query with s.Candidates, once,
// at opt.Depth and with fill, and prepares their judgment. It records
// nothing in telemetry. Chunk contents are dropped after the judgment is
// prepared, to keep thousands of queries in memory.
func Retrieve(ctx context.Context, s *search.Searcher, queries []*Query, opt RetrieveOptions) ([]*Retrieval, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]*Retrieval, len(queries))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(queries) || ctx.Err() != nil {
					return
				}
				q := queries[i]
				r, err := s.Candidates(ctx, search.CandidatesRequest{
					ProjectID: opt.ProjectID, Query: q.Text, Scopes: q.Scopes, Depth: opt.Depth, Fill: true,
				})
				if err != nil {
					errs[w] = fmt.Errorf("%s: query %s: %w", q.Origin, q.ID, err)
					cancel()
					return
				}
				ret := &Retrieval{Query: q, R: r, judge: newJudge(q, r.Chunks)}
				for id, ch := range r.Chunks {
					ch.Content = ""
					r.Chunks[id] = ch
				}
				out[i] = ret
				if opt.Progress != nil {
					opt.Progress(int(done.Add(1)), len(queries))
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Signals says which candidate lists a mode reads.
type Signals string

// Signals.
const (
	SignalsBoth    Signals = "both"
	SignalsLexical Signals = "lexical"
	SignalsVector  Signals = "vector"
)

// Mode is one way of answering, replayed over the retrieved candidates.
type Mode struct {
	Name    string  `json:"name"`
	Signals Signals `json:"signals"`
	// Config is the fusion replayed. For a single signal only Candidates
	// matters: the list is taken as it is ranked, nothing dropped.
	Config search.Config `json:"config"`
}

// Settings describes m on one line.
func (m Mode) Settings() string {
	switch m.Signals {
	case SignalsLexical:
		return fmt.Sprintf("bm25 list alone, depth %d", m.Config.Candidates)
	case SignalsVector:
		return fmt.Sprintf("cosine list alone, depth %d", m.Config.Candidates)
	}
	return m.Config.Weights().String()
}

// singleSignal is the configuration that ranks one list as it is: RRF over
// a single list keeps its order and has no threshold.
func singleSignal(depth int) search.Config {
	c := search.DefaultConfig()
	c.Fusion, c.Candidates = search.FusionRRF, depth
	return c
}

// LexicalMode ranks the bm25 list alone, at depth: what a search answers
// with the vector half down, before any threshold.
func LexicalMode(depth int) Mode {
	return Mode{Name: "lexical", Signals: SignalsLexical, Config: singleSignal(depth)}
}

// VectorMode ranks the cosine list alone, at depth.
func VectorMode(depth int) Mode {
	return Mode{Name: "vector", Signals: SignalsVector, Config: singleSignal(depth)}
}

// StandardModes are the modes every evaluation reports: lexical only and
// vector only (each list at depth), weighted fusion and RRF with the
// configured settings, and the seed's defaults when they differ from them.
func StandardModes(current search.Config, depth int) []Mode {
	weighted, rrf := current, current
	weighted.Fusion, rrf.Fusion = search.FusionWeighted, search.FusionRRF
	modes := []Mode{LexicalMode(depth), VectorMode(depth),
		{Name: string(search.FusionWeighted), Signals: SignalsBoth, Config: weighted},
		{Name: string(search.FusionRRF), Signals: SignalsBoth, Config: rrf}}
	if seed := search.SeedConfig(); seed != weighted {
		modes = append(modes, Mode{Name: "seed", Signals: SignalsBoth, Config: seed})
	}
	return modes
}

// rank replays m over r.
func (r *Retrieval) rank(m Mode) []search.Fused {
	c := r.R.At(m.Config.Candidates)
	switch m.Signals {
	case SignalsLexical:
		c.Vector, c.VectorFill, c.LexicalFill = nil, nil, nil
	case SignalsVector:
		c.Lexical, c.VectorFill, c.LexicalFill = nil, nil, nil
	}
	return r.R.Rank(c, m.Config)
}

// Score replays m over r and judges the ranking.
func (r *Retrieval) Score(m Mode) Scores {
	ranked := r.rank(m)
	return score(r.judge.gains(ranked), r.judge.ideal, r.judge.relevant(), len(ranked) == 0)
}

// Ranking replays m over r and returns the chunks it ranks, best first.
func (r *Retrieval) Ranking(m Mode) []ragd.Chunk {
	ranked := r.rank(m)
	out := make([]ragd.Chunk, len(ranked))
	for i, f := range ranked {
		out[i] = r.R.Chunks[f.ChunkID]
	}
	return out
}

// ModeResult is one mode's metrics over a set of queries.
type ModeResult struct {
	Mode
	Settings string `json:"settings"`
	// Queries is the number of queries averaged over.
	Queries int `json:"queries"`
	// Means holds each metric's mean, by name (see Metrics).
	Means map[string]float64 `json:"metrics"`
	// NoHit is the share of queries the mode answered nothing to;
	// NoHitQueries their number.
	NoHit        float64 `json:"noHit"`
	NoHitQueries int     `json:"noHitQueries"`
	// Intervals are the bootstrap intervals of Means, by metric: set by
	// Report.Detail.
	Intervals map[string]Interval `json:"intervals,omitempty"`
	// Scores are the per-query metrics, in the order of the retrievals.
	Scores []Scores `json:"-"`
}

// Evaluate replays each mode over every retrieval (queries without a
// relevant citation must already be left out) and averages the metrics.
func Evaluate(rs []*Retrieval, modes []Mode, workers int) []*ModeResult {
	out := make([]*ModeResult, len(modes))
	for i, m := range modes {
		out[i] = &ModeResult{Mode: m, Settings: m.Settings(), Scores: make([]Scores, len(rs))}
	}
	parallel(len(modes)*len(rs), workers, func(k int) {
		mi, ri := k/len(rs), k%len(rs)
		out[mi].Scores[ri] = rs[ri].Score(modes[mi])
	})
	for _, res := range out {
		res.summarize()
	}
	return out
}

// summarize fills the means from the per-query scores.
func (res *ModeResult) summarize() {
	res.Queries = len(res.Scores)
	res.Means = map[string]float64{}
	res.NoHitQueries = 0
	for _, m := range Metrics {
		res.Means[m] = mean(res.Scores, m)
	}
	for _, s := range res.Scores {
		if s.NoHit {
			res.NoHitQueries++
		}
	}
	if res.Queries > 0 {
		res.NoHit = float64(res.NoHitQueries) / float64(res.Queries)
	}
}

// mean averages a metric over scores, NaN when there are none.
func mean(scores []Scores, metric string) float64 {
	if len(scores) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, s := range scores {
		sum += s.Get(metric)
	}
	return sum / float64(len(scores))
}

// parallel calls fn(0..n-1) on workers goroutines (GOMAXPROCS when ≤ 0).
func parallel(n, workers int, fn func(int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// Judged returns the retrievals whose query has a relevant citation: the
// ones metrics are defined for.
func Judged(rs []*Retrieval) []*Retrieval {
	var out []*Retrieval
	for _, r := range rs {
		if len(r.Query.Relevant) > 0 {
			out = append(out, r)
		}
	}
	return out
}

// VectorUnavailable counts the retrievals whose query got no vector, and
// returns the first reason.
func VectorUnavailable(rs []*Retrieval) (n int, reason string) {
	for _, r := range rs {
		if !r.R.VectorAvailable && !r.R.Query.Empty() {
			if n == 0 {
				reason = r.R.Reason
			}
			n++
		}
	}
	return n, reason
}

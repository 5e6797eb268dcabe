package embedding

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Service embeds documents and queries with one model through a Provider,
// and keeps the rules of degrading honestly above any provider. It is safe
// for concurrent use.
//
// No method returns an error for the provider's state. Each reports
// Available=false and a Reason a person can act on instead, with nil vectors
// for the texts that could not be embedded, so that callers index and search
// without vectors rather than fail.
type Service struct {
	cfg         Config // with defaults filled in
	space       Space
	provider    Provider
	cache       Cache // nil: none
	log         *slog.Logger
	docPrefix   string
	queryPrefix string
	// modelReason is non-empty when no request can be sent (a model name
	// Ollama cannot accept, an API key that cannot be read): every call
	// then fails with it, without a request.
	modelReason string

	// limitMu guards limit: the model's input limit in tokens, from the
	// configuration or learned from the provider on first use (0: not
	// learned yet).
	limitMu sync.Mutex
	limit   int

	// prio lets queries' requests go before documents' (priority.go).
	prio *priority
}

// Result is the outcome of EmbedDocuments.
type Result struct {
	// Vectors has one entry per input text: a unit vector of Space().Dims
	// values, or nil when the text was blank (Skipped) or could not be
	// embedded (Failed). Each vector is the caller's to keep or modify.
	Vectors [][]float32
	// Available is false when any non-blank text got no vector.
	Available bool
	// Reason says why, when Available is false; it is "" otherwise. When
	// some texts did get vectors it ends with how many did not, e.g.
	// "timeout after 60s (64 of 100 texts not embedded)".
	Reason string
	// Cause is the failure alone, without the count Reason may end with:
	// for a caller that adds up several Results and counts itself.
	Cause string
	// ProviderDown is set when a failure was about the provider rather than
	// the texts sent (unreachable, timed out, model missing, authorization
	// refused, wrong dims): a request now would fail the same way.
	ProviderDown bool
	// Unusable is set when the provider answered but gave no usable
	// vector, and would not on another try (Failure.Unusable, vectors of
	// another length, or all zero): unlike a provider down, the background
	// fill cannot help until the provider or the configuration is fixed.
	Unusable bool
	// Embedded counts texts whose vector came from the provider, Cached those
	// from the cache, Skipped blank texts, Failed texts without a vector.
	// They add up to len(Vectors).
	Embedded, Cached, Skipped, Failed int
	// Calls counts embedding requests made.
	Calls int
	// Truncated counts texts cut to the model's input limit before sending.
	Truncated int
	// Unembeddable is nil, or has one entry per input text: the reason a
	// text can never be embedded by this model (the provider refused it
	// alone as too long even after truncation), "" for the others. Such a
	// text stays lexical-only: asking again would fail the same way.
	Unembeddable []string
}

// New returns a Service for cfg. cache may be nil. The error is only for an
// invalid configuration value (Dims out of range, a malformed Host, a
// negative timeout…), never for the provider's state: New makes no request.
// A model name Ollama cannot accept is not an error here either; every call
// reports it as the Reason, so the daemon still starts and serves lexical
// search while the configuration is fixed.
func New(cfg Config, cache Cache) (*Service, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p, reason, err := newProvider(cfg)
	if err != nil {
		return nil, err
	}
	return NewWithProvider(cfg, p, reason, cache)
}

// NewWithProvider returns a Service for cfg over p, for a provider this
// package does not build; reason, when not "", is why no request can be
// sent (every call then reports it). cfg's provider fields (Provider, Host,
// BaseURL, the API key) are not used.
func NewWithProvider(cfg Config, p Provider, reason string, cache Cache) (*Service, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Provider == ProviderOllama {
		cfg.Host = p.Endpoint()
	}
	doc, query := PrefixesFor(cfg.Model)
	if cfg.DocumentPrefix != nil {
		doc = *cfg.DocumentPrefix
	}
	if cfg.QueryPrefix != nil {
		query = *cfg.QueryPrefix
	}
	return &Service{
		cfg:         cfg,
		space:       SpaceFor(cfg),
		provider:    p,
		cache:       cache,
		log:         cfg.Logger.With("component", "embedding", "provider", p.Name(), "model", cfg.Model),
		docPrefix:   doc,
		queryPrefix: query,
		modelReason: reason,
		limit:       cfg.ContextLength,
		prio:        newPriority(),
	}, nil
}

// Space returns the embedding space of the Service's vectors.
func (s *Service) Space() Space { return s.space }

// Provider returns the Service's provider.
func (s *Service) Provider() Provider { return s.provider }

// knownLimit returns the input limit known without a request.
func (s *Service) knownLimit() int {
	s.limitMu.Lock()
	defer s.limitMu.Unlock()
	if s.limit > 0 {
		return s.limit
	}
	return DefaultContextLength
}

// ContextLength returns the model's input limit in tokens: configured, else
// learned from the provider (once it answered), else DefaultContextLength.
func (s *Service) ContextLength(ctx context.Context) int {
	s.limitMu.Lock()
	defer s.limitMu.Unlock()
	if s.limit > 0 {
		return s.limit
	}
	lctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	n, err := s.provider.ContextLength(lctx)
	switch {
	case err == nil && n > 0:
		s.limit = n
	case err == nil:
		s.limit = DefaultContextLength // the server does not say: it will not
	default:
		// Not reachable now: assume the default for this call, ask again
		// on the next.
		s.log.Debug("model context length unknown", "err", err)
		return DefaultContextLength
	}
	return s.limit
}

// EmbedDocuments embeds texts for indexing: with the model's document
// prefix, through the cache, in batches of Config.BatchSize with up to
// Config.Concurrency in flight, each bounded by Config.IndexTimeout.
//
// Queries go first: a batch waits while a query is waiting for the
// provider (at most MaxYield), and while queries keep coming batches hold
// at most YieldBatch texts and go one at a time, so that a query waits at
// the provider for one short batch at most.
//
// Identical texts are sent once. Blank texts (empty or white space) are
// skipped: nil vector, no request, and Available stays true, because they
// carry nothing to rank by (Ollama would embed "" as a vector of its prompt
// scaffolding alone). When a batch fails the others keep their vectors; a
// failure that would repeat for every batch (Ollama down, model missing,
// timeout, wrong dims) stops sending the rest, and a batch Ollama rejects
// for its content (HTTP 400) is split to isolate the text at fault. When
// ctx ends, every vector
// is nil, Reason is "cancelled" and nothing is cached.
func (s *Service) EmbedDocuments(ctx context.Context, texts []string) Result {
	return s.run(ctx, texts, s.docPrefix, s.cfg.IndexTimeout, s.cfg.Concurrency, true)
}

// EmbedQuery embeds a search query with the model's query prefix, bounded by
// Config.QueryTimeout. vec is nil when available is false, and also for a
// blank query (available true: there is nothing to search by vector).
//
// Queries bypass the cache: they are rarely repeated verbatim, and a cache
// write on the search path would cost more than the embedding it saves.
// Its request goes before any batch of documents (EmbedDocuments).
func (s *Service) EmbedQuery(ctx context.Context, text string) (vec []float32, available bool, reason string) {
	ctx, leave := s.prio.query(ctx)
	defer leave()
	r := s.run(ctx, []string{text}, s.queryPrefix, s.cfg.QueryTimeout, 1, false)
	return r.Vectors[0], r.Available, r.Reason
}

// job is one distinct text to embed and the input positions that share it.
type job struct {
	sent string // prefix + text, exactly as sent
	key  string // CacheKey(sent)
	at   []int  // positions in the input
	vec  []float32
	// cached is set when vec came from the cache.
	cached bool
	// truncated is set when sent was cut to the model's input limit.
	truncated bool
	// never is why the provider refused this text alone as too long.
	never string
}

// outcome is what one batch gave.
type outcome struct {
	calls  int         // requests made
	vecs   [][]float32 // per text of the batch, nil where none; nil if all failed
	reason string      // first failure, of the batch or of one vector
	fatal  bool        // see failure
	// rejected is set when the server refused the request for its
	// content, so that a smaller batch may succeed.
	rejected bool
	tooLong  bool
	busy     bool // see Failure
	unusable bool // see Result
}

func (s *Service) run(ctx context.Context, texts []string, prefix string, timeout time.Duration, concurrency int, useCache bool) Result {
	res := Result{Vectors: make([][]float32, len(texts)), Available: true}
	if len(texts) == 0 {
		return res
	}
	if ctx.Err() != nil {
		return cancelled(ctx, res)
	}

	limit := s.knownLimit()
	if useCache && s.modelReason == "" {
		// Indexing learns the limit; a query must not wait for it.
		limit = s.ContextLength(ctx)
	}
	jobs, skipped := s.jobs(texts, prefix, limit)
	res.Skipped = skipped
	if len(jobs) == 0 {
		return res
	}
	if s.modelReason != "" {
		res.ProviderDown = true
		return s.finish(res, jobs, s.modelReason)
	}

	pending := jobs
	if useCache && s.cache != nil {
		pending = s.lookup(ctx, jobs)
		if ctx.Err() != nil {
			return cancelled(ctx, res)
		}
	}

	// Documents (useCache) yield to queries: each batch is cut when it is
	// taken, short while queries are coming (priority.go).
	var (
		takeMu   sync.Mutex
		taken    int
		batches  [][]*job
		outcomes []outcome
	)
	// take cuts the next batch; short is set when it was cut short for
	// queries (then it goes one at a time).
	take := func() (b int, short bool) {
		takeMu.Lock()
		defer takeMu.Unlock()
		if taken >= len(pending) {
			return -1, false
		}
		n := s.cfg.BatchSize
		if useCache && s.prio.busy() {
			n, short = min(n, YieldBatch), true
		}
		end := min(taken+n, len(pending))
		batches = append(batches, pending[taken:end])
		outcomes = append(outcomes, outcome{})
		taken = end
		return len(batches) - 1, short
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(concurrency, (len(pending)+s.cfg.BatchSize-1)/s.cfg.BatchSize) {
		wg.Go(func() {
			for {
				if useCache && !stop.Load() {
					s.prio.yield(ctx)
				}
				b, short := take()
				if b < 0 {
					return
				}
				takeMu.Lock()
				batch := batches[b]
				takeMu.Unlock()
				if stop.Load() || ctx.Err() != nil {
					continue // not sent: reported with the fatal reason
				}
				var o outcome
				if short {
					s.prio.single.Lock()
					o = s.isolate(ctx, batch, timeout)
					s.prio.single.Unlock()
				} else {
					o = s.isolate(ctx, batch, timeout)
				}
				takeMu.Lock()
				outcomes[b] = o
				takeMu.Unlock()
				if o.fatal {
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
	for _, o := range outcomes {
		res.Calls += o.calls
	}
	if ctx.Err() != nil {
		return cancelled(ctx, res)
	}

	var reason string
	fresh := make(map[string][]float32)
	for b, o := range outcomes {
		if reason == "" {
			reason = o.reason // batch order, so the first failure is reported
		}
		res.ProviderDown = res.ProviderDown || o.fatal
		res.Unusable = res.Unusable || o.unusable
		for i, v := range o.vecs {
			if v != nil {
				batches[b][i].vec = v
				fresh[batches[b][i].key] = v
			}
		}
	}
	if len(fresh) > 0 && useCache && s.cache != nil {
		if err := s.cache.StoreEmbeddings(ctx, s.space.String(), fresh); err != nil {
			s.log.Warn("embedding cache store failed; vectors are returned but not cached", "space", s.space.String(), "vectors", len(fresh), "err", err)
		}
	}
	return s.finish(res, jobs, reason)
}

// jobs groups the non-blank texts by the exact text sent: the prefix and
// the text, cut to limit tokens.
func (s *Service) jobs(texts []string, prefix string, limit int) (jobs []*job, skipped int) {
	byKey := make(map[string]*job, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			skipped++
			continue
		}
		sent, cut := s.cut(prefix+t, limit)
		key := CacheKey(sent)
		if j, ok := byKey[key]; ok {
			j.at = append(j.at, i)
			continue
		}
		j := &job{sent: sent, key: key, at: []int{i}, truncated: cut}
		byKey[key] = j
		jobs = append(jobs, j)
	}
	return jobs, skipped
}

// tokenCounter is a Provider whose model cuts each text to its limit
// itself and counts a text's tokens exactly (the built-in runtime).
type tokenCounter interface {
	Tokens(text string) (n int, ok bool)
}

// cut returns text as it is sent to a model of limit tokens, and whether
// it is cut: whole to a provider that cuts exactly (cut says whether the
// model will), else cut to the estimated budget (truncateTokens).
func (s *Service) cut(text string, limit int) (string, bool) {
	if tc, ok := s.provider.(tokenCounter); ok {
		if n, ok := tc.Tokens(text); ok {
			return text, n > limit
		}
	}
	return truncateTokens(text, budget(limit))
}

// lookup fills jobs from the cache and returns the jobs still to embed. A
// cache error or an unusable cached vector counts as a miss.
func (s *Service) lookup(ctx context.Context, jobs []*job) (pending []*job) {
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = j.key
	}
	hits, err := s.cache.LookupEmbeddings(ctx, s.space.String(), keys)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("embedding cache lookup failed; embedding without it", "space", s.space.String(), "keys", len(keys), "err", err)
		}
		return jobs
	}
	for _, j := range jobs {
		if v, ok := hits[j.key]; ok {
			u, problem := unitVector(v, s.space.Dims)
			if problem == vectorOK {
				j.vec, j.cached = u, true
				continue
			}
			s.log.Warn("embedding cache holds an unusable vector; embedding again", "space", s.space.String(), "key", j.key, "problem", problem.describe(s.provider.Name(), len(v), s.space.Dims))
		}
		pending = append(pending, j)
	}
	return pending
}

// isolate embeds a batch; when Ollama rejects it for its content, it splits
// the batch in halves and retries each, so that one bad text (typically one
// past the model's context that Ollama failed to truncate: real Ollama
// 0.17.4 does, for some tokenizers, despite truncate) costs only its own
// vector rather than the whole batch's. At most 2·n-1 requests for n texts,
// and only when texts are rejected.
func (s *Service) isolate(ctx context.Context, jobs []*job, timeout time.Duration) outcome {
	o := s.batch(ctx, jobs, timeout)
	if o.tooLong && len(jobs) == 1 && ctx.Err() == nil {
		// Refused alone, though cut to the estimated limit: the server's
		// tokenizer makes more of it. Once more at half; refused again,
		// this model never will embed it.
		// Only a text near the limit: a short one refused as too long is
		// refused for another reason, whatever its length.
		j := jobs[0]
		est := estimateTokens(j.sent)
		if half, cut := truncateTokens(j.sent, est/2); cut && est >= budget(s.knownLimit())/2 {
			j.sent, j.key, j.truncated = half, CacheKey(half), true
			s.log.Debug("the provider refused a text as too long; sending it cut to half", "reason", o.reason)
			again := s.batch(ctx, jobs, timeout)
			again.calls += o.calls
			o = again
		}
		if o.tooLong {
			j.never = o.reason
		}
	}
	if !o.rejected || len(jobs) == 1 || ctx.Err() != nil {
		return o
	}
	s.log.Debug("the provider rejected a batch; retrying its halves", "texts", len(jobs), "reason", o.reason)
	half := len(jobs) / 2
	merged := outcome{calls: o.calls, vecs: make([][]float32, len(jobs))}
	for i, part := range [][]*job{jobs[:half], jobs[half:]} {
		if merged.fatal {
			break // the second half would fail the same way
		}
		p := s.isolate(ctx, part, timeout)
		merged.calls += p.calls
		merged.fatal = p.fatal
		if merged.reason == "" {
			merged.reason = p.reason
		}
		copy(merged.vecs[i*half:], p.vecs)
	}
	return merged
}

// batch sends one request and checks its answer.
func (s *Service) batch(ctx context.Context, jobs []*job, timeout time.Duration) outcome {
	texts := make([]string, len(jobs))
	for i, j := range jobs {
		texts[i] = j.sent
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dims := s.space.Dims
	var sent atomic.Bool
	raw, err := s.provider.Embed(withSentFlag(rctx, &sent), texts, dims)
	o := outcome{calls: 1}
	if err != nil {
		if ctx.Err() != nil {
			return o // the caller gave up; run reports it
		}
		f := classify(s.provider, rctx, timeout, sent.Load(), err)
		s.log.Debug("embed request failed", "endpoint", s.provider.Endpoint(), "texts", len(texts), "reason", f.Reason, "err", err)
		o.reason, o.fatal, o.rejected, o.tooLong, o.busy, o.unusable = f.Reason, f.Fatal, f.Rejected, f.TooLong, f.Busy, f.Unusable
		return o
	}
	if len(raw) != len(texts) {
		o.reason = invalidAnswer(s.provider.Name(), fmt.Sprintf("got %d vectors, want %d", len(raw), len(texts)))
		o.unusable = true
		return o
	}
	for _, v := range raw {
		if len(v) != dims {
			// Not one odd vector: the model is not the one the index
			// was built for. No further batch can succeed.
			o.reason, o.fatal, o.unusable = dimsReason(len(v), dims), true, true
			return o
		}
	}
	o.vecs = make([][]float32, len(raw))
	bad := 0
	for i, v := range raw {
		u, problem := unitVector(v, dims)
		if problem != vectorOK {
			bad++
			if o.reason == "" {
				o.reason = problem.describe(s.provider.Name(), len(v), dims)
			}
			continue
		}
		o.vecs[i] = u
	}
	if bad > 0 {
		s.log.Debug("embed answer has unusable vectors", "texts", len(texts), "unusable", bad, "reason", o.reason)
	}
	// Not one usable vector for any text: the model answers nothing else.
	o.unusable = bad == len(raw)
	return o
}

// finish spreads the jobs' vectors over the input positions and writes the
// counts and Reason.
func (s *Service) finish(res Result, jobs []*job, reason string) Result {
	for _, j := range jobs {
		if j.truncated {
			res.Truncated += len(j.at)
		}
		if j.never != "" {
			if res.Unembeddable == nil {
				res.Unembeddable = make([]string, len(res.Vectors))
			}
			for _, i := range j.at {
				res.Unembeddable[i] = j.never
			}
		}
		if j.vec == nil {
			res.Failed += len(j.at)
			continue
		}
		for n, i := range j.at {
			if n == 0 {
				res.Vectors[i] = j.vec
			} else {
				// The caller owns each vector: no two entries share memory.
				res.Vectors[i] = slices.Clone(j.vec)
			}
		}
		if j.cached {
			res.Cached += len(j.at)
		} else {
			res.Embedded += len(j.at)
		}
	}
	if res.Failed == 0 {
		return res
	}
	res.Available = false
	if reason == "" {
		reason = "embedding failed" // unreachable in practice: every failure has a reason
	}
	res.Cause = reason
	if got := res.Embedded + res.Cached; got > 0 {
		reason = fmt.Sprintf("%s (%d of %d texts not embedded)", reason, res.Failed, res.Failed+got)
	}
	res.Reason = reason
	return res
}

// cancelled is the Result when the caller's context ended: no vectors.
func cancelled(ctx context.Context, res Result) Result {
	clear(res.Vectors)
	res.Available = false
	res.Embedded, res.Cached = 0, 0
	res.Failed = len(res.Vectors) - res.Skipped
	res.Reason = "cancelled"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.Reason = "cancelled: the caller's deadline passed"
	}
	res.Cause, res.ProviderDown = res.Reason, false
	res.Unembeddable = nil
	return res
}

// Package search answers hybrid searches over the store: it parses the
// user's query, embeds it, runs the vector KNN and the lexical match on one
// snapshot, fuses the two candidate lists, and returns hits that are
// citations. It records every search in telemetry with its weights frozen,
// takes votes on the hits, and measures the searches of a time window.
//
// The store returns raw candidates and speaks all the SQL; this package
// decides what they mean.
package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
)

// Embedder embeds a search query. It never fails: when the provider cannot
// answer it returns available false and a reason, and the search runs on the
// lexical signal alone. *embedding.Service implements it.
type Embedder interface {
	EmbedQuery(ctx context.Context, text string) (vec []float32, available bool, reason string)
}

// Recorder writes a search's telemetry row. Store is one.
type Recorder interface {
	RecordSearch(ctx context.Context, rec ragd.SearchRecord) (int64, error)
}

// Store is what a Searcher needs of the database: consistent snapshots to
// read candidates from, the embedding space of its vectors, and the
// telemetry it writes and measures. *store.Store is one; a second store (or
// a test double) implements this and nothing else, without cgo.
type Store interface {
	Recorder
	Snapshot(ctx context.Context) (ragd.Snapshot, error)
	Space() string
	Dims() int
	RecordFeedback(ctx context.Context, in ragd.FeedbackInput) (ragd.FeedbackResult, error)
	SearchTelemetry(ctx context.Context, f ragd.TelemetryFilter) (ragd.TelemetryWindow, error)
}

// Actor is who asked: a person, an agent, or a named agent
// ("agent:claude-code", as the MCP server records its client).
type Actor string

// Actors.
const (
	ActorPerson Actor = "person"
	ActorAgent  Actor = "agent"
)

// AgentPrefix starts a named agent's actor: AgentPrefix + the client's name.
const AgentPrefix = "agent:"

// MaxAgentName bounds a named agent's name in runes: a client name, not a
// document.
const MaxAgentName = 64

// NamedAgent returns the actor of the agent called name.
func NamedAgent(name string) Actor { return Actor(AgentPrefix + name) }

// IsAgent reports whether a is an agent, named or not.
func (a Actor) IsAgent() bool { return a == ActorAgent || strings.HasPrefix(string(a), AgentPrefix) }

// Purpose tells real searches from evaluation runs, which never count in
// Measure.
type Purpose string

// Purposes.
const (
	PurposeSearch Purpose = ragd.PurposeSearch
	PurposeEval   Purpose = ragd.PurposeEval
)

// telemetryTimeout bounds the telemetry write: the store's single writer may
// be busy with a reindex, and this is the budget any writer gets.
const telemetryTimeout = 10 * time.Second

// Searcher runs searches, takes votes and measures. Set its fields before
// first use (New does); it is then safe for concurrent use.
type Searcher struct {
	Store Store
	// Embedder embeds queries. Optional: nil means lexical search only.
	Embedder Embedder
	// Recorder receives telemetry rows. Optional: Store.
	Recorder Recorder
	// Config is the fusion configuration of every search that does not
	// override it.
	Config Config
	// Baseline returns the mean cosine of random chunk pairs in the
	// store's embedding space, what NormSpace reads the vector signal
	// against (Candidates.Baseline); ok is false while too few vectors are
	// stored to measure it. Optional: cosine is then read as it is. The
	// daemon measures once per space and remembers.
	Baseline func(ctx context.Context) (mean float64, ok bool)
	// Logger. Optional: slog.Default().
	Logger *slog.Logger
	// Now stamps telemetry rows and is the end of Measure's default window.
	// Optional: time.Now.
	Now func() time.Time
	// KeepFrequentTerms asks the store to search every word of the lexical
	// query (ragd.LexicalQuery.KeepFrequent), even those it would leave out
	// as negligible (SQLite: the words bm25 weighs nothing, when a rarer
	// word remains): for comparing rankings and costs with and without.
	KeepFrequentTerms bool

	// betweenQueries, when set (tests only), runs on the snapshot after the
	// vector query and before the lexical one.
	betweenQueries func()
}

// New returns a Searcher over st with the default configuration. emb may be
// nil for lexical search only.
func New(st Store, emb Embedder) *Searcher {
	return &Searcher{Store: st, Embedder: emb, Config: DefaultConfig()}
}

// Request is one search.
type Request struct {
	ProjectID int64
	// Query is the user's text: 1..MaxQueryLength characters after trimming.
	Query string
	// Scopes to search; empty means every scope.
	Scopes []string
	// Limit is the number of hits wanted, 1..MaxLimit. 0 is invalid: callers
	// pass DefaultLimit when the user asked for none.
	Limit int
	// Fusion overrides the configured fusion. Optional.
	Fusion Fusion
	// Config replaces the Searcher's configuration, for evaluation. Optional.
	Config *Config
	// ragd.Explain adds each signal's ranks and raw scores to the answer.
	Explain bool
	// Actor is who asked. Optional: ActorPerson.
	Actor Actor
	// SessionID is the session the search came from; "" when it came from
	// none (recorded as NULL).
	SessionID string
	// Purpose. Optional: PurposeSearch.
	Purpose Purpose
}

// request is a validated Request.
type request struct {
	Request
	query Query
	cfg   Config
	// coverage is what retrieve found of the searched chunks' vectors.
	coverage *ragd.VectorCoverage
	// vectorsGone is why the store could not compare vectors
	// (ragd.ErrVectorsUnavailable), "" when it could: the answer is then
	// the lexical half alone, degraded.
	vectorsGone string
	// baseline is Candidates.Baseline, read before the snapshot.
	baseline float64
}

// validate checks req and fills its defaults.
func (s *Searcher) validate(req Request) (request, error) {
	r := request{Request: req}
	if req.ProjectID <= 0 {
		return r, fmt.Errorf("%w: project id %d", ragd.ErrInvalid, req.ProjectID)
	}
	q, err := ParseQuery(req.Query)
	if err != nil {
		return r, err
	}
	r.query = q
	if req.Limit < 1 || req.Limit > MaxLimit {
		return r, fmt.Errorf("%w: limit %d, want 1..%d", ragd.ErrInvalid, req.Limit, MaxLimit)
	}
	if r.Scopes, err = normalizeScopes(req.Scopes); err != nil {
		return r, err
	}
	r.cfg = s.Config
	if req.Config != nil {
		r.cfg = *req.Config
		if err := r.cfg.Validate(); err != nil {
			return r, fmt.Errorf("%w: %w", ragd.ErrInvalid, err)
		}
	} else if err := r.cfg.Validate(); err != nil {
		return r, fmt.Errorf("searcher configuration: %w", err) // the server's fault, not the client's
	}
	if req.Fusion != "" {
		if !ValidFusion(req.Fusion) {
			return r, fmt.Errorf("%w: unknown fusion %q, want %s", ragd.ErrInvalid, req.Fusion, oneOf(Fusions))
		}
		r.cfg.Fusion = req.Fusion
		if err := r.cfg.Validate(); err != nil {
			return r, fmt.Errorf("%w: fusion %q: %w", ragd.ErrInvalid, req.Fusion, err)
		}
	}
	// The telemetry row freezes this depth, the one used.
	r.cfg.Candidates = r.cfg.Depth(r.Limit)
	if r.Actor, err = validActor(req.Actor); err != nil {
		return r, err
	}
	if err := validID("session id", req.SessionID); err != nil {
		return r, err
	}
	switch r.Purpose {
	case "":
		r.Purpose = PurposeSearch
	case PurposeSearch, PurposeEval:
	default:
		return r, fmt.Errorf("%w: unknown purpose %q, want %q or %q", ragd.ErrInvalid, req.Purpose, PurposeSearch, PurposeEval)
	}
	return r, nil
}

// normalizeScopes checks scopes and returns them without duplicates, in
// ragd.Scopes order.
func normalizeScopes(scopes []string) ([]string, error) {
	asked := map[string]bool{}
	for _, sc := range scopes {
		if !ragd.ValidScope(sc) {
			return nil, fmt.Errorf("%w: unknown scope %q, want %s", ragd.ErrInvalid, sc, strings.Join(ragd.Scopes, ", "))
		}
		asked[sc] = true
	}
	var out []string
	for _, sc := range ragd.Scopes {
		if asked[sc] {
			out = append(out, sc)
		}
	}
	return out, nil
}

func validActor(a Actor) (Actor, error) {
	switch a {
	case "":
		return ActorPerson, nil
	case ActorPerson, ActorAgent:
		return a, nil
	}
	if name, ok := strings.CutPrefix(string(a), AgentPrefix); ok {
		if n := utf8.RuneCountInString(name); n == 0 || n > MaxAgentName || !utf8.ValidString(name) ||
			strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			return "", fmt.Errorf("%w: actor %q: want %s followed by 1..%d printable characters", ragd.ErrInvalid, clip(string(a)), AgentPrefix, MaxAgentName)
		}
		return a, nil
	}
	return "", fmt.Errorf("%w: unknown actor %q, want %q, %q or %q", ragd.ErrInvalid, clip(string(a)), ActorPerson, ActorAgent, AgentPrefix+"NAME")
}

// clip shortens text quoted in an error message.
func clip(text string) string {
	const keep = 80
	if utf8.RuneCountInString(text) <= keep {
		return text
	}
	return string([]rune(text)[:keep]) + "…"
}

// validID accepts "" and any valid UTF-8 without NUL bytes.
func validID(what, id string) error {
	if !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0 {
		return fmt.Errorf("%w: %s %q is not valid UTF-8 text", ragd.ErrInvalid, what, id)
	}
	return nil
}

// Search runs one hybrid search. It returns an error wrapping ragd.ErrInvalid for
// bad input, and an error for a store failure; a provider failure is not an
// error (the answer is degraded), nor is a telemetry failure (SearchID is
// nil and the cause is logged).
//
// A weighted search without the vector half ranks the lexical signal alone,
// by how close each match comes to the best one, and the threshold applies
// to that (Config.Effective, docs/adr/0007-degraded-fusion.md): the answer's
// weights and the telemetry row show the weights applied, 0 and 1.
func (s *Searcher) Search(ctx context.Context, req Request) (*ragd.SearchResult, error) {
	start := time.Now()
	if s.Store == nil {
		return nil, errors.New("search: no store")
	}
	r, err := s.validate(req)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", clip(req.Query), err)
	}

	// Embed before the snapshot: no transaction is held while the model runs.
	vec, vectorAvailable, reason := s.embed(ctx, r.query)
	if vec != nil && r.cfg.Normalization.readsBaseline() {
		// Only NormSpace and NormChance read the baseline. Also before the snapshot:
		// measuring takes a connection of its own, and a search holding
		// its snapshot's while waiting for another could exhaust the pool
		// under load.
		r.baseline = s.baseline(ctx)
	}

	var fused []Fused
	var chunks map[string]ragd.Chunk
	var cands Candidates
	if !r.query.Empty() {
		fused, chunks, cands, err = s.retrieve(ctx, &r, vec)
		if err != nil {
			return nil, fmt.Errorf("search %q in project %d: %w", r.query.Text, r.ProjectID, err)
		}
		// What Fuse applied, for the answer and the telemetry row.
		r.cfg = r.cfg.Effective(cands)
		if r.vectorsGone != "" {
			vectorAvailable, reason = false, r.vectorsGone
		}
	}

	resp := &ragd.SearchResult{
		Hits:            make([]ragd.Hit, 0, len(fused)),
		VectorAvailable: vectorAvailable,
		Degraded:        !vectorAvailable,
		Reason:          reason,
		Fusion:          string(r.cfg.Fusion),
		Normalization:   string(r.cfg.Normalization),
		Fill:            r.cfg.Fill,
		VectorCoverage:  r.coverage,
	}
	if r.cfg.Fusion == FusionRRF {
		resp.RRFK = r.cfg.RRFK
	} else {
		resp.Weights = ragd.AppliedWeights{Vector: ptr(r.cfg.VectorWeight), Lexical: ptr(r.cfg.LexicalWeight), Threshold: ptr(r.cfg.Threshold)}
	}
	for i, f := range fused {
		resp.Hits = append(resp.Hits, makeHit(i+1, f, chunks[f.ChunkID], r.Explain))
	}
	if r.Explain {
		resp.Explain = explainCandidates(cands)
		resp.Explain.Match = r.query.Expression
		resp.Explain.Dropped = r.query.Dropped
	}
	resp.LatencyMs = float64(time.Since(start).Microseconds()) / 1000
	resp.SearchID = s.record(ctx, r, resp)
	return resp, nil
}

// embed returns the query vector, or nil with the reason it is unavailable.
func (s *Searcher) embed(ctx context.Context, q Query) ([]float32, bool, string) {
	switch {
	case q.Empty():
		// Nothing to embed: the provider was not asked, so its state is not
		// known; only a missing provider makes this search degraded.
		if s.Embedder == nil {
			return nil, false, "the query has no searchable words; no embedding provider is configured"
		}
		return nil, true, "the query has no searchable words"
	case s.Embedder == nil:
		return nil, false, "no embedding provider is configured: lexical search only"
	}
	vec, ok, reason := s.Embedder.EmbedQuery(ctx, q.Semantic)
	if !ok {
		if reason == "" {
			reason = "the embedding provider did not embed the query"
		}
		return nil, false, reason
	}
	if err := s.checkVector(vec); err != nil {
		return nil, false, err.Error()
	}
	return vec, true, ""
}

// checkVector refuses a query vector the index cannot be searched with,
// rather than failing the search: the lexical half still answers.
func (s *Searcher) checkVector(vec []float32) error {
	if len(vec) != s.Store.Dims() {
		return fmt.Errorf("the query vector has %d dimensions, the index's space %s has %d: lexical search only",
			len(vec), s.Store.Space(), s.Store.Dims())
	}
	var norm float64
	for _, x := range vec {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return errors.New("the query vector holds NaN or Inf: lexical search only")
		}
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return errors.New("the query vector is all zeros: lexical search only")
	}
	return nil
}

// retrieve runs both candidate queries (and fill) on one snapshot, fuses
// them, and returns the ordered, cut hits with their chunks.
func (s *Searcher) retrieve(ctx context.Context, r *request, vec []float32) ([]Fused, map[string]ragd.Chunk, Candidates, error) {
	var c Candidates
	sn, err := s.Store.Snapshot(ctx)
	if err != nil {
		return nil, nil, c, err
	}
	defer sn.Close()
	if err := s.analyse(ctx, sn, r); err != nil {
		return nil, nil, c, err
	}

	filter := ragd.Filter{ProjectID: r.ProjectID, Scopes: r.Scopes}
	chunkCount, vectorCount, err := sn.VectorCoverage(ctx, filter)
	if err != nil {
		return nil, nil, c, err
	}
	r.coverage = ragd.NewVectorCoverage(chunkCount, vectorCount)
	k := r.cfg.Candidates
	if vec != nil {
		c.Vector, err = sn.VectorCandidates(ctx, filter, vec, k)
		if errors.Is(err, ragd.ErrVectorsUnavailable) {
			// The database lost its vectors (an extension dropped): the
			// lexical half answers alone, and says why.
			r.vectorsGone, c.Vector, vec = err.Error(), nil, nil
		} else if err != nil {
			return nil, nil, c, err
		}
		c.Baseline = r.baseline
	}
	if s.betweenQueries != nil {
		s.betweenQueries()
	}
	if c.Lexical, err = lexicalCandidates(ctx, sn, filter, r, k); err != nil {
		return nil, nil, c, err
	}
	if r.cfg.Fill {
		if err := fill(ctx, sn, &c, r, vec); err != nil {
			return nil, nil, c, err
		}
	}

	fused := Fuse(c, r.cfg)
	ids := make([]string, len(fused))
	for i, f := range fused {
		ids[i] = f.ChunkID
	}
	loaded, err := sn.Chunks(ctx, ids)
	if err != nil {
		return nil, nil, c, err
	}
	chunks := make(map[string]ragd.Chunk, len(loaded))
	for _, ch := range loaded {
		chunks[ch.ID] = ch
	}
	// A candidate always has its chunk in the same snapshot; guard anyway
	// rather than cite nothing.
	fused = slices.DeleteFunc(fused, func(f Fused) bool { _, ok := chunks[f.ChunkID]; return !ok })
	slices.SortStableFunc(fused, func(a, b Fused) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return compareCitations(chunks[a.ChunkID], chunks[b.ChunkID])
	})
	return fused[:min(len(fused), r.Limit)], chunks, c, nil
}

// baseline is Baseline's mean, 0 when unknown. Call it with no snapshot
// open: it may read the store.
func (s *Searcher) baseline(ctx context.Context) float64 {
	if s.Baseline == nil {
		return 0
	}
	if mean, ok := s.Baseline(ctx); ok {
		return mean
	}
	return 0
}

// analyse analyses r's query for the language of its project's lexical
// index, as the snapshot sees it, and asks the store to keep the words it
// would leave out as negligible when s keeps them.
func (s *Searcher) analyse(ctx context.Context, sn ragd.Snapshot, r *request) error {
	if err := analyseIn(ctx, sn, r); err != nil {
		return err
	}
	r.query.Lexical.KeepFrequent = s.KeepFrequentTerms
	return nil
}

// analyseIn analyses r's query for the language of its project's lexical
// index, as the snapshot sees it: the query's tokens are the index's.
func analyseIn(ctx context.Context, sn ragd.Snapshot, r *request) error {
	name, err := sn.LexicalLanguage(ctx, r.ProjectID)
	if err != nil {
		return err
	}
	lang, err := lexical.ParseLanguage(name)
	if err != nil {
		return fmt.Errorf("project %d: %w", r.ProjectID, err)
	}
	if lang == r.query.Language {
		return nil
	}
	a, err := lexical.New(lang)
	if err != nil {
		return fmt.Errorf("project %d: %w", r.ProjectID, err)
	}
	r.query = r.query.In(a)
	return nil
}

// fill scores the candidates one signal missed on that signal: cosine from
// the stored vectors of lexical-only candidates, the lexical score of the query restricted
// to vector-only candidates.
func fill(ctx context.Context, sn ragd.Snapshot, c *Candidates, r *request, vec []float32) error {
	inVector := make(map[string]bool, len(c.Vector))
	for _, v := range c.Vector {
		inVector[v.ChunkID] = true
	}
	inLexical := make(map[string]bool, len(c.Lexical))
	var lexicalOnly, vectorOnly []string
	for _, l := range c.Lexical {
		inLexical[l.ChunkID] = true
		if !inVector[l.ChunkID] {
			lexicalOnly = append(lexicalOnly, l.ChunkID)
		}
	}
	for _, v := range c.Vector {
		if !inLexical[v.ChunkID] {
			vectorOnly = append(vectorOnly, v.ChunkID)
		}
	}
	var err error
	if vec != nil && len(lexicalOnly) > 0 {
		if c.VectorFill, err = sn.VectorDistances(ctx, vec, lexicalOnly); err != nil {
			return fmt.Errorf("fill vector scores: %w", err)
		}
	}
	if len(vectorOnly) > 0 {
		if c.LexicalFill, err = lexicalScores(ctx, sn, r, vectorOnly); err != nil {
			return fmt.Errorf("fill lexical scores: %w", err)
		}
	}
	return nil
}

// compareCitations orders chunks of equal score: docs and adr by source path
// and position, sessions by session, event and position; the chunk id last.
func compareCitations(a, b ragd.Chunk) int {
	return cmp.Or(
		cmp.Compare(a.SourcePath+a.SessionID, b.SourcePath+b.SessionID),
		cmp.Compare(a.EventID, b.EventID),
		cmp.Compare(a.Position, b.Position),
		cmp.Compare(a.ID, b.ID),
	)
}

func makeHit(rank int, f Fused, c ragd.Chunk, explain bool) ragd.Hit {
	h := ragd.Hit{
		ChunkID: f.ChunkID, Rank: rank, Content: c.Content, Score: f.Score,
		VectorScore: f.VectorScore, LexicalScore: f.LexicalScore, Scope: c.Scope,
	}
	if c.Scope == ragd.ScopeSession {
		h.Origin = ragd.Origin{Kind: ragd.OriginSession, SessionID: c.SessionID, EventID: c.EventID, Title: c.Title}
	} else {
		h.Origin = ragd.Origin{Kind: ragd.OriginFile, SourcePath: c.SourcePath, HeadingPath: c.HeadingPath, Title: c.Title, Commit: c.SourceCommit}
	}
	if explain {
		h.Explain = hitExplain(f)
	}
	return h
}

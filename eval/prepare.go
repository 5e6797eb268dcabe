package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// Options say what Prepare evaluates on and with which settings: a BEIR
// folder alone, or a golden file, the votes recorded in telemetry, or both,
// asked of a project of the ragd database.
type Options struct {
	// Golden is a golden file (JSON lines) of judged queries.
	Golden string
	// BEIR is a BEIR folder, indexed into a project of its own; Split
	// chooses its split when it has several.
	BEIR, Split string
	// Work keeps the BEIR repository and index for later runs. Optional: a
	// temporary folder under CacheDir/eval, removed by Close.
	Work     string
	CacheDir string
	// Telemetry adds the votes recorded between Since and Until (zero:
	// unbounded) as judgments: useful is relevant, irrelevant is not.
	Telemetry    bool
	Since, Until time.Time
	// Database is the ragd database, and Project the name or repository
	// path of the project in it that the golden file and the telemetry are
	// about. A postgres:// URL is a database on the PostgreSQL engine, any
	// other value a SQLite file (engines.Open). With BEIR, Database is where
	// the corpus is indexed (optional: a file in Work).
	Database, Project string
	// Repo is a git repository whose docs and ADRs are indexed into
	// Database first, as the daemon's reindex would, registering it as a
	// project (named after its folder) when new; Project is then that
	// repository. For evaluating a golden file of one repository on a
	// database of its own, on either engine.
	Repo string

	// Embedding embeds the queries (and a BEIR corpus), as the daemon's
	// [embedding]; Chunking cuts a BEIR corpus; Search is the current
	// search configuration.
	Embedding embedding.Config
	Chunking  chunking.Options
	Search    search.Config
	// KeepFrequentTerms searches every word of a query, as
	// search.Searcher's field of that name: to compare with pruning.
	KeepFrequentTerms bool
	// VectorShare, between 0 and 1, searches as if only that share of the
	// chunks had a vector yet (the rest waiting for the background fill):
	// a fixed sample by chunk id (partialStore). 0 means all of them.
	VectorShare float64
	// Vectors and QuantizeFrom open the store as the daemon's [search]
	// vectors would (store.Options of those names); QuantizeFrom 1 puts
	// every project through the codes, to measure what they cost.
	Vectors      store.VectorMode
	QuantizeFrom int
	// Depth is the deepest candidate list a replay will read beyond the
	// standard modes' (extra modes, a calibration grid).
	Depth     int
	Bootstrap Bootstrap

	// Logger. Optional: slog.Default().
	Logger *slog.Logger
	// Log, if not nil, receives one line per step: what is indexed, how far
	// retrieval is.
	Log io.Writer
	// Progress, if not nil, receives the BEIR corpus's reindex progress.
	Progress func(ragd.Progress)
}

// minDepth is the fewest candidates per signal retrieved: recall@100 reads
// that deep.
const minDepth = 100

// fewJudged is the number of judged queries under which Prepare warns that
// means and intervals are rough: a golden set of 50 or more measures.
const fewJudged = 30

// Evaluation is a prepared evaluation: the judged queries, their
// candidates retrieved once, and the report the replays complete.
type Evaluation struct {
	Set        *Set
	Retrievals []*Retrieval
	Report     *Report
	// Current is the search configuration in use.
	Current search.Config

	started time.Time
	cleanup []func()
}

// Close releases the store and removes a temporary BEIR work folder.
func (ev *Evaluation) Close() {
	for i := len(ev.cleanup) - 1; i >= 0; i-- {
		ev.cleanup[i]()
	}
	ev.cleanup = nil
}

func (o *Options) validate() error {
	switch {
	case o.BEIR != "" && (o.Golden != "" || o.Telemetry):
		return errors.New("evaluate: a BEIR folder is evaluated alone, without a golden file or telemetry")
	case o.BEIR == "" && o.Golden == "" && !o.Telemetry:
		return errors.New("evaluate: nothing to evaluate on: a golden file, a BEIR folder or telemetry")
	case o.Repo != "" && (o.BEIR != "" || o.Database == ""):
		return fmt.Errorf("evaluate: repository %s is indexed into a database of its own for a golden file: not with a BEIR folder, and a database is needed", o.Repo)
	case o.VectorShare < 0 || o.VectorShare > 1 || math.IsNaN(o.VectorShare):
		return fmt.Errorf("evaluate: vector share %v: want 0..1", o.VectorShare)
	case o.Bootstrap.Resamples < 1 || o.Bootstrap.Level <= 0 || o.Bootstrap.Level >= 1:
		return fmt.Errorf("evaluate: bootstrap %+v: want at least 1 resample and a level between 0 and 1", o.Bootstrap)
	}
	return nil
}

// Prepare reads the judged queries (a golden file, a BEIR folder,
// telemetry), opens or builds the index they are asked of, embeds the
// queries and retrieves every query's candidates once at depth (at least
// the current candidates, 100 and opt.Depth). The caller closes the
// Evaluation.
func Prepare(ctx context.Context, opt Options) (_ *Evaluation, err error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	// Retrieve reports progress from its workers: one line at a time.
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		if opt.Log != nil {
			logMu.Lock()
			defer logMu.Unlock()
			fmt.Fprintf(opt.Log, format, args...)
		}
	}
	ev := &Evaluation{Current: opt.Search, started: time.Now()}
	defer func() {
		if err != nil {
			ev.Close()
		}
	}()
	space := embedding.SpaceFor(opt.Embedding)
	rep := &Report{Space: space.String(), Bootstrap: opt.Bootstrap, Warnings: []string{}}
	ev.Report = rep

	var st engine.Store
	var project ragd.Project
	var cache embedding.Cache
	if opt.BEIR != "" {
		b, err := LoadBEIR(opt.BEIR, opt.Split)
		if err != nil {
			return nil, err
		}
		work := opt.Work
		if work == "" {
			base := filepath.Join(opt.CacheDir, "eval")
			if err := os.MkdirAll(base, 0o700); err != nil {
				return nil, err
			}
			if work, err = os.MkdirTemp(base, "beir-"+b.Name+"-"); err != nil {
				return nil, err
			}
			ev.cleanup = append(ev.cleanup, func() { os.RemoveAll(work) })
		}
		logf("indexing %s (%d documents) in %s with %s…\n", b.Corpus, b.Docs, work, space)
		idx, err := OpenBEIRIndex(ctx, b, BEIRIndexOptions{
			Work: work, Embedding: opt.Embedding, Logger: opt.Logger, Progress: opt.Progress, Chunking: opt.Chunking,
			Vectors: opt.Vectors, QuantizeFrom: opt.QuantizeFrom, Database: opt.Database,
		})
		if err != nil {
			return nil, err
		}
		ev.cleanup = append(ev.cleanup, func() { idx.Close() })
		st, project, cache, ev.Set = idx.Store, idx.Project, idx.Store, b.Set
		rep.Dataset, rep.BEIR = b.Set.Name, &b.Report
		rep.Index = idx.summary(work)
		rep.Timings.Repo, rep.Timings.Index = idx.RepoTime, idx.IndexTime
		for _, sr := range idx.Report.Scopes {
			rep.Timings.IndexEmbed += time.Duration(sr.Durations.EmbedMs) * time.Millisecond
		}
	} else {
		if opt.Repo == "" && !ragd.IsDatabaseURL(opt.Database) {
			if _, err := os.Stat(opt.Database); err != nil {
				return nil, fmt.Errorf("no ragd database at %s (%v): register and index a project first (ragd add, ragd reindex)", opt.Database, err)
			}
		}
		opened, err := engines.Open(ctx, opt.Database, engine.Options{Space: space.String(), Dims: space.Dims, Logger: opt.Logger,
			Vectors: string(opt.Vectors), QuantizeFrom: opt.QuantizeFrom})
		if err != nil {
			return nil, err
		}
		st = opened
		ev.cleanup = append(ev.cleanup, func() { opened.Close() })
		if opt.Repo != "" {
			ri, err := indexRepo(ctx, opened, opt)
			if err != nil {
				return nil, err
			}
			opt.Project = ri.root
			rep.Index, rep.Timings.Index, rep.Timings.IndexEmbed = ri.summary, ri.took, ri.embed
		}
		if err := waitVectorIndex(ctx, st); err != nil {
			return nil, err
		}
		project, err = st.Project(ctx, opt.Project)
		if errors.Is(err, ragd.ErrNotFound) {
			return nil, fmt.Errorf("project %q is not registered: run `ragd add %s`", opt.Project, opt.Project)
		}
		if err != nil {
			return nil, err
		}
		if ev.Set, err = judgedInProject(ctx, st, project, opt); err != nil {
			return nil, err
		}
		rep.Dataset = fmt.Sprintf("%s on project %s", ev.Set.Name, project.Name)
	}
	if rep.SpaceProfile, err = spaceProfile(ctx, st, space.String(), opt.Search); err != nil {
		return nil, err
	}
	if p := rep.SpaceProfile; p != nil && p.WeightedUnreliable {
		rep.Warnings = append(rep.Warnings, p.Advice)
	}
	rep.Counts = ev.Set.Counts()
	rep.Warnings = append(rep.Warnings, ev.Set.Warnings...)
	judged := ev.Set.Judged()
	if len(judged) == 0 {
		return nil, fmt.Errorf("%s: no query with a relevant citation to evaluate on", ev.Set.Name)
	}
	if len(judged) < fewJudged {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("only %d judged queries: means and intervals are rough (a golden set of 50 or more measures)", len(judged)))
	}

	qv, err := EmbedQueries(ctx, opt.Embedding, cache, judged)
	if err != nil {
		return nil, err
	}
	rep.QueryEmbedding, rep.Timings.QueryEmbed = qv.Stats, qv.Stats.Elapsed

	rep.Depth = max(minDepth, opt.Search.Candidates, opt.Depth)
	var searched search.Store = st
	if opt.VectorShare > 0 && opt.VectorShare < 1 {
		searched = partialStore{Store: st, share: opt.VectorShare}
		rep.VectorShare = opt.VectorShare
	}
	searcher := &search.Searcher{Store: searched, Embedder: qv, Config: opt.Search, Logger: opt.Logger, KeepFrequentTerms: opt.KeepFrequentTerms}
	if p := rep.SpaceProfile; p != nil {
		searcher.Baseline = func(context.Context) (float64, bool) { return p.RandomCosine, true }
	}
	start := time.Now()
	step := max(1, len(judged)/10) // about ten progress lines
	ev.Retrievals, err = Retrieve(ctx, searcher, judged, RetrieveOptions{
		ProjectID: project.ID, Depth: rep.Depth,
		Progress: func(done, total int) {
			if done%step == 0 || done == total {
				logf("retrieve: %d/%d queries\n", done, total)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	rep.Timings.Retrieve = time.Since(start)
	rep.VectorUnavailable, rep.VectorReason = VectorUnavailable(ev.Retrievals)
	return ev, nil
}

// judgedInProject reads the golden file, resolved against the project,
// and the telemetry votes, as one set.
func judgedInProject(ctx context.Context, st engine.Store, project ragd.Project, opt Options) (*Set, error) {
	set := &Set{}
	if opt.Golden != "" {
		g, err := ReadGoldenFile(opt.Golden)
		if err != nil {
			return nil, err
		}
		res, err := NewProjectResolver(ctx, st, project)
		if err != nil {
			return nil, err
		}
		g.Resolve(res)
		set.Merge(g, "")
	}
	if opt.Telemetry {
		t, err := TelemetrySet(ctx, st, project.ID, opt.Since, opt.Until)
		if err != nil {
			return nil, err
		}
		if len(t.Queries) == 0 {
			set.Warnings = append(set.Warnings, "telemetry: no voted search in the window")
		}
		set.Merge(t, "telemetry:")
	}
	return set, nil
}

// summary describes the BEIR index in work.
func (x *BEIRIndex) summary(work string) *IndexSummary {
	s := &IndexSummary{Work: work, Commit: x.Repo.Commit, Docs: x.Repo.Docs, Complete: x.Report.Complete, Reused: true}
	for _, sr := range x.Report.Scopes {
		s.Chunks += sr.Chunks.Total
		s.LexicalOnly += sr.LexicalOnly
		s.Embedded += sr.Embedding.Embedded
		s.Cached += sr.Embedding.Cached
		s.Reused = s.Reused && sr.Unchanged
		if sr.Embedding.Reason != "" {
			s.Reason = sr.Embedding.Reason
		}
	}
	return s
}

// Evaluate replays the standard modes and extra on the retrievals,
// compares every mode with lexical, and completes the report's timings.
func (ev *Evaluation) Evaluate(extra []Mode) *Report {
	rep := ev.Report
	start := time.Now()
	modes := append(StandardModes(ev.Current, rep.Depth), extra...)
	rep.Modes = Evaluate(ev.Retrievals, modes, 0)
	rep.Comparisons = CompareModes(rep.Modes, "lexical", Metrics, rep.Bootstrap)
	rep.Timings.Replay = time.Since(start)
	rep.Timings.Total = time.Since(ev.started)
	return rep
}

// Calibrate searches grid for the settings that score best on metric,
// holding out a share of the queries, adds the calibration to the report
// and completes its timings. Nothing is applied.
func (ev *Evaluation) Calibrate(grid Grid, metric string, holdout float64) (*Calibration, error) {
	rep := ev.Report
	start := time.Now()
	cal, err := Calibrate(ev.Retrievals, CalibrateOptions{
		Grid: grid, Metric: metric, Holdout: holdout, Current: ev.Current, Bootstrap: rep.Bootstrap,
	})
	if err != nil {
		return nil, err
	}
	rep.Calibration = cal
	rep.Timings.Replay = time.Since(start)
	rep.Timings.Total = time.Since(ev.started)
	return cal, nil
}

// spaceProfile measures how flat the index's embedding space is (see
// ragd.SpaceProfile); nil when too few chunks have a vector.
func spaceProfile(ctx context.Context, st engine.Store, space string, cfg search.Config) (*ragd.SpaceProfile, error) {
	mean, n, err := st.RandomPairCosine(ctx, search.ProfilePairs)
	if err != nil {
		return nil, err
	}
	if n < search.MinProfilePairs {
		return nil, nil
	}
	return &ragd.SpaceProfile{Space: space, Pairs: n, RandomCosine: mean,
		WeightedUnreliable: cfg.WeightedUnreliable(mean), Advice: cfg.FlatSpaceAdvice(space, mean)}, nil
}

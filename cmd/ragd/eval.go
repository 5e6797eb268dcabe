package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/report"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/source"
	"github.com/ragd/ragd/store"
)

// evalSource is where the judged queries of eval and calibrate come from,
// and how differences are bootstrapped.
type evalSource struct {
	beir, split, work string
	telemetry         bool
	since, until      string
	resamples         int
	seed              uint64
	level             float64
}

// addFlags binds the source flags to fs.
func (s *evalSource) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.beir, "beir", "", "evaluate on a BEIR folder (corpus.jsonl[.gz], queries, qrels) indexed into a temporary project")
	fs.StringVar(&s.split, "split", "", "BEIR split (train, test…) when the folder has several")
	fs.StringVar(&s.work, "work", "", "keep the BEIR repository and index in this folder and reuse them in later runs (default: a temporary folder under $XDG_CACHE_HOME/ragd/eval, removed)")
	fs.BoolVar(&s.telemetry, "telemetry", false, "also judge with the votes recorded in telemetry (useful = relevant, irrelevant = not)")
	fs.StringVar(&s.since, "since", "", "with --telemetry: window start, RFC 3339 time or a duration back (90d, 12h); default all")
	fs.StringVar(&s.until, "until", "", "with --telemetry: window end (default now)")
	fs.IntVar(&s.resamples, "bootstrap", 2000, "bootstrap resamples")
	fs.Uint64Var(&s.seed, "seed", 1, "bootstrap seed")
	fs.Float64Var(&s.level, "level", 0.95, "confidence level of the intervals")
}

// evalRun is a prepared evaluation: judged queries with their candidates.
type evalRun struct {
	cfg     daemon.Config
	paths   daemon.Paths
	current search.Config
	set     *eval.Set
	// retrievals of the judged queries.
	retrievals []*eval.Retrieval
	report     *eval.Report
	started    time.Time
	cleanup    []func()
}

func (r *evalRun) close() {
	for i := len(r.cleanup) - 1; i >= 0; i-- {
		r.cleanup[i]()
	}
}

// prepareEval reads the judged queries (a golden file, --beir, --telemetry),
// opens or builds the index they are asked of, embeds the queries and
// retrieves every query's candidates once at depth (at least the current
// candidates, 100, and extra).
func (e *env) prepareEval(ctx context.Context, src evalSource, golden string, extraDepth int) (_ *evalRun, err error) {
	if src.resamples < 1 || src.level <= 0 || src.level >= 1 {
		return nil, usagef("--bootstrap %d, --level %v: want at least 1 resample and a level between 0 and 1", src.resamples, src.level)
	}
	switch {
	case src.beir != "" && (golden != "" || src.telemetry):
		return nil, usagef("--beir evaluates a BEIR folder alone: no GOLDEN file or --telemetry with it")
	case src.beir == "" && golden == "" && !src.telemetry:
		return nil, usagef("what to evaluate on: a GOLDEN file (JSON lines), --beir DIR or --telemetry")
	case src.beir == "" && (src.work != "" || src.split != ""):
		return nil, usagef("--work and --split go with --beir")
	case !src.telemetry && (src.since != "" || src.until != ""):
		return nil, usagef("--since and --until go with --telemetry")
	}
	cfg, paths, err := e.load()
	if err != nil {
		return nil, err
	}
	current, err := cfg.Search.SearchConfig()
	if err != nil {
		return nil, err
	}
	run := &evalRun{cfg: cfg, paths: paths, current: current, started: time.Now()}
	defer func() {
		if err != nil {
			run.close()
		}
	}()
	logger := newLogger(e.stderr, "warn")
	embCfg := embedding.Config{
		Host: cfg.Embedding.Host, Model: cfg.Embedding.Model, Dims: cfg.Embedding.Dims,
		BatchSize: cfg.Embedding.BatchSize, Concurrency: cfg.Embedding.Concurrency,
		IndexTimeout: cfg.Embedding.IndexTimeout.Duration, QueryTimeout: cfg.Embedding.QueryTimeout.Duration,
		DocumentPrefix: cfg.Embedding.DocumentPrefix, QueryPrefix: cfg.Embedding.QueryPrefix, Logger: logger,
	}
	space := embedding.SpaceOf(embCfg.Model, embCfg.Dims)
	rep := &eval.Report{Space: space.String(), Bootstrap: eval.Bootstrap{Resamples: src.resamples, Seed: src.seed, Level: src.level}, Warnings: []string{}}
	run.report = rep

	var st *store.Store
	var project store.Project
	var cache embedding.Cache
	if src.beir != "" {
		b, err := eval.LoadBEIR(src.beir, src.split)
		if err != nil {
			return nil, err
		}
		work := src.work
		if work == "" {
			base := filepath.Join(paths.CacheDir, "eval")
			if err := os.MkdirAll(base, 0o700); err != nil {
				return nil, err
			}
			if work, err = os.MkdirTemp(base, "beir-"+b.Name+"-"); err != nil {
				return nil, err
			}
			run.cleanup = append(run.cleanup, func() { os.RemoveAll(work) })
		}
		fmt.Fprintf(e.stderr, "indexing %s (%d documents) in %s with %s…\n", b.Corpus, b.Docs, work, space)
		bar := newProgress(e.stderr, isTerminal(e.stderr))
		idx, err := eval.OpenBEIRIndex(ctx, b, eval.BEIRIndexOptions{
			Work: work, Embedding: embCfg, Logger: logger, Progress: bar.update,
			Chunking: chunking.Options{Target: cfg.Chunking.Target, Overlap: cfg.Chunking.Overlap, Window: cfg.Chunking.Window},
		})
		bar.done()
		if err != nil {
			return nil, err
		}
		run.cleanup = append(run.cleanup, func() { idx.Close() })
		st, project, cache, run.set = idx.Store, idx.Project, idx.Store, b.Set
		rep.Dataset, rep.BEIR = b.Set.Name, &b.Report
		rep.Index = indexSummary(work, idx)
		rep.Timings.Repo, rep.Timings.Index = idx.RepoTime, idx.IndexTime
		for _, sr := range idx.Report.Scopes {
			rep.Timings.IndexEmbed += time.Duration(sr.Durations.EmbedMs) * time.Millisecond
		}
	} else {
		if _, err := os.Stat(paths.Database); err != nil {
			return nil, fmt.Errorf("no ragd database at %s (%v): register and index a project first (ragd add, ragd reindex)", paths.Database, err)
		}
		st, err = store.Open(ctx, paths.Database, store.Options{Space: space.String(), Dims: space.Dims, Logger: logger})
		if err != nil {
			return nil, err
		}
		run.cleanup = append(run.cleanup, func() { st.Close() })
		if project, err = e.storeProject(ctx, st); err != nil {
			return nil, err
		}
		run.set = &eval.Set{}
		if golden != "" {
			g, err := eval.ReadGoldenFile(golden)
			if err != nil {
				return nil, err
			}
			res, err := eval.NewProjectResolver(ctx, st, project)
			if err != nil {
				return nil, err
			}
			g.Resolve(res)
			run.set.Merge(g, "")
		}
		if src.telemetry {
			now := time.Now()
			since, err := daemon.ParseWhen(src.since, now)
			if err != nil {
				return nil, usagef("--since: %v", err)
			}
			until, err := daemon.ParseWhen(src.until, now)
			if err != nil {
				return nil, usagef("--until: %v", err)
			}
			t, err := eval.TelemetrySet(ctx, st, project.ID, since, until)
			if err != nil {
				return nil, err
			}
			if len(t.Queries) == 0 {
				run.set.Warnings = append(run.set.Warnings, "telemetry: no voted search in the window")
			}
			run.set.Merge(t, "telemetry:")
		}
		rep.Dataset = fmt.Sprintf("%s on project %s", run.set.Name, project.Name)
	}
	rep.Counts = run.set.Counts()
	rep.Warnings = append(rep.Warnings, run.set.Warnings...)
	judged := run.set.Judged()
	if len(judged) == 0 {
		return nil, fmt.Errorf("%s: no query with a relevant citation to evaluate on", run.set.Name)
	}
	if len(judged) < 30 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("only %d judged queries: means and intervals are rough (a golden set of 50 or more measures)", len(judged)))
	}

	qv, err := eval.EmbedQueries(ctx, embCfg, cache, judged)
	if err != nil {
		return nil, err
	}
	rep.QueryEmbedding, rep.Timings.QueryEmbed = qv.Stats, qv.Stats.Elapsed

	rep.Depth = max(100, current.Candidates, extraDepth)
	searcher := &search.Searcher{Store: st, Embedder: qv, Config: current, Logger: logger}
	start := time.Now()
	step := max(1, len(judged)/10)
	run.retrievals, err = eval.Retrieve(ctx, searcher, judged, eval.RetrieveOptions{
		ProjectID: project.ID, Depth: rep.Depth,
		Progress: func(done, total int) {
			if done%step == 0 || done == total {
				fmt.Fprintf(e.stderr, "retrieve: %d/%d queries\n", done, total)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	rep.Timings.Retrieve = time.Since(start)
	rep.VectorUnavailable, rep.VectorReason = eval.VectorUnavailable(run.retrievals)
	return run, nil
}

// indexSummary describes the BEIR index.
func indexSummary(work string, idx *eval.BEIRIndex) *eval.IndexSummary {
	s := &eval.IndexSummary{Work: work, Commit: idx.Repo.Commit, Docs: idx.Repo.Docs, Complete: idx.Report.Complete, Reused: true}
	for _, sr := range idx.Report.Scopes {
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

// storeProject resolves --project, or the git repository containing the
// current directory, in st.
func (e *env) storeProject(ctx context.Context, st *store.Store) (store.Project, error) {
	want := e.project
	if want == "" {
		wd, err := os.Getwd()
		if err != nil {
			return store.Project{}, err
		}
		root, err := source.Root(wd)
		if err != nil {
			return store.Project{}, usagef("no --project given and %s is not inside a git repository", wd)
		}
		want = root
	} else if abs, err := filepath.Abs(want); err == nil && fileExists(want) {
		if root, err := source.Root(abs); err == nil {
			want = root
		}
	}
	p, err := st.Project(ctx, want)
	if errors.Is(err, store.ErrNotFound) {
		return p, fmt.Errorf("project %q is not registered: run `ragd add %s`", want, want)
	}
	return p, err
}

// jsonList is a repeatable flag of JSON values.
type jsonList []string

func (j *jsonList) String() string     { return strings.Join(*j, " ") }
func (j *jsonList) Set(v string) error { *j = append(*j, v); return nil }

// customFlags are the settings of an extra mode given on the command line.
type customFlags struct {
	configJSON jsonList
	cfg        search.Config
	fusion     string
	norm       string
}

func (c *customFlags) addFlags(fs *flag.FlagSet) {
	fs.Var(&c.configJSON, "config-json", `an extra mode: search settings as JSON over the current ones, e.g. '{"vectorWeight":0.3,"lexicalWeight":0.7,"normalization":"minmax","fill":true,"candidates":100}' (repeatable)`)
	fs.StringVar(&c.fusion, "fusion", "", "an extra mode with this fusion (weighted or rrf)")
	fs.Float64Var(&c.cfg.VectorWeight, "vector-weight", 0, "an extra mode with this vector weight")
	fs.Float64Var(&c.cfg.LexicalWeight, "lexical-weight", 0, "an extra mode with this lexical weight")
	fs.Float64Var(&c.cfg.Threshold, "threshold", 0, "an extra mode with this threshold")
	fs.IntVar(&c.cfg.RRFK, "rrf-k", 0, "an extra mode with this RRF k")
	fs.IntVar(&c.cfg.Candidates, "candidates", 0, "an extra mode with this many candidates per signal")
	fs.StringVar(&c.norm, "normalization", "", "an extra mode with this lexical normalisation (saturate, max, minmax)")
	fs.BoolVar(&c.cfg.Fill, "fill", false, "an extra mode with fill")
}

// modes returns the extra modes: each --config-json over current, then one
// "custom" mode from the individual flags set, over current.
func (c *customFlags) modes(fs *flag.FlagSet, current search.Config) ([]eval.Mode, error) {
	var out []eval.Mode
	for i, raw := range c.configJSON {
		cfg := current
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cfg); err != nil {
			return nil, usagef("--config-json %s: %v", raw, err)
		}
		if err := cfg.Validate(); err != nil {
			return nil, usagef("--config-json %s: %v", raw, err)
		}
		name := "custom"
		if len(c.configJSON) > 1 {
			name = fmt.Sprintf("custom%d", i+1)
		}
		out = append(out, eval.Mode{Name: name, Signals: eval.SignalsBoth, Config: cfg})
	}
	cfg, set := current, false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "fusion":
			cfg.Fusion = search.Fusion(c.fusion)
		case "vector-weight":
			cfg.VectorWeight = c.cfg.VectorWeight
		case "lexical-weight":
			cfg.LexicalWeight = c.cfg.LexicalWeight
		case "threshold":
			cfg.Threshold = c.cfg.Threshold
		case "rrf-k":
			cfg.RRFK = c.cfg.RRFK
		case "candidates":
			cfg.Candidates = c.cfg.Candidates
		case "normalization":
			cfg.Normalization = search.Normalization(c.norm)
		case "fill":
			cfg.Fill = c.cfg.Fill
		default:
			return // not a settings flag
		}
		set = true
	})
	if set {
		if err := cfg.Validate(); err != nil {
			return nil, usagef("extra mode: %v", err)
		}
		name := "custom"
		if len(out) > 0 {
			name = fmt.Sprintf("custom%d", len(out)+1)
		}
		out = append(out, eval.Mode{Name: name, Signals: eval.SignalsBoth, Config: cfg})
	}
	return out, nil
}

func cmdEval(ctx context.Context, e *env, args []string) error {
	fs := e.flags("eval")
	e.projectFlag(fs)
	var src evalSource
	src.addFlags(fs)
	var custom customFlags
	custom.addFlags(fs)
	html := htmlFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("eval takes one GOLDEN file, got %d arguments", len(pos))
	}
	golden := ""
	if len(pos) == 1 {
		golden = pos[0]
	}
	cfg, _, err := e.load()
	if err != nil {
		return err
	}
	current, err := cfg.Search.SearchConfig()
	if err != nil {
		return err
	}
	extra, err := custom.modes(fs, current)
	if err != nil {
		return err
	}
	depth := 0
	for _, m := range extra {
		depth = max(depth, m.Config.Candidates)
	}
	run, err := e.prepareEval(ctx, src, golden, depth)
	if err != nil {
		return err
	}
	defer run.close()
	rep := run.report

	start := time.Now()
	modes := append(eval.StandardModes(run.current, rep.Depth), extra...)
	rep.Modes = eval.Evaluate(run.retrievals, modes, 0)
	rep.Comparisons = eval.CompareModes(rep.Modes, "lexical", eval.Metrics, rep.Bootstrap)
	rep.Detail(run.retrievals)
	rep.Timings.Replay = time.Since(start)
	rep.Timings.Total = time.Since(run.started)
	return e.finishEval(rep, nil, *html)
}

// finishEval prints rep (or, with --json, out when not nil: rep with more
// fields), writes its page to html when set, and fails when no query could
// be embedded: then only the lexical half was measured.
func (e *env) finishEval(rep *eval.Report, out any, html string) error {
	if out == nil {
		out = rep
	}
	if err := e.printReport(html, out, rep.WriteTable, func(w io.Writer) error { return report.EvalHTML(w, rep) }); err != nil {
		return err
	}
	if rep.VectorUnavailable > 0 && rep.VectorUnavailable == rep.Counts.Judged {
		fmt.Fprintf(e.stderr, "ragd: the vector half was unavailable for every query (%s): only the lexical half was measured\n", rep.VectorReason)
		return errSilent
	}
	return nil
}

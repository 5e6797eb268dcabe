package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/report"
	"github.com/ragd/ragd/store"
)

// evalSource is where the judged queries of eval and calibrate come from,
// and how differences are bootstrapped.
type evalSource struct {
	beir, split, work string
	database, repo    string
	telemetry         bool
	since, until      string
	resamples         int
	quantizeFrom      int
	vectorShare       float64
	seed              uint64
	level             float64
}

// addFlags binds the source flags to fs.
func (s *evalSource) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&s.beir, "beir", "", "evaluate on a BEIR folder (corpus.jsonl[.gz], queries, qrels) indexed into a temporary project")
	fs.StringVar(&s.split, "split", "", "BEIR split (train, test…) when the folder has several")
	fs.StringVar(&s.work, "work", "", "keep the BEIR repository and index in this folder and reuse them in later runs (default: a temporary folder under $XDG_CACHE_HOME/ragd/eval, removed)")
	fs.StringVar(&s.database, "database", "", "evaluate in this database: a SQLite file or a postgres:// URL (default: [daemon] database; with --beir, a file in --work)")
	fs.StringVar(&s.repo, "repo", "", "with GOLDEN and --database: first index the docs and ADRs of the git repository DIR into the database, as a project named after DIR, and evaluate on it")
	fs.BoolVar(&s.telemetry, "telemetry", false, "also judge with the votes recorded in telemetry (useful = relevant, irrelevant = not)")
	fs.StringVar(&s.since, "since", "", "with --telemetry: window start, RFC 3339 time or a duration back (90d, 12h); default all")
	fs.StringVar(&s.until, "until", "", "with --telemetry: window end (default now)")
	fs.IntVar(&s.resamples, "bootstrap", 2000, "bootstrap resamples")
	fs.IntVar(&s.quantizeFrom, "quantize-from", 0, "search projects of at least this many vectors through the one-bit codes (default: the store's 20000; 1 = every project, to measure what the codes cost)")
	fs.Float64Var(&s.vectorShare, "vector-share", 0, "search as if only this share (0..1) of the chunks had a vector yet, the rest waiting for the background fill (a fixed sample by chunk id; default: all)")
	fs.Uint64Var(&s.seed, "seed", 1, "bootstrap seed")
	fs.Float64Var(&s.level, "level", 0.95, "confidence level of the intervals")
}

// options checks the source flags and returns the evaluation's options
// with the configuration's settings, the queries' project resolved as
// --project or the current directory.
func (s *evalSource) options(e *env, golden string, depth int) (eval.Options, daemon.Paths, error) {
	if s.quantizeFrom < 0 {
		return eval.Options{}, daemon.Paths{}, usagef("--quantize-from %d: want 1 or more (0: the store's default)", s.quantizeFrom)
	}
	if s.vectorShare < 0 || s.vectorShare > 1 {
		return eval.Options{}, daemon.Paths{}, usagef("--vector-share %v: want 0..1", s.vectorShare)
	}
	if s.resamples < 1 || s.level <= 0 || s.level >= 1 {
		return eval.Options{}, daemon.Paths{}, usagef("--bootstrap %d, --level %v: want at least 1 resample and a level between 0 and 1", s.resamples, s.level)
	}
	switch {
	case s.beir != "" && (golden != "" || s.telemetry):
		return eval.Options{}, daemon.Paths{}, usagef("--beir evaluates a BEIR folder alone: no GOLDEN file or --telemetry with it")
	case s.beir == "" && golden == "" && !s.telemetry:
		return eval.Options{}, daemon.Paths{}, usagef("what to evaluate on: a GOLDEN file (JSON lines), --beir DIR or --telemetry")
	case s.beir == "" && (s.work != "" || s.split != ""):
		return eval.Options{}, daemon.Paths{}, usagef("--work and --split go with --beir")
	case !s.telemetry && (s.since != "" || s.until != ""):
		return eval.Options{}, daemon.Paths{}, usagef("--since and --until go with --telemetry")
	case s.repo != "" && (s.beir != "" || s.telemetry || s.database == "" || e.project != ""):
		return eval.Options{}, daemon.Paths{}, usagef("--repo indexes a repository into a --database of its own, for a GOLDEN file: not with --beir, --telemetry or --project, and --database is required")
	}
	cfg, paths, err := e.load()
	if err != nil {
		return eval.Options{}, paths, err
	}
	current, err := cfg.Search.SearchConfig()
	if err != nil {
		return eval.Options{}, paths, err
	}
	logger := newLogger(e.stderr, "warn")
	opt := eval.Options{
		Golden: golden, BEIR: s.beir, Split: s.split, Work: s.work, CacheDir: paths.CacheDir,
		Telemetry: s.telemetry, Database: s.database, Repo: s.repo,
		Embedding: cfg.Embedding.Service(logger),
		Chunking:  cfg.Chunking.Options(),
		Search:    current,
		// [search] prune_frequent_terms: compare rankings with and without.
		KeepFrequentTerms: !cfg.Search.PruneFrequentTerms,
		// [search] vectors: exact or quantized, as the daemon searches.
		Vectors:      store.VectorMode(cfg.Search.Vectors),
		QuantizeFrom: s.quantizeFrom,
		VectorShare:  s.vectorShare,
		Depth:        depth,
		Bootstrap:    eval.Bootstrap{Resamples: s.resamples, Seed: s.seed, Level: s.level},
		Logger:       logger,
	}
	if s.beir != "" || s.repo != "" {
		return opt, paths, nil
	}
	if opt.Database == "" {
		opt.Database = paths.Database
	}
	if opt.Project, err = e.projectRef(); err != nil {
		return opt, paths, err
	}
	if s.telemetry {
		now := time.Now()
		if opt.Since, err = daemon.ParseWhen(s.since, now); err != nil {
			return opt, paths, usagef("--since: %v", err)
		}
		if opt.Until, err = daemon.ParseWhen(s.until, now); err != nil {
			return opt, paths, usagef("--until: %v", err)
		}
	}
	return opt, paths, nil
}

// prepare runs eval.Prepare with the steps and the indexing progress on
// standard error.
func (e *env) prepare(ctx context.Context, opt eval.Options) (*eval.Evaluation, error) {
	bar := newProgress(e.stderr, isTerminal(e.stderr))
	opt.Log = bar
	opt.Progress = func(p domain.Progress) { bar.update(api.FromProgress(p)) }
	defer bar.done()
	return eval.Prepare(ctx, opt)
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

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/search"
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

// options checks the source flags and returns the evaluation's options
// with the configuration's settings, the queries' project resolved as
// --project or the current directory.
func (s *evalSource) options(e *env, golden string, depth int) (eval.Options, daemon.Paths, error) {
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
		Telemetry: s.telemetry, Database: paths.Database,
		Embedding: embedding.Config{
			Host: cfg.Embedding.Host, Model: cfg.Embedding.Model, Dims: cfg.Embedding.Dims,
			BatchSize: cfg.Embedding.BatchSize, Concurrency: cfg.Embedding.Concurrency,
			IndexTimeout: cfg.Embedding.IndexTimeout.Duration, QueryTimeout: cfg.Embedding.QueryTimeout.Duration,
			DocumentPrefix: cfg.Embedding.DocumentPrefix, QueryPrefix: cfg.Embedding.QueryPrefix, Logger: logger,
		},
		Chunking:  chunking.Options{Target: cfg.Chunking.Target, Overlap: cfg.Chunking.Overlap, Window: cfg.Chunking.Window},
		Search:    current,
		Depth:     depth,
		Bootstrap: eval.Bootstrap{Resamples: s.resamples, Seed: s.seed, Level: s.level},
		Logger:    logger,
	}
	if s.beir != "" {
		return opt, paths, nil
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
	opt.Log, opt.Progress = bar, bar.update
	defer bar.done()
	return eval.Prepare(ctx, opt)
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
	opt, _, err := src.options(e, golden, 0)
	if err != nil {
		return err
	}
	extra, err := custom.modes(fs, opt.Search)
	if err != nil {
		return err
	}
	for _, m := range extra {
		opt.Depth = max(opt.Depth, m.Config.Candidates)
	}
	ev, err := e.prepare(ctx, opt)
	if err != nil {
		return err
	}
	defer ev.Close()
	return e.finishEval(ev.Evaluate(extra), nil)
}

// finishEval prints rep (or, with --json, out when not nil: rep with more
// fields) and fails when no query could be embedded: then only the lexical
// half was measured.
func (e *env) finishEval(rep *eval.Report, out any) error {
	if e.json {
		if out == nil {
			out = rep
		}
		if err := e.printJSON(out); err != nil {
			return err
		}
	} else if err := rep.WriteTable(e.stdout); err != nil {
		return err
	}
	if rep.VectorUnavailable > 0 && rep.VectorUnavailable == rep.Counts.Judged {
		fmt.Fprintf(e.stderr, "ragd: the vector half was unavailable for every query (%s): only the lexical half was measured\n", rep.VectorReason)
		return errSilent
	}
	return nil
}

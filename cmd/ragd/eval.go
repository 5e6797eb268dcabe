package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/search"
)

var evalCommand = command{
	name:    "eval",
	summary: "retrieval quality on judged queries: eval GOLDEN | --beir DIR | --telemetry [--work DIR]",
	usage: `Usage: ragd eval GOLDEN [flags]
       ragd eval --telemetry [GOLDEN] [flags]
       ragd eval --beir DIR [flags]

Measure retrieval quality (nDCG@10, recall@6, recall@10, recall@100, MRR@10) of the
lexical and the vector half alone and of each fusion, on judged queries:
a golden file of the project (JSON lines naming the files, sections,
sessions or messages a query should find), the votes recorded in telemetry,
or a BEIR folder indexed into a project of its own. Each query's candidates
are retrieved once and every mode is a replay of them; differences between
modes come with paired bootstrap intervals. Settings flags (--fusion,
--vector-weight, …, or --config-json) add modes over the current settings.
Nothing is recorded in telemetry. It fails (exit 1) when no query could be
embedded: then only the lexical half was measured.
`,
	examples: `  ragd eval golden.jsonl
  ragd eval --telemetry --since 90d
  ragd eval --beir ~/beir/scifact --work ~/.cache/ragd/scifact   # keep the index for the next run
  ragd eval golden.jsonl --fusion rrf --rrf-k 30
  ragd eval golden.jsonl --config-json '{"vectorWeight":0.3,"lexicalWeight":0.7}' --json
`,
	run: cmdEval,
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
	fs.StringVar(&c.fusion, "fusion", "", "an extra mode with this fusion: "+api.FusionChoices())
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
	fs := e.flags()
	e.projectFlag(fs)
	var src evalSource
	src.addFlags(fs)
	var custom customFlags
	custom.addFlags(fs)
	html := htmlFlag(fs)
	pos, err := e.parse(fs, args)
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
	rep := ev.Evaluate(extra)
	rep.Detail(ev.Retrievals)
	return e.finishEval(rep, nil, *html)
}

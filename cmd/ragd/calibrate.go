package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/eval"
)

var calibrateCommand = command{
	name:    "calibrate",
	summary: "search fusion settings on judged queries: calibrate GOLDEN | --beir DIR | --telemetry [--holdout 0.2] [--apply]",
	usage: `Usage: ragd calibrate GOLDEN [flags]
       ragd calibrate --telemetry [GOLDEN] [flags]
       ragd calibrate --beir DIR [flags]

Search a grid of fusion settings (fusion, weights, normalisation,
threshold, RRF k, candidates, fill) for the one scoring best on judged
queries (the sources of ragd eval), compared with the current settings.
--holdout keeps a share of the queries out of the search to check the
choice generalises. Nothing changes without --apply, which writes the best
settings to [search] of the configuration file; restart the daemon then.
`,
	examples: `  ragd calibrate golden.jsonl
  ragd calibrate --telemetry --holdout 0.2 --metric recall@6
  ragd calibrate golden.jsonl --apply && ragd service stop && ragd service start
`,
	run: cmdCalibrate,
}

func cmdCalibrate(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	var src evalSource
	src.addFlags(fs)
	metric := fs.String("metric", eval.NDCG10, "objective: ndcg@10, recall@6, recall@10, recall@100 or mrr@10")
	holdout := fs.Float64("holdout", 0, "share of queries held out of the search (0..0.9), split by query-id hash, to check the chosen settings generalise")
	apply := fs.Bool("apply", false, "write the best settings to the [search] section of the configuration file (then restart the daemon)")
	html := htmlFlag(fs)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("calibrate takes one GOLDEN file, got %d arguments", len(pos))
	}
	if !eval.ValidMetric(*metric) {
		return usagef("--metric %q: want ndcg@10, recall@6, recall@10, recall@100 or mrr@10", *metric)
	}
	if *holdout < 0 || *holdout > 0.9 {
		return usagef("--holdout %v: want 0..0.9", *holdout)
	}
	golden := ""
	if len(pos) == 1 {
		golden = pos[0]
	}
	grid := eval.DefaultGrid()
	opt, paths, err := src.options(e, golden, grid.MaxDepth())
	if err != nil {
		return err
	}
	ev, err := e.prepare(ctx, opt)
	if err != nil {
		return err
	}
	defer ev.Close()
	cal, err := ev.Calibrate(grid, *metric, *holdout)
	if err != nil {
		return err
	}
	rep := ev.Report

	out := struct {
		*eval.Report
		ConfigFile string `json:"configFile"`
		Applied    bool   `json:"applied"`
		Note       string `json:"note"`
	}{Report: rep, ConfigFile: paths.Config}
	switch {
	case cal.Best.Config == ev.Current:
		out.Note = "the current settings are the best found: nothing to apply"
	case !*apply:
		out.Note = fmt.Sprintf("nothing applied: add --apply to write the best settings to [search] of %s, then restart the daemon", paths.Config)
	default:
		if err := daemon.WriteSearchConfig(paths.Config, cal.Best.Config); err != nil {
			return err
		}
		out.Applied = true
		out.Note = fmt.Sprintf("applied: wrote the best settings to [search] of %s. Restart the daemon (ragd service stop; ragd service start, "+
			"or restart ragd serve): it reads its configuration at start, and searches, with the weights frozen in their telemetry rows, "+
			"use the new settings only from then on", paths.Config)
	}
	if err := e.finishEval(rep, out, *html); err != nil {
		return err
	}
	if !e.json {
		fmt.Fprintf(e.textOut(*html), "\n%s\n", out.Note)
	}
	return nil
}

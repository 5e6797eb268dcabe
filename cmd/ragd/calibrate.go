package main

import (
	"context"
	"fmt"
	"time"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/eval"
)

func cmdCalibrate(ctx context.Context, e *env, args []string) error {
	fs := e.flags("calibrate")
	e.projectFlag(fs)
	var src evalSource
	src.addFlags(fs)
	metric := fs.String("metric", eval.NDCG10, "objective: ndcg@10, recall@6, recall@100 or mrr@10")
	holdout := fs.Float64("holdout", 0, "share of queries held out of the search (0..0.9), split by query-id hash, to check the chosen settings generalise")
	apply := fs.Bool("apply", false, "write the best settings to the [search] section of the configuration file (then restart the daemon)")
	html := htmlFlag(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("calibrate takes one GOLDEN file, got %d arguments", len(pos))
	}
	if !eval.ValidMetric(*metric) {
		return usagef("--metric %q: want ndcg@10, recall@6, recall@100 or mrr@10", *metric)
	}
	if *holdout < 0 || *holdout > 0.9 {
		return usagef("--holdout %v: want 0..0.9", *holdout)
	}
	golden := ""
	if len(pos) == 1 {
		golden = pos[0]
	}
	grid := eval.DefaultGrid()
	run, err := e.prepareEval(ctx, src, golden, grid.MaxDepth())
	if err != nil {
		return err
	}
	defer run.close()
	rep := run.report

	start := time.Now()
	cal, err := eval.Calibrate(run.retrievals, eval.CalibrateOptions{
		Grid: grid, Metric: *metric, Holdout: *holdout, Current: run.current, Bootstrap: rep.Bootstrap,
	})
	if err != nil {
		return err
	}
	rep.Calibration = cal
	rep.Timings.Replay = time.Since(start)
	rep.Timings.Total = time.Since(run.started)

	out := struct {
		*eval.Report
		ConfigFile string `json:"configFile"`
		Applied    bool   `json:"applied"`
		Note       string `json:"note"`
	}{Report: rep, ConfigFile: run.paths.Config}
	switch {
	case cal.Best.Config == run.current:
		out.Note = "the current settings are the best found: nothing to apply"
	case !*apply:
		out.Note = fmt.Sprintf("nothing applied: add --apply to write the best settings to [search] of %s, then restart the daemon", run.paths.Config)
	default:
		if err := daemon.WriteSearchConfig(run.paths.Config, cal.Best.Config); err != nil {
			return err
		}
		out.Applied = true
		out.Note = fmt.Sprintf("applied: wrote the best settings to [search] of %s. Restart the daemon (ragd service stop; ragd service start, "+
			"or restart ragd serve): it reads its configuration at start, and searches, with the weights frozen in their telemetry rows, "+
			"use the new settings only from then on", run.paths.Config)
	}
	if err := e.finishEval(rep, out, *html); err != nil {
		return err
	}
	if !e.json {
		fmt.Fprintf(e.textOut(*html), "\n%s\n", out.Note)
	}
	return nil
}

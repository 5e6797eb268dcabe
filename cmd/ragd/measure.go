package main

import (
	"context"
	"io"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/report"
)

var measureCommand = command{
	name:    "measure",
	summary: "precision@k, latency and degradation over a window: measure [--since 7d]",
	usage: `Usage: ragd measure [flags]

Report, from telemetry, precision@k of the voted searches, search latency
and how many searches were degraded (lexical only) over a time window, per
project or for one. Evaluation runs are never recorded, so they never count
here. It fails (exit 1) when every search of the window ran without a query
vector: that measured the lexical half, not the hybrid search.
`,
	examples: `  ragd measure
  ragd measure --since 30d --project billing
  ragd measure --since 2026-01-01T00:00:00Z --until 2026-02-01T00:00:00Z --k 3 --json
`,
	run: cmdMeasure,
}

func cmdMeasure(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	project := fs.String("project", "", "one project (default: all)")
	since := fs.String("since", "7d", "window start: RFC 3339 time or a duration back (7d, 12h)")
	until := fs.String("until", "", "window end (default: now)")
	k := fs.Int("k", 0, "the k of precision@k (default 6)")
	html := htmlFlag(fs)
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	q := api.MeasureQuery{Since: *since, Until: *until, K: *k}
	if *project != "" {
		e.project = *project
		id, err := e.projectID(ctx, c)
		if err != nil {
			return err
		}
		q.Project = id
	}
	rep, err := c.Measure(ctx, q)
	if err != nil {
		return err
	}
	if err := e.printReport(*html, rep, func(w io.Writer) error { return report.MeasureText(w, rep) },
		func(w io.Writer) error { return report.MeasureHTML(w, rep) }); err != nil {
		return err
	}
	if rep.Failed { // the table and the JSON say so: the exit status too
		return errSilent
	}
	return nil
}

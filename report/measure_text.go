package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/words"
	"github.com/ragd/ragd/search"
)

// MeasureText writes r as tables for people: one row per weight set and a
// total, the rank distribution of useful votes, the slowest and zero-hit
// queries, then the verdict.
func MeasureText(w io.Writer, r *api.MeasureReport) error {
	var b strings.Builder
	project := "all projects"
	if r.Project != "" {
		project = "project " + r.Project
	}
	fmt.Fprintf(&b, "searches from %s to %s, %s (evaluation runs excluded)\n\n",
		r.Since.Format(time.RFC3339), r.Until.Format(time.RFC3339), project)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "weights\tsearches\tdegraded\tzero-hit\tp50 ms\tp95 ms\tprecision@%d\tjudged\tvotes\n", r.K)
	row := func(name string, s api.MeasureStats) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", name, s.Searches,
			share(s.Degraded, s.DegradedShare), share(s.ZeroHit, s.ZeroHitShare),
			ms(s.LatencyP50Ms), ms(s.LatencyP95Ms), precision(s), s.Judged, s.Votes)
	}
	for _, g := range r.Groups {
		row(search.GroupLabel(g.Weights), g.MeasureStats)
	}
	row("total", r.Total)
	tw.Flush()

	b.WriteString("\nuseful votes by rank: ")
	if len(r.Total.UsefulRanks) == 0 {
		b.WriteString("none")
	}
	for i, rc := range r.Total.UsefulRanks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "#%d×%d", rc.Rank, rc.Count)
	}
	b.WriteString("\n")
	if len(r.Slowest) > 0 {
		b.WriteString("\nslowest searches:\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, l := range r.Slowest {
			degraded := ""
			if l.Degraded {
				degraded = "degraded"
			}
			fmt.Fprintf(tw, "  %s ms\t%s\t%s\t%s\t%s\n", strconv.FormatFloat(l.LatencyMs, 'f', 1, 64),
				l.At.Format(time.RFC3339), words.Plural(l.Hits, "hit"), degraded, oneLine(l.Query))
		}
		tw.Flush()
	}
	if len(r.ZeroHitQueries) > 0 {
		b.WriteString("\nqueries that found nothing:\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, z := range r.ZeroHitQueries {
			fmt.Fprintf(tw, "  %d×\tlast %s\t%s\n", z.Count, z.Last.Format(time.RFC3339), oneLine(z.Query))
		}
		tw.Flush()
	}
	if r.Failed {
		fmt.Fprintf(&b, "\nFAILED: %s\n", r.FailReason)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// maxQueryRunes is the longest query a text table prints whole: a line of
// a terminal.
const maxQueryRunes = 80

// oneLine quotes a query on one line, cut to maxQueryRunes: a query holds
// anything a person typed, newlines and tabs too.
func oneLine(q string) string {
	r := []rune(q)
	if len(r) > maxQueryRunes {
		return strconv.Quote(string(r[:maxQueryRunes])) + "…"
	}
	return strconv.Quote(q)
}

func share(n int, s *float64) string {
	if s == nil {
		return "—"
	}
	return fmt.Sprintf("%d (%.0f%%)", n, *s*100)
}

func ms(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

func precision(s api.MeasureStats) string {
	if s.PrecisionAtK == nil {
		return "not measured"
	}
	return fmt.Sprintf("%.2f (%d/%d)", *s.PrecisionAtK, s.Useful, s.Judged)
}

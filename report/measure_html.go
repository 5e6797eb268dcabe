package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/search"
)

// Chart sizes, in CSS pixels: two charts side by side on a laptop screen
// and on an A4 page.
const (
	chartW = 536
	chartH = 260
)

// seriesColours is the number of distinct series colours (s0…s6).
const seriesColours = 7

// MeasureHTML writes r as one self-contained HTML page with charts.
func MeasureHTML(w io.Writer, r *api.MeasureReport) error {
	project := "all projects"
	if r.Project != "" {
		project = "project " + r.Project
	}
	p := &page{
		Title: "ragd measure",
		Subtitle: fmt.Sprintf("Searches from %s to %s (UTC), %s; evaluation runs excluded; precision@%d from people's votes.",
			r.Since.Format("2006-01-02 15:04"), r.Until.Format("2006-01-02 15:04"), project, r.K),
	}
	if r.Failed {
		p.Notes = append(p.Notes, note{Text: "FAILED: " + r.FailReason, Bad: true})
	}
	if r.Total.Searches == 0 {
		p.Notes = append(p.Notes, note{Text: "No search in this window: every chart is empty, nothing was measured."})
	}
	p.Sections = []section{
		{Heading: "Weight sets", Intro: "One row per frozen weight set, oldest first: a calibration compares a set with the next.",
			Tables: []table{measureSummary(r)}},
		{Heading: "Use over time", Figures: []figure{
			{SVG: searchesChart(r), Caption: "Searches per " + bucketName(r) + ", split into hybrid searches and degraded ones " +
				"(no query vector: the lexical half only); the label above a bar is its degraded share."},
			{SVG: latencyChart(r), Caption: "Search latency per " + bucketName(r) + ": nearest-rank p50 and p95. " +
				"Hatched: no search, so no latency (not zero)."},
		}},
		{Heading: "Quality", Figures: []figure{
			{SVG: precisionChart(r), Caption: fmt.Sprintf("precision@%d per %s and weight set: useful votes over judged votes on hits of rank ≤ %d, "+
				"with 95%% Wilson intervals; the small number is the judged votes. Hatched: nothing judged (unknown, not zero).", r.K, bucketName(r), r.K)},
			{SVG: ranksChart(r), Caption: fmt.Sprintf("Ranks of the hits voted useful, every rank: useful hits beyond rank %d "+
				"say the weights, not the index, are wrong (orange: beyond k).", r.K)},
		}},
		{Heading: "Searches to look at", Tables: []table{slowestTable(r), zeroHitTable(r)}},
	}
	return p.write(w)
}

func bucketName(r *api.MeasureReport) string {
	if r.BucketDays > 1 {
		return fmt.Sprintf("%d days", r.BucketDays)
	}
	return "day"
}

// setName names weight set i in tables and legends.
func setName(i int) string { return fmt.Sprintf("set %d", i+1) }

func measureSummary(r *api.MeasureReport) table {
	t := table{Head: []string{"weights", "", "searches", "degraded", "zero-hit", "p50 ms", "p95 ms", fmt.Sprintf("precision@%d", r.K), "judged", "votes"}}
	row := func(name, label string, s api.MeasureStats) []cell {
		return []cell{{Text: name}, userCell(label), numCell(strconv.Itoa(s.Searches)),
			numCell(share(s.Degraded, s.DegradedShare)), numCell(share(s.ZeroHit, s.ZeroHitShare)),
			numCell(ms(s.LatencyP50Ms)), numCell(ms(s.LatencyP95Ms)), numCell(precision(s)),
			numCell(strconv.Itoa(s.Judged)), numCell(strconv.Itoa(s.Votes))}
	}
	for i, g := range r.Groups {
		t.Rows = append(t.Rows, row(setName(i), search.GroupLabel(g.Weights), g.MeasureStats))
	}
	t.Rows = append(t.Rows, row("total", "", r.Total))
	return t
}

func slowestTable(r *api.MeasureReport) table {
	t := table{Caption: "Slowest searches", Head: []string{"latency ms", "at (UTC)", "hits", "vector", "weights", "query"},
		Empty: "no search in this window"}
	for _, l := range r.Slowest {
		vector := "yes"
		if l.Degraded {
			vector = "degraded"
		}
		t.Rows = append(t.Rows, []cell{numCell(strconv.FormatFloat(l.LatencyMs, 'f', 1, 64)), {Text: l.At.Format("2006-01-02 15:04:05")},
			numCell(strconv.Itoa(l.Hits)), {Text: vector, Bad: l.Degraded}, {Text: setName(l.Group)}, userCell(l.Query)})
	}
	return t
}

func zeroHitTable(r *api.MeasureReport) table {
	t := table{Caption: "Queries that found nothing", Head: []string{"times", "last (UTC)", "query"},
		Empty: "none: every search of the window found something"}
	for _, z := range r.ZeroHitQueries {
		t.Rows = append(t.Rows, []cell{numCell(strconv.Itoa(z.Count)), {Text: z.Last.Format("2006-01-02 15:04")}, userCell(z.Query)})
	}
	return t
}

// timeBands is the x axis shared by the series charts.
func timeBands(c *svg, r *api.MeasureReport, pad float64) (Band, []string, int) {
	b := Band{N: len(r.Series), R0: c.left, R1: c.right, Pad: pad}
	labels := make([]string, len(r.Series))
	for i, s := range r.Series {
		labels[i] = s.Start.Format("Jan 2")
	}
	// About eight labels fit along a chart without touching.
	return b, labels, int(math.Ceil(float64(len(labels)) / 8))
}

func timeAxisLabel(r *api.MeasureReport) string {
	if r.BucketDays > 1 {
		return fmt.Sprintf("%d-day bucket, by first day (UTC)", r.BucketDays)
	}
	return "day (UTC)"
}

// searchesChart is searches per bucket, stacked: hybrid, then degraded.
func searchesChart(r *api.MeasureReport) template.HTML {
	c := newSVG("searches", chartW, chartH, 56, 34, 12, 40, "Searches per "+bucketName(r)+", hybrid and degraded")
	c.legend(c.left, 16, []legendItem{{"box", "good", "hybrid (query vector)"}, {"box", "bad", "degraded (lexical only)"}})
	b, labels, every := timeBands(c, r, 0.2)
	most := 0
	for _, s := range r.Series {
		most = max(most, s.Searches)
	}
	lo, hi := NiceDomain(0, float64(most), 5, true)
	y := Linear{lo, hi, c.bottom, c.top}
	c.yAxis(y, 5, "searches", nil)
	if most == 0 {
		c.noData(c.left, c.top, c.right, c.bottom, "no search in this window")
	}
	for i, s := range r.Series {
		x, w := b.Start(i), b.Width()
		hybrid := s.Searches - s.Degraded
		when := s.Start.Format("Jan 2")
		if hybrid > 0 {
			c.rect(x, y.Map(float64(hybrid)), w, y.Map(0)-y.Map(float64(hybrid)), "good", "", fmt.Sprintf("%s: %d hybrid searches", when, hybrid))
		}
		if s.Degraded > 0 {
			c.rect(x, y.Map(float64(s.Searches)), w, y.Map(float64(hybrid))-y.Map(float64(s.Searches)), "bad", "",
				fmt.Sprintf("%s: %d degraded searches", when, s.Degraded))
			if s.DegradedShare != nil && w >= 22 {
				c.text(b.Centre(i), y.Map(float64(s.Searches))-3, "bar-label", "middle", fmt.Sprintf("%.0f%%", *s.DegradedShare*100))
			}
		}
	}
	c.bandAxis(b, labels, every, timeAxisLabel(r))
	return c.HTML()
}

// latencyChart is p50 and p95 per bucket; buckets without searches are
// hatched.
func latencyChart(r *api.MeasureReport) template.HTML {
	c := newSVG("latency", chartW, chartH, 56, 34, 12, 40, "Search latency p50 and p95 per "+bucketName(r))
	c.legend(c.left, 16, []legendItem{{"line", "ln s0", "p50"}, {"dashed", "ln s1", "p95"}})
	b, labels, every := timeBands(c, r, 0)
	var vals []float64
	for _, s := range r.Series {
		if s.LatencyP95Ms != nil {
			vals = append(vals, *s.LatencyP95Ms)
		}
		if s.LatencyP50Ms != nil {
			vals = append(vals, *s.LatencyP50Ms)
		}
	}
	_, top, ok := Extent(vals...)
	lo, hi := NiceDomain(0, top, 5, true)
	y := Linear{lo, hi, c.bottom, c.top}
	c.yAxis(y, 5, "latency (ms)", nil)
	if !ok {
		c.noData(c.left, c.top, c.right, c.bottom, "no search in this window")
	}
	p50 := make([]Point, len(r.Series))
	p95 := make([]Point, len(r.Series))
	for i, s := range r.Series {
		x := b.Centre(i)
		p50[i], p95[i] = Point{x, mapOpt(y, s.LatencyP50Ms)}, Point{x, mapOpt(y, s.LatencyP95Ms)}
		if s.LatencyP50Ms == nil && ok {
			c.noData(b.Start(i), c.top, b.Start(i)+b.Width(), c.bottom, "")
		}
	}
	c.path(p50, "ln s0")
	c.path(p95, "ln s1 dashed")
	for i, s := range r.Series {
		when := s.Start.Format("Jan 2")
		if s.LatencyP50Ms != nil {
			c.circle(p50[i].X, p50[i].Y, 2.5, "s0", fmt.Sprintf("%s: p50 %.1f ms", when, *s.LatencyP50Ms))
			c.circle(p95[i].X, p95[i].Y, 2.5, "s1", fmt.Sprintf("%s: p95 %.1f ms", when, *s.LatencyP95Ms))
		}
	}
	c.bandAxis(b, labels, every, timeAxisLabel(r))
	return c.HTML()
}

// mapOpt maps a measured value, NaN (no point) when it was not measured.
func mapOpt(s Linear, v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return s.Map(*v)
}

// precisionChart is precision@k per bucket, one line per weight set, with
// Wilson intervals and the judged counts.
func precisionChart(r *api.MeasureReport) template.HTML {
	legendRows := min(len(r.Groups), 4)
	top := 20 + 15*float64(max(1, legendRows))
	c := newSVG("precision", chartW, chartH+top-34, 56, top, 12, 40, fmt.Sprintf("precision@%d per %s and weight set", r.K, bucketName(r)))
	for i, g := range r.Groups {
		if i == legendRows {
			break
		}
		label := setName(i) + ": " + search.GroupLabel(g.Weights)
		if i == legendRows-1 && len(r.Groups) > legendRows {
			label = fmt.Sprintf("%s (and %d more sets, see the table)", label, len(r.Groups)-legendRows)
		}
		c.legend(c.left, 16+15*float64(i), []legendItem{{"dot", fmt.Sprintf("s%d", i%seriesColours), cut(label, 80)}})
	}
	b, labels, every := timeBands(c, r, 0)
	y := Linear{0, 1, c.bottom, c.top}
	c.yAxis(y, 5, fmt.Sprintf("precision@%d", r.K), nil)
	judged := false
	for _, s := range r.Series {
		for _, gp := range s.Precision {
			judged = judged || gp.Judged > 0
		}
	}
	if !judged {
		c.noData(c.left, c.top, c.right, c.bottom, "no judged vote in this window")
	} else {
		for i, s := range r.Series {
			any := false
			for _, gp := range s.Precision {
				any = any || gp.Judged > 0
			}
			if !any {
				c.noData(b.Start(i), c.top, b.Start(i)+b.Width(), c.bottom, "")
			}
		}
	}
	// A dashed line where a weight set is first used: a calibration.
	seen := map[int]bool{}
	for i, s := range r.Series {
		for _, gp := range s.Precision {
			if !seen[gp.Group] && gp.Group > 0 {
				x := b.Start(i)
				c.line(x, c.top, x, c.bottom, "ref")
				// Above the plot, clear of the error bars, and inside the
				// chart: on the line's left when its right has no room.
				label := setName(gp.Group) + " from here"
				if x+3+smallTextWidth(label) <= c.w {
					c.text(x+3, c.top-4, "small", "start", label)
				} else {
					c.text(x-3, c.top-4, "small", "end", label)
				}
			}
			seen[gp.Group] = true
		}
	}
	// Dodge the sets sideways so their whiskers do not overlap.
	dodge := min(5, b.Width()/float64(max(2, len(r.Groups)+1)))
	for g := range r.Groups {
		class := fmt.Sprintf("s%d", g%seriesColours)
		off := (float64(g) - float64(len(r.Groups)-1)/2) * dodge
		pts := make([]Point, len(r.Series))
		for i, s := range r.Series {
			pts[i] = Point{b.Centre(i) + off, math.NaN()}
			for _, gp := range s.Precision {
				if gp.Group == g && gp.PrecisionAtK != nil {
					pts[i].Y = y.Map(*gp.PrecisionAtK)
				}
			}
		}
		c.path(pts, "ln "+class)
		for i, s := range r.Series {
			for _, gp := range s.Precision {
				if gp.Group != g || gp.PrecisionAtK == nil {
					continue
				}
				x := pts[i].X
				c.whiskerV(x, y.Map(*gp.Low), y.Map(*gp.High), "wh "+class)
				c.circle(x, pts[i].Y, 3.5, class, fmt.Sprintf("%s, %s: precision %.2f (%d useful of %d judged, 95%% interval %.2f–%.2f)",
					s.Start.Format("Jan 2"), setName(g), *gp.PrecisionAtK, gp.Useful, gp.Judged, *gp.Low, *gp.High))
				c.text(x+5, pts[i].Y-5, "small", "start", strconv.Itoa(gp.Judged))
			}
		}
	}
	c.bandAxis(b, labels, every, timeAxisLabel(r))
	return c.HTML()
}

// ranksChart is the histogram of the ranks of useful votes.
func ranksChart(r *api.MeasureReport) template.HTML {
	c := newSVG("ranks", chartW, chartH, 56, 34, 12, 40, "Ranks of the hits voted useful")
	last, most := r.K, 0
	for _, rc := range r.Total.UsefulRanks {
		last, most = max(last, rc.Rank), max(most, rc.Count)
	}
	b := Band{N: last, R0: c.left, R1: c.right, Pad: 0.2}
	lo, hi := NiceDomain(0, float64(most), 5, true)
	y := Linear{lo, hi, c.bottom, c.top}
	c.yAxis(y, 5, "useful votes", nil)
	if most == 0 {
		c.noData(c.left, c.top, c.right, c.bottom, "no useful vote in this window")
	}
	for _, rc := range r.Total.UsefulRanks {
		i := rc.Rank - 1
		if i < 0 {
			continue
		}
		class := "good"
		if rc.Rank > r.K {
			class = "s1"
		}
		c.rect(b.Start(i), y.Map(float64(rc.Count)), b.Width(), y.Map(0)-y.Map(float64(rc.Count)), class, "",
			fmt.Sprintf("rank %d: %d useful votes", rc.Rank, rc.Count))
	}
	if r.K < last {
		x := b.Start(r.K) - (b.Start(1)-b.Start(0)-b.Width())/2
		c.line(x, c.top, x, c.bottom, "ref")
		c.text(x+3, c.top+10, "small", "start", fmt.Sprintf("beyond k = %d", r.K))
	}
	labels := make([]string, last)
	for i := range labels {
		labels[i] = strconv.Itoa(i + 1)
	}
	c.bandAxis(b, labels, int(math.Ceil(float64(last)/20)), "rank of the hit (1 = first)")
	return c.HTML()
}

// cut shortens s to n runes with an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// smallTextWidth is about how wide s is in the charts' small font (9.5
// px): a generous average glyph width, so an estimate errs towards room.
func smallTextWidth(s string) float64 { return 5.6 * float64(utf8.RuneCountInString(s)) }

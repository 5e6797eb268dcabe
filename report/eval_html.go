package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ragd/ragd/eval"
)

// maxNotes is how many warnings the page lists: the --json output has
// them all.
const maxNotes = 20

// metricHead names a metric as the tables do.
var metricHead = map[string]string{eval.NDCG10: "nDCG@10", eval.Recall6: "R@6", eval.Recall10: "R@10", eval.Recall100: "R@100", eval.MRR10: "MRR@10"}

// chartMetrics are the metrics drawn per mode: the page's question is
// ranking quality at the top, what a search shows, and the first hit.
var chartMetrics = []string{eval.NDCG10, eval.Recall6, eval.MRR10}

// EvalHTML writes r, the report of `ragd eval` or of `ragd calibrate`
// (r.Calibration set), as one self-contained HTML page with charts.
func EvalHTML(w io.Writer, r *eval.Report) error {
	title := "ragd eval"
	if r.Calibration != nil && len(r.Modes) == 0 {
		title = "ragd calibrate"
	}
	c := r.Counts
	p := &page{Title: title, Subtitle: fmt.Sprintf("%s; embedding space %s; %d judged queries (%d relevant citations); candidates retrieved once per query at depth %d, every mode replayed.",
		r.Dataset, r.Space, c.Judged, c.Relevant, r.Depth)}
	if r.VectorUnavailable > 0 {
		p.Notes = append(p.Notes, note{Bad: true, Text: fmt.Sprintf("%d of %d queries searched without a vector (%s): vector and fused modes are degraded.",
			r.VectorUnavailable, c.Judged, r.VectorReason)})
	}
	if x := r.Index; x != nil && !x.Complete {
		p.Notes = append(p.Notes, note{Bad: true, Text: fmt.Sprintf("%d chunks have no vector: %s", x.LexicalOnly, x.Reason)})
	}
	for i, s := range r.Warnings {
		if i == maxNotes {
			p.Notes = append(p.Notes, note{Text: fmt.Sprintf("… and %d more warnings (--json lists them all)", len(r.Warnings)-i)})
			break
		}
		p.Notes = append(p.Notes, note{Text: s})
	}
	if len(r.Modes) > 0 {
		p.Sections = append(p.Sections, evalSections(r)...)
	}
	if r.Calibration != nil {
		p.Sections = append(p.Sections, calibrationSections(r.Calibration, r.Bootstrap)...)
	}
	t := r.Timings
	p.Sections = append(p.Sections, section{Heading: "Time", Intro: fmt.Sprintf("%s in all: query embedding %s, retrieval %s, replay %s; embedding %.0f%% of the total.",
		sec(t.Total.Seconds()), sec(t.QueryEmbed.Seconds()), sec(t.Retrieve.Seconds()), sec(t.Replay.Seconds()), t.EmbeddingShare()*100)})
	return p.write(w)
}

func sec(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) + " s" }

// f3 formats a score, "—" when it is undefined.
func f3(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func evalSections(r *eval.Report) []section {
	bs := r.Bootstrap
	modes := table{Head: []string{"mode", "settings"}}
	for _, m := range eval.Metrics {
		modes.Head = append(modes.Head, metricHead[m])
	}
	modes.Head = append(modes.Head, "no hit")
	for _, m := range r.Modes {
		row := []cell{{Text: m.Name}, userCell(m.Settings)}
		for _, metric := range eval.Metrics {
			s := f3(m.Means[metric])
			if iv, ok := m.Intervals[metric]; ok {
				s += fmt.Sprintf(" [%s, %s]", f3(iv.Low), f3(iv.High))
			}
			row = append(row, numCell(s))
		}
		row = append(row, numCell(fmt.Sprintf("%.1f%%", m.NoHit*100)))
		modes.Rows = append(modes.Rows, row)
	}
	diffs := table{Caption: fmt.Sprintf("Differences, paired bootstrap %.0f%% intervals (%d resamples, seed %d)", bs.Level*100, bs.Resamples, bs.Seed),
		Head: []string{"difference", "metric", "mean", "interval", "verdict"}, Empty: "none"}
	for _, c := range r.Comparisons {
		if c.Metric != eval.NDCG10 && c.Metric != eval.Recall6 {
			continue
		}
		diffs.Rows = append(diffs.Rows, []cell{{Text: c.A + " − " + c.B}, {Text: metricHead[c.Metric]}, numCell(signed(c.Mean)),
			numCell(fmt.Sprintf("[%s, %s]", signed(c.Low), signed(c.High))), {Text: c.Verdict}})
	}
	missed := table{Head: []string{"query id", "query", "what every mode did"},
		Empty: "none: every query had a relevant hit in some mode's top 10"}
	for _, q := range r.Queries {
		if !q.Missed {
			continue
		}
		what := "no relevant hit in its top 10"
		if q.NoHit {
			what = "returned nothing"
		}
		missed.Rows = append(missed.Rows, []cell{userCell(q.ID), userCell(q.Text), {Text: what, Bad: q.NoHit}})
	}
	return []section{
		{Heading: "Modes", Figures: []figure{
			{SVG: modesChart(r), Caption: fmt.Sprintf("Each mode's mean over the judged queries (dot) with its %.0f%% bootstrap interval (whiskers); "+
				"score from 0 (nothing relevant) to 1 (ideal ranking).", bs.Level*100)},
		}},
		{Heading: "Where each signal wins", Figures: []figure{
			{SVG: diffChart(r), Caption: "Each mode minus lexical-only, paired over the same queries: an interval clear of 0 is a measured difference " +
				"(blue: the mode better, vermillion: lexical-only better, orange: no measured difference)."},
			{SVG: scatterChart(r), Caption: "Per query: nDCG@10 of the bm25 list alone (x) against the cosine list alone (y). " +
				"Above the diagonal the vector signal ranked better, below it the lexical one; a dot's area counts the queries at that point."},
		}},
		{Heading: "The figures", Tables: []table{modes, diffs}},
		{Heading: "Queries no mode answered", Tables: []table{missed}},
	}
}

func signed(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%+.3f", x)
}

// dotRow is one row of a dot-and-whisker panel: NaN V is no data.
type dotRow struct {
	V, Low, High float64 // Low and High NaN: no interval
	Class        string
	Title        string
}

// dotPanel is one metric's panel.
type dotPanel struct {
	Title, Axis string
	Lo, Hi      float64
	Zero        bool // draw the 0 line
	Rows        []dotRow
}

// dotChart draws panels side by side sharing the row labels.
func dotChart(id, label string, rows []string, panels []dotPanel) template.HTML {
	const labelW, panelW, gap, rowH = 130.0, 230.0, 36.0, 24.0
	w := labelW + float64(len(panels))*(panelW+gap)
	h := 44 + rowH*float64(len(rows)) + 44
	c := newSVG(id, w, h, labelW, 44, 0, 44, label)
	top, bottom := 44.0, 44+rowH*float64(len(rows))
	for i, r := range rows {
		c.text(labelW-10, top+rowH*(float64(i)+0.5)+4, "tick", "end", cut(r, 20))
	}
	for k, p := range panels {
		x0 := labelW + float64(k)*(panelW+gap)
		x := Linear{p.Lo, p.Hi, x0, x0 + panelW}
		c.text(x0+panelW/2, 18, "panel-title", "middle", p.Title)
		step := TickStep(p.Lo, p.Hi, 4)
		for _, v := range Ticks(p.Lo, p.Hi, 4) {
			c.line(x.Map(v), top, x.Map(v), bottom, "grid")
			c.text(x.Map(v), bottom+15, "tick", "middle", Tick(v, step))
		}
		c.line(x0, bottom, x0+panelW, bottom, "axis")
		c.text(x0+panelW/2, bottom+32, "axis-label", "middle", p.Axis)
		if p.Zero && p.Lo < 0 && p.Hi > 0 {
			c.line(x.Map(0), top-4, x.Map(0), bottom, "ref")
		}
		for i, r := range p.Rows {
			y := top + rowH*(float64(i)+0.5)
			if math.IsNaN(r.V) {
				c.noData(x0, y-rowH/2+3, x0+panelW, y+rowH/2-3, "no data")
				continue
			}
			if !math.IsNaN(r.Low) && !math.IsNaN(r.High) {
				c.whiskerH(y, x.Map(r.Low), x.Map(r.High), "wh "+r.Class)
			}
			c.circle(x.Map(r.V), y, 4.5, r.Class, r.Title)
		}
	}
	return c.HTML()
}

// modesChart is each mode's mean with its interval, one panel a metric.
func modesChart(r *eval.Report) template.HTML {
	var names []string
	var panels []dotPanel
	for _, m := range r.Modes {
		names = append(names, m.Name)
	}
	for _, metric := range chartMetrics {
		p := dotPanel{Title: metricHead[metric], Axis: "score (0–1)", Lo: 0, Hi: 1}
		for i, m := range r.Modes {
			v := m.Means[metric]
			row := dotRow{V: v, Low: math.NaN(), High: math.NaN(), Class: fmt.Sprintf("s%d", i%seriesColours)}
			desc := fmt.Sprintf("%s %s: %s", m.Name, metricHead[metric], f3(v))
			if iv, ok := m.Intervals[metric]; ok {
				row.Low, row.High = iv.Low, iv.High
				desc += fmt.Sprintf(" [%s, %s]", f3(iv.Low), f3(iv.High))
			}
			row.Title = desc
			p.Rows = append(p.Rows, row)
		}
		panels = append(panels, p)
	}
	return dotChart("modes", "Each mode's nDCG@10, R@6 and MRR@10 with bootstrap intervals", names, panels)
}

// diffChart is every mode minus lexical on nDCG@10 and R@6.
func diffChart(r *eval.Report) template.HTML {
	var names []string
	index := map[string]int{}
	for _, c := range r.Comparisons {
		if c.B != "lexical" {
			continue
		}
		if _, ok := index[c.A]; !ok {
			index[c.A] = len(names)
			names = append(names, c.A)
		}
	}
	var panels []dotPanel
	for _, metric := range []string{eval.NDCG10, eval.Recall6} {
		p := dotPanel{Title: metricHead[metric] + " − lexical", Axis: "difference in score", Zero: true, Rows: make([]dotRow, len(names))}
		for i := range p.Rows {
			p.Rows[i] = dotRow{V: math.NaN(), Low: math.NaN(), High: math.NaN()}
		}
		var vals []float64
		for _, c := range r.Comparisons {
			i, ok := index[c.A]
			if c.B != "lexical" || c.Metric != metric || !ok {
				continue
			}
			class := "s1"
			if c.Low > 0 {
				class = "good"
			} else if c.High < 0 {
				class = "bad"
			}
			p.Rows[i] = dotRow{V: c.Mean, Low: c.Low, High: c.High, Class: class,
				Title: fmt.Sprintf("%s − %s on %s: %s [%s, %s], %s", c.A, c.B, metricHead[metric], signed(c.Mean), signed(c.Low), signed(c.High), c.Verdict)}
			vals = append(vals, c.Low, c.High, c.Mean)
		}
		lo, hi, _ := Extent(append(vals, 0)...)
		bound := max(math.Abs(lo), math.Abs(hi), 0.05)
		p.Lo, p.Hi = NiceDomain(-bound, bound, 4, false)
		panels = append(panels, p)
	}
	if len(names) == 0 {
		c := newSVG("diffs", 480, 90, 10, 10, 10, 10, "No comparison with lexical-only")
		c.noData(10, 10, 470, 80, "no comparison with lexical-only")
		return c.HTML()
	}
	return dotChart("diffs", "Each mode minus lexical-only, paired bootstrap intervals", names, panels)
}

// scatterChart is per-query lexical against vector nDCG@10.
func scatterChart(r *eval.Report) template.HTML {
	const size = 340.0
	c := newSVG("scatter", size+70, size+60, 56, 14, 14, 46, "Per-query nDCG@10, lexical-only against vector-only")
	x := Linear{0, 1, c.left, c.right}
	y := Linear{0, 1, c.bottom, c.top}
	c.yAxis(y, 5, "vector-only nDCG@10", nil)
	c.xAxis(x, 5, "lexical-only nDCG@10", nil)
	c.line(x.Map(0), y.Map(0), x.Map(1), y.Map(1), "ref")
	lex, vec := -1, -1
	for i, m := range r.Modes {
		switch m.Signals {
		case eval.SignalsLexical:
			lex = i
		case eval.SignalsVector:
			vec = i
		}
	}
	type key struct{ x, y float64 }
	counts := map[key][]string{}
	var keys []key
	above, below, equal := 0, 0, 0
	for _, q := range r.Queries {
		if lex < 0 || vec < 0 || lex >= len(q.NDCG10) || vec >= len(q.NDCG10) || q.NDCG10[lex] == nil || q.NDCG10[vec] == nil {
			continue
		}
		lx, vy := *q.NDCG10[lex], *q.NDCG10[vec]
		switch {
		case vy > lx:
			above++
		case vy < lx:
			below++
		default:
			equal++
		}
		// Points closer than a pixel share one dot, its area their number.
		k := key{math.Round(lx * 200), math.Round(vy * 200)}
		if _, ok := counts[k]; !ok {
			keys = append(keys, k)
		}
		counts[k] = append(counts[k], q.ID)
	}
	if len(keys) == 0 {
		c.noData(c.left, c.top, c.right, c.bottom, "no per-query scores of both single-signal modes")
		return c.HTML()
	}
	for _, k := range keys {
		ids := counts[k]
		class := "pt s0"
		if k.x > k.y {
			class = "pt s1"
		} else if k.x == k.y {
			class = "pt s2"
		}
		title := fmt.Sprintf("%d queries: lexical %.3f, vector %.3f (%s)", len(ids), k.x/200, k.y/200, strings.Join(ids[:min(len(ids), 5)], ", "))
		if len(ids) > 5 {
			title += ", …"
		}
		c.circle(x.Map(k.x/200), y.Map(k.y/200), 3*math.Sqrt(float64(len(ids))), class, title)
	}
	c.text(c.left+6, c.top+12, "small", "start", fmt.Sprintf("vector better: %d", above))
	c.text(c.right-6, c.bottom-8, "small", "end", fmt.Sprintf("lexical better: %d", below))
	c.text(c.right-6, c.bottom-22, "small", "end", fmt.Sprintf("equal: %d", equal))
	return c.HTML()
}

package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"

	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/search"
)

func calibrationSections(c *eval.Calibration, bs eval.Bootstrap) []section {
	head := metricHead[c.Objective]
	if head == "" {
		head = c.Objective
	}
	intro := fmt.Sprintf("Objective %s; %d settings replayed over %d training queries", head, c.Tried, c.Train)
	if c.HeldOut > 0 {
		intro += fmt.Sprintf("; %d held out (%.0f%%, split by query-id hash)", c.HeldOut, c.Holdout*100)
	}
	intro += ". Nothing is applied without --apply."
	chosen := table{Head: []string{"", "settings", "part"}}
	for _, m := range eval.Metrics {
		chosen.Head = append(chosen.Head, metricHead[m])
	}
	chosen.Head = append(chosen.Head, "no hit")
	for _, ev := range []*eval.Evaluated{c.Best, c.Current, c.Lexical} {
		if ev == nil {
			continue
		}
		for i, part := range []*eval.ModeResult{ev.Train, ev.HeldOut} {
			if part == nil {
				continue
			}
			name, settings, label := ev.Name, ev.Settings, "train"
			if i == 1 {
				name, settings, label = "", "", "held-out"
			}
			row := []cell{{Text: name}, userCell(settings), {Text: label}}
			for _, m := range eval.Metrics {
				row = append(row, numCell(f3(part.Means[m])))
			}
			chosen.Rows = append(chosen.Rows, append(row, numCell(fmt.Sprintf("%.1f%%", part.NoHit*100))))
		}
	}
	top := table{Caption: "Best settings on the training part", Head: []string{head, "settings", "tied"}, Empty: "none"}
	for _, t := range c.Top {
		top.Rows = append(top.Rows, []cell{numCell(strconv.FormatFloat(t.Train, 'f', 4, 64)), userCell(t.Settings), numCell(strconv.Itoa(t.Tied))})
	}
	verdict := ""
	if c.Best != nil && c.Current != nil && c.Best.Config == c.Current.Config {
		verdict = "The current settings are the best found: nothing to change."
	}
	return []section{
		{Heading: "Calibration surface", Intro: intro, Figures: []figure{{SVG: heatMaps(c), Caption: fmt.Sprintf(
			"%s of weighted fusion over the vector weight α (columns) and the lexical normalisation (rows), one map per candidate depth and fill, training part left, held-out right; "+
				"each cell takes the threshold best on the training part, and the held-out map scores that same choice on queries it never saw. "+
				"Ring: the chosen settings; dashed square: the current ones. One colour scale for all maps.", head)}}},
		{Heading: "Chosen, current and lexical-only", Intro: verdict, Figures: []figure{{SVG: calibrationDiffs(c), Caption: fmt.Sprintf(
			"Paired differences on %s with %.0f%% bootstrap intervals, on each part: an interval clear of 0 is a measured difference "+
				"(blue: the first better, vermillion: the second, orange: no measured difference).", head, bs.Level*100)}},
			Tables: []table{chosen, top}},
	}
}

// heat map geometry, in pixels: 11 weights × 3 normalisations per map, a
// three-decimal value legible in each cell, train and held-out side by
// side.
const (
	cellW, cellH = 34.0, 18.0
	mapGap       = 40.0
	mapLabelW    = 66.0
	mapTitleH    = 16.0
	mapRowGap    = 12.0
)

// heatMaps draws the surface: a row per depth and fill, the training part
// left and the held-out part right.
func heatMaps(c *eval.Calibration) template.HTML {
	if len(c.Surface) == 0 {
		svg := newSVG("surface", 480, 90, 10, 10, 10, 10, "No calibration surface")
		svg.noData(10, 10, 470, 80, "no weighted setting in the grid")
		return svg.HTML()
	}
	var depths []int
	var alphas []float64
	var norms []search.Normalization
	var vals []float64
	for _, s := range c.Surface {
		if !slices.Contains(depths, s.Depth) {
			depths = append(depths, s.Depth)
		}
		if !slices.Contains(alphas, s.VectorWeight) {
			alphas = append(alphas, s.VectorWeight)
		}
		if !slices.Contains(norms, s.Normalization) {
			norms = append(norms, s.Normalization)
		}
		vals = append(vals, s.Train)
		if s.HeldOut != nil {
			vals = append(vals, *s.HeldOut)
		}
	}
	slices.Sort(depths)
	slices.Sort(alphas)
	type row struct {
		depth int
		fill  bool
	}
	var rows []row
	for _, d := range depths {
		for _, fill := range []bool{false, true} {
			if slices.ContainsFunc(c.Surface, func(s eval.Cell) bool { return s.Depth == d && s.Fill == fill }) {
				rows = append(rows, row{d, fill})
			}
		}
	}
	mapW, mapH := cellW*float64(len(alphas)), cellH*float64(len(norms))
	w := mapLabelW + 2*mapW + mapGap + 10
	rowH := mapTitleH + mapH + mapRowGap
	top := 26.0
	h := top + rowH*float64(len(rows)) + 30 + 52
	svg := newSVG("surface", w, h, mapLabelW, top, 0, 0, "Calibration surface: objective over vector weight and normalisation, per depth and fill, train and held-out")
	lo, hi, _ := Extent(vals...)
	colour := func(v float64) (string, bool) {
		if hi == lo {
			return Viridis(0.5)
		}
		return Viridis((v - lo) / (hi - lo))
	}
	type key struct {
		depth int
		fill  bool
		norm  search.Normalization
		alpha float64
	}
	at := map[key]eval.Cell{}
	for _, s := range c.Surface {
		at[key{s.Depth, s.Fill, s.Normalization, s.VectorWeight}] = s
	}
	// Where the chosen and current settings fall, when they are weighted.
	weighted := func(ev *eval.Evaluated) (search.Config, bool) {
		if ev == nil || ev.Config.Fusion != search.FusionWeighted {
			return search.Config{}, false
		}
		return ev.Config, true
	}
	best, bestOK := weighted(c.Best)
	current, currentOK := weighted(c.Current)
	for col, part := range []string{"train", "held-out"} {
		held := col == 1
		x0 := mapLabelW + float64(col)*(mapW+mapGap)
		svg.text(x0+mapW/2, 14, "panel-title", "middle", part)
		for ri, rw := range rows {
			y0 := top + rowH*float64(ri) + mapTitleH
			svg.text(x0, y0-4, "small", "start", fmt.Sprintf("depth %d · fill %s", rw.depth, onOff(rw.fill)))
			if held && c.HeldOut == 0 {
				svg.noData(x0, y0, x0+mapW, y0+mapH, "no held-out part (--holdout 0)")
				continue
			}
			for ni, norm := range norms {
				if col == 0 {
					svg.text(x0-6, y0+cellH*float64(ni)+cellH/2+4, "tick", "end", string(norm))
				}
				for ai, a := range alphas {
					x, y := x0+cellW*float64(ai), y0+cellH*float64(ni)
					s, ok := at[key{rw.depth, rw.fill, norm, a}]
					v := math.NaN()
					if ok && !held {
						v = s.Train
					} else if ok && s.HeldOut != nil {
						v = *s.HeldOut
					}
					if math.IsNaN(v) {
						svg.noData(x, y, x+cellW, y+cellH, "")
						continue
					}
					fillColour, dark := colour(v)
					svg.rect(x, y, cellW, cellH, "", "fill:"+fillColour, fmt.Sprintf("depth %d, fill %s, %s, α %.1f, threshold %.1f: %s %.4f",
						rw.depth, onOff(rw.fill), norm, a, s.Threshold, part, v))
					textClass := "cell-light"
					if dark {
						textClass = "cell-dark"
					}
					svg.text(x+cellW/2, y+cellH/2+3.5, textClass, "middle", strconv.FormatFloat(v, 'f', 3, 64))
					here := func(cfg search.Config) bool {
						return cfg.Candidates == rw.depth && cfg.Fill == rw.fill && cfg.Normalization == norm && cfg.VectorWeight == a
					}
					if currentOK && here(current) {
						svg.rect(x+1.5, y+1.5, cellW-3, cellH-3, "mark-alt", "", "")
					}
					if bestOK && here(best) {
						svg.circle(x+cellW/2, y+cellH/2, cellW/2-1, "mark", "")
					}
				}
			}
		}
		yt := top + rowH*float64(len(rows)) - mapRowGap + 12
		for ai, a := range alphas {
			if ai%2 == 0 || len(alphas) < 8 {
				svg.text(x0+cellW*(float64(ai)+0.5), yt, "tick", "middle", strconv.FormatFloat(a, 'f', -1, 64))
			}
		}
		svg.text(x0+mapW/2, yt+15, "axis-label", "middle", "vector weight α (lexical 1 − α)")
	}
	yb := top + rowH*float64(len(rows)) + 30
	// The colour scale.
	barX, barW := mapLabelW, 260.0
	for i := range 52 {
		col, _ := Viridis(float64(i) / 51)
		svg.rect(barX+barW*float64(i)/52, yb+8, barW/52+0.6, 10, "", "fill:"+col, "")
	}
	scale := Linear{lo, hi, barX, barX + barW}
	step := TickStep(lo, hi, 4)
	for _, v := range Ticks(lo, hi, 4) {
		svg.line(scale.Map(v), yb+18, scale.Map(v), yb+22, "axis")
		svg.text(scale.Map(v), yb+33, "tick", "middle", Tick(v, step))
	}
	svg.text(barX+barW+10, yb+17, "small", "start", "mean "+metricHead[c.Objective]+" of the cell")
	notes := barX + barW + 180
	svg.circle(notes, yb+13, 7, "mark", "")
	svg.text(notes+11, yb+17, "small", "start", "chosen")
	svg.rect(notes+56, yb+7, 14, 12, "mark-alt", "", "")
	svg.text(notes+74, yb+17, "small", "start", "current")
	off := []string{}
	if c.Best != nil && !bestOK {
		off = append(off, "chosen: "+c.Best.Settings)
	}
	if c.Current != nil && !currentOK {
		off = append(off, "current: "+c.Current.Settings)
	}
	for i, s := range off {
		svg.text(barX, yb+48+float64(i)*13, "small", "start", cut(s, 70)+" (not on these maps)")
	}
	return svg.HTML()
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// calibrationDiffs draws calibration's comparisons, one panel per part.
func calibrationDiffs(c *eval.Calibration) template.HTML {
	var names []string
	index := map[string]int{}
	var parts []string
	var vals []float64
	for _, cmp := range c.Comparisons {
		name := cmp.A + " − " + cmp.B
		if _, ok := index[name]; !ok {
			index[name] = len(names)
			names = append(names, name)
		}
		if !slices.Contains(parts, cmp.Part) {
			parts = append(parts, cmp.Part)
		}
		vals = append(vals, cmp.Low, cmp.High)
	}
	if len(names) == 0 {
		svg := newSVG("caldiffs", 480, 90, 10, 10, 10, 10, "No comparison")
		svg.noData(10, 10, 470, 80, "no comparison")
		return svg.HTML()
	}
	lo, hi, _ := Extent(append(vals, 0)...)
	bound := max(math.Abs(lo), math.Abs(hi), 0.05)
	dlo, dhi := NiceDomain(-bound, bound, 4, false)
	var panels []dotPanel
	for _, part := range parts {
		p := dotPanel{Title: part, Axis: "difference in " + metricHead[c.Objective], Lo: dlo, Hi: dhi, Zero: true, Rows: make([]dotRow, len(names))}
		for i := range p.Rows {
			p.Rows[i] = dotRow{V: math.NaN(), Low: math.NaN(), High: math.NaN()}
		}
		for _, cmp := range c.Comparisons {
			if cmp.Part != part {
				continue
			}
			class := "s1"
			if cmp.Low > 0 {
				class = "good"
			} else if cmp.High < 0 {
				class = "bad"
			}
			p.Rows[index[cmp.A+" − "+cmp.B]] = dotRow{V: cmp.Mean, Low: cmp.Low, High: cmp.High, Class: class,
				Title: fmt.Sprintf("%s − %s (%s): %s [%s, %s], %s", cmp.A, cmp.B, part, signed(cmp.Mean), signed(cmp.Low), signed(cmp.High), cmp.Verdict)}
		}
		panels = append(panels, p)
	}
	return dotChart("caldiffs", "Calibration's paired differences with bootstrap intervals", names, panels)
}

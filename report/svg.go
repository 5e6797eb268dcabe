package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// This file is a small SVG chart kit: scales, ticks, axes, lines, bars,
// dots with whiskers, scatter and heat maps, written as markup strings.
// Every text that reaches the markup goes through esc; numbers are
// formatted here, so no caller's string is ever markup.

// Linear maps the data interval [D0, D1] onto the pixel interval [R0, R1].
type Linear struct{ D0, D1, R0, R1 float64 }

// Map returns the pixel of v. A degenerate domain maps to the middle of
// the range; NaN stays NaN (callers draw nothing for it).
func (s Linear) Map(v float64) float64 {
	if s.D1 == s.D0 {
		return (s.R0 + s.R1) / 2
	}
	return s.R0 + (v-s.D0)/(s.D1-s.D0)*(s.R1-s.R0)
}

// Extent returns the smallest and largest finite values, ok false when
// there is none.
func Extent(vals ...float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi, ok = min(lo, v), max(hi, v), true
	}
	if !ok {
		return 0, 0, false
	}
	return lo, hi, true
}

// NiceDomain widens [lo, hi] to whole tick steps (about n ticks), from 0
// when zero is true and lo ≥ 0. An empty or one-valued domain still gets
// a width: [0, 1] for none, and a step either side of a lone value (or
// [0, 2v] with zero).
func NiceDomain(lo, hi float64, n int, zero bool) (float64, float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 1
	}
	if zero && lo > 0 {
		lo = 0
	}
	if zero && hi < 0 {
		hi = 0
	}
	if hi == lo {
		switch {
		case lo == 0:
			return 0, 1
		case zero:
			lo, hi = min(0, 2*lo), max(0, 2*hi)
		default:
			d := math.Abs(lo) / 2
			lo, hi = lo-d, hi+d
		}
	}
	step := TickStep(lo, hi, n)
	// The epsilon keeps float noise (0.3/0.1 = 2.9999…) off a whole step.
	return math.Floor(lo/step+1e-9) * step, math.Ceil(hi/step-1e-9) * step
}

// TickStep is a round step (1, 2 or 5 × 10ⁿ) cutting [lo, hi] into about
// n parts.
func TickStep(lo, hi float64, n int) float64 {
	span := hi - lo
	if n < 1 {
		n = 1
	}
	if !(span > 0) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / float64(n)
	step := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / step; {
	case f >= 7.5:
		step *= 10
	case f >= 3.5:
		step *= 5
	case f >= 1.5:
		step *= 2
	}
	return step
}

// Ticks are the multiples of TickStep(lo, hi, n) within [lo, hi].
func Ticks(lo, hi float64, n int) []float64 {
	if math.IsNaN(lo) || math.IsNaN(hi) || hi < lo {
		return nil
	}
	step := TickStep(lo, hi, n)
	var out []float64
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // no "-0"
		}
		out = append(out, v)
	}
	return out
}

// Band cuts [R0, R1] into N equal bands with a share Pad of each left
// empty between bars.
type Band struct {
	N      int
	R0, R1 float64
	Pad    float64
}

// Width is the width of a band's bar.
func (b Band) Width() float64 {
	if b.N <= 0 {
		return 0
	}
	return (b.R1 - b.R0) / float64(b.N) * (1 - b.Pad)
}

// Start is the left edge of band i's bar.
func (b Band) Start(i int) float64 {
	if b.N <= 0 {
		return b.R0
	}
	step := (b.R1 - b.R0) / float64(b.N)
	return b.R0 + float64(i)*step + step*b.Pad/2
}

// Centre is the middle of band i.
func (b Band) Centre(i int) float64 { return b.Start(i) + b.Width()/2 }

// num formats a pixel coordinate: one decimal is finer than a screen.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// esc escapes text for SVG/HTML content and attribute values.
func esc(s string) string { return template.HTMLEscapeString(s) }

// Tick formats a tick value with the step's decimals.
func Tick(v, step float64) string {
	d := 0
	if step > 0 && step < 1 {
		d = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

// svg is one chart being written. Margins leave room for the axes.
type svg struct {
	b                        strings.Builder
	id                       string
	w, h                     float64
	left, top, right, bottom float64 // the plot area, in pixels
}

// newSVG starts a w×h chart whose plot area is inset by the margins; id
// prefixes its pattern ids (unique in the page); label is what a screen
// reader says of it.
func newSVG(id string, w, h, ml, mt, mr, mb float64, label string) *svg {
	c := &svg{id: id, w: w, h: h, left: ml, top: mt, right: w - mr, bottom: h - mb}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`,
		num(w), num(h), num(w), num(h), esc(label))
	fmt.Fprintf(&c.b, `<title>%s</title>`, esc(label))
	// The hatch that means "no data" (never drawn as a zero).
	fmt.Fprintf(&c.b, `<defs><pattern id="%s-nd" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">`+
		`<line x1="0" y1="0" x2="0" y2="6" class="hatch"/></pattern></defs>`, c.id)
	return c
}

// HTML closes the chart and returns its markup.
func (c *svg) HTML() template.HTML {
	c.b.WriteString(`</svg>`)
	return template.HTML(c.b.String())
}

// text writes s (escaped) at x, y; anchor is start, middle or end.
func (c *svg) text(x, y float64, class, anchor, s string) {
	fmt.Fprintf(&c.b, `<text x="%s" y="%s" class="%s" text-anchor="%s">%s</text>`, num(x), num(y), class, anchor, esc(s))
}

// textRotated writes s rotated a quarter turn anticlockwise, centred on x, y.
func (c *svg) textRotated(x, y float64, class, s string) {
	fmt.Fprintf(&c.b, `<text transform="translate(%s %s) rotate(-90)" class="%s" text-anchor="middle">%s</text>`, num(x), num(y), class, esc(s))
}

func (c *svg) line(x1, y1, x2, y2 float64, class string) {
	fmt.Fprintf(&c.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"/>`, num(x1), num(y1), num(x2), num(y2), class)
}

// rect draws a rectangle; title, when not empty, is its tooltip.
func (c *svg) rect(x, y, w, h float64, class, style, title string) {
	if w < 0 {
		x, w = x+w, -w
	}
	if h < 0 {
		y, h = y+h, -h
	}
	fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" class="%s"`, num(x), num(y), num(w), num(h), class)
	if style != "" {
		fmt.Fprintf(&c.b, ` style="%s"`, esc(style))
	}
	if title != "" {
		fmt.Fprintf(&c.b, `><title>%s</title></rect>`, esc(title))
	} else {
		c.b.WriteString(`/>`)
	}
}

// circle draws a dot; title, when not empty, is its tooltip.
func (c *svg) circle(x, y, r float64, class, title string) {
	if math.IsNaN(x) || math.IsNaN(y) {
		return
	}
	fmt.Fprintf(&c.b, `<circle cx="%s" cy="%s" r="%s" class="%s"`, num(x), num(y), num(r), class)
	if title != "" {
		fmt.Fprintf(&c.b, `><title>%s</title></circle>`, esc(title))
	} else {
		c.b.WriteString(`/>`)
	}
}

// noData hatches the pixel rectangle and says "no data" when it is wide
// enough to read.
func (c *svg) noData(x0, y0, x1, y1 float64, say string) {
	fmt.Fprintf(&c.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="url(#%s-nd)" class="nodata"/>`,
		num(min(x0, x1)), num(min(y0, y1)), num(math.Abs(x1-x0)), num(math.Abs(y1-y0)), c.id)
	if say != "" && math.Abs(x1-x0) >= 7*float64(len([]rune(say))) {
		c.text((x0+x1)/2, (y0+y1)/2+4, "nodata-label", "middle", say)
	}
}

// yAxis draws the left axis of s with gridlines and a rotated label.
func (c *svg) yAxis(s Linear, n int, label string, format func(float64) string) {
	lo, hi := min(s.D0, s.D1), max(s.D0, s.D1)
	step := TickStep(lo, hi, n)
	for _, v := range Ticks(lo, hi, n) {
		y := s.Map(v)
		c.line(c.left, y, c.right, y, "grid")
		t := Tick(v, step)
		if format != nil {
			t = format(v)
		}
		c.text(c.left-6, y+4, "tick", "end", t)
	}
	c.line(c.left, c.top, c.left, c.bottom, "axis")
	c.textRotated(14, (c.top+c.bottom)/2, "axis-label", label)
}

// xAxis draws the bottom axis of a linear x scale.
func (c *svg) xAxis(s Linear, n int, label string, format func(float64) string) {
	lo, hi := min(s.D0, s.D1), max(s.D0, s.D1)
	step := TickStep(lo, hi, n)
	for _, v := range Ticks(lo, hi, n) {
		x := s.Map(v)
		c.line(x, c.bottom, x, c.bottom+4, "axis")
		t := Tick(v, step)
		if format != nil {
			t = format(v)
		}
		c.text(x, c.bottom+16, "tick", "middle", t)
	}
	c.line(c.left, c.bottom, c.right, c.bottom, "axis")
	c.text((c.left+c.right)/2, c.h-6, "axis-label", "middle", label)
}

// bandAxis labels the bands of b along the bottom, every every-th one.
func (c *svg) bandAxis(b Band, labels []string, every int, label string) {
	every = max(1, every)
	for i, l := range labels {
		if i%every != 0 {
			continue
		}
		x := b.Centre(i)
		c.line(x, c.bottom, x, c.bottom+4, "axis")
		c.text(x, c.bottom+16, "tick", "middle", l)
	}
	c.line(c.left, c.bottom, c.right, c.bottom, "axis")
	c.text((c.left+c.right)/2, c.h-6, "axis-label", "middle", label)
}

// Point is a data point; Y is NaN where there is no data.
type Point struct{ X, Y float64 }

// path draws a polyline through the points in pixels, broken wherever Y is
// NaN: a gap is no data, never a line through it.
func (c *svg) path(pts []Point, class string) {
	var d strings.Builder
	pen := false
	for _, p := range pts {
		if math.IsNaN(p.X) || math.IsNaN(p.Y) {
			pen = false
			continue
		}
		if pen {
			d.WriteString(" L")
		} else {
			d.WriteString(" M")
		}
		d.WriteString(num(p.X) + " " + num(p.Y))
		pen = true
	}
	if d.Len() > 0 {
		fmt.Fprintf(&c.b, `<path d="%s" class="%s"/>`, strings.TrimSpace(d.String()), class)
	}
}

// whiskerV draws a vertical interval with caps at x from y0 to y1 (pixels).
func (c *svg) whiskerV(x, y0, y1 float64, class string) {
	if math.IsNaN(y0) || math.IsNaN(y1) {
		return
	}
	c.line(x, y0, x, y1, class)
	c.line(x-3, y0, x+3, y0, class)
	c.line(x-3, y1, x+3, y1, class)
}

// whiskerH draws a horizontal interval with caps at y from x0 to x1.
func (c *svg) whiskerH(y, x0, x1 float64, class string) {
	if math.IsNaN(x0) || math.IsNaN(x1) {
		return
	}
	c.line(x0, y, x1, y, class)
	c.line(x0, y-4, x0, y+4, class)
	c.line(x1, y-4, x1, y+4, class)
}

// legend writes swatches and labels in a row from x, y.
func (c *svg) legend(x, y float64, items []legendItem) {
	for _, it := range items {
		switch it.shape {
		case "line":
			c.line(x, y-4, x+18, y-4, it.class)
		case "dashed":
			c.line(x, y-4, x+18, y-4, it.class+" dashed")
		case "dot":
			c.circle(x+9, y-4, 4, it.class, "")
		default:
			c.rect(x+4, y-10, 10, 10, it.class, "", "")
		}
		c.text(x+22, y, "legend", "start", it.label)
		x += 30 + 6.5*float64(len([]rune(it.label)))
	}
}

type legendItem struct{ shape, class, label string }

// viridis is the viridis colour map at nine stops: perceptually uniform
// and readable with every common colour vision deficiency.
var viridis = [][3]float64{
	{0x44, 0x01, 0x54}, {0x48, 0x28, 0x78}, {0x3e, 0x4a, 0x89}, {0x31, 0x68, 0x8e}, {0x26, 0x82, 0x8e},
	{0x1f, 0x9e, 0x89}, {0x35, 0xb7, 0x79}, {0x6d, 0xcd, 0x59}, {0xfd, 0xe7, 0x25},
}

// Viridis returns the colour of t in [0, 1] (clamped) as #rrggbb, and
// whether text on it should be dark.
func Viridis(t float64) (string, bool) {
	if math.IsNaN(t) {
		t = 0
	}
	t = max(0, min(1, t))
	pos := t * float64(len(viridis)-1)
	i := min(int(pos), len(viridis)-2)
	f := pos - float64(i)
	var rgb [3]int
	for k := range 3 {
		rgb[k] = int(math.Round(viridis[i][k] + f*(viridis[i+1][k]-viridis[i][k])))
	}
	// Relative luminance, roughly: light cells take dark text.
	lum := 0.2126*float64(rgb[0]) + 0.7152*float64(rgb[1]) + 0.0722*float64(rgb[2])
	return fmt.Sprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2]), lum > 140
}

package report

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/search"
)

// hostile strings: markup, quotes, an attribute break-out, a CDATA end,
// right-to-left text and a right-to-left override.
var hostile = []string{
	`<script>alert("q")</script>`,
	`"quoted" 'single' & <b>bold</b>`,
	`x" onmouseover="alert(1)`,
	`</svg><img src=x onerror=alert(1)>]]>`,
	"\u202Eevil\u202C and كيف أعيد الفهرسة",
}

// ourTags are every element the pages use: hostile text adds none.
var ourTags = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "header": true, "h1": true, "h2": true,
	"p": true, "div": true, "section": true, "figure": true, "figcaption": true, "footer": true, "table": true, "caption": true, "thead": true,
	"tbody": true, "tr": true, "th": true, "td": true, "bdi": true,
	"svg": true, "defs": true, "pattern": true, "line": true, "rect": true, "circle": true, "text": true, "path": true,
}

var tagRE = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)`)

// attrRE finds an event handler inside a tag (text has no raw "<").
var attrRE = regexp.MustCompile(`<[a-zA-Z][^<>]*\s(onmouseover|onerror)=`)

func hostileMeasure() *api.MeasureReport {
	r := smallMeasure()
	r.Groups[1].Weights = json.RawMessage(`{"note":"<script>alert(1)</script>"}`) // not weights: the label is the JSON verbatim
	at := r.Since
	r.Series = []api.MeasureBucket{{Start: at, End: r.Until, Searches: 5, Precision: []api.GroupPrecision{}}}
	r.Slowest, r.ZeroHitQueries = nil, nil
	for i, q := range hostile {
		r.Slowest = append(r.Slowest, api.SearchLine{Query: q, At: at, LatencyMs: float64(10 * i), Group: 1})
		r.ZeroHitQueries = append(r.ZeroHitQueries, api.ZeroHitQuery{Query: q, Count: 1, Last: at})
	}
	r.Failed, r.FailReason = true, hostile[0]
	return r
}

func hostileEval() *eval.Report {
	r := sampleEval()
	r.Dataset = hostile[3]
	r.Warnings = hostile
	r.Modes[len(r.Modes)-1].Name = hostile[2]
	for i := range r.Queries[:len(hostile)] {
		r.Queries[i].ID, r.Queries[i].Text, r.Queries[i].Missed = hostile[i], hostile[(i+1)%len(hostile)], true
	}
	return r
}

func hostileCalibrate() *eval.Report {
	r := sampleCalibrate()
	r.Dataset = hostile[0]
	r.Calibration.Top[0].Settings = hostile[1]
	r.Calibration.Best.Settings = hostile[2]
	return r
}

// checkHostile fails when a hostile string made markup, or does not show.
func checkHostile(t *testing.T, name, out string) {
	t.Helper()
	for _, m := range tagRE.FindAllStringSubmatch(out, -1) {
		if !ourTags[strings.ToLower(m[1])] {
			t.Errorf("%s: element <%s> in the page", name, m[1])
		}
	}
	if strings.Contains(strings.ToLower(out), "<script") || attrRE.MatchString(out) {
		t.Errorf("%s: markup from text", name)
	}
	if !strings.Contains(out, "&lt;script&gt;") {
		t.Errorf("%s: the escaped <script> text is missing", name)
	}
}

// checkHostileDOM is checkHostile on the DOM a browser built.
func checkHostileDOM(t *testing.T, dom string) {
	t.Helper()
	if !strings.Contains(dom, "<bdi>") || !strings.Contains(dom, "<svg") {
		t.Fatalf("no page in the DOM dump:\n%.500s", dom)
	}
	checkHostile(t, "browser DOM", dom)
}

func render(t *testing.T, fn func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// A NaN or an infinity in a coordinate is a broken chart.
	if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
		i := max(0, strings.Index(out, "NaN"), strings.Index(out, "Inf"))
		t.Errorf("NaN or Inf in the page: …%s…", out[max(0, i-200):min(len(out), i+50)])
	}
	return out
}

func TestHTML_HostileText(t *testing.T) {
	for name, fn := range map[string]func(*bytes.Buffer) error{
		"measure":   func(b *bytes.Buffer) error { return MeasureHTML(b, hostileMeasure()) },
		"eval":      func(b *bytes.Buffer) error { return EvalHTML(b, hostileEval()) },
		"calibrate": func(b *bytes.Buffer) error { return EvalHTML(b, hostileCalibrate()) },
	} {
		out := render(t, fn)
		checkHostile(t, name, out)
		// User text in tables is isolated: right-to-left text cannot
		// reorder the row.
		if !strings.Contains(out, "<bdi>\u202Eevil\u202C and كيف أعيد الفهرسة</bdi>") && name != "calibrate" {
			t.Errorf("%s: the right-to-left query is not isolated in <bdi>", name)
		}
	}
}

func TestHTML_SelfContained(t *testing.T) {
	for name, fn := range map[string]func(*bytes.Buffer) error{
		"measure":   func(b *bytes.Buffer) error { return MeasureHTML(b, sampleMeasure()) },
		"eval":      func(b *bytes.Buffer) error { return EvalHTML(b, sampleEval()) },
		"calibrate": func(b *bytes.Buffer) error { return EvalHTML(b, sampleCalibrate()) },
	} {
		out := render(t, fn)
		// No script, nothing fetched: the only URLs are the SVG namespace
		// and in-page pattern references.
		for _, bad := range []string{"<script", "<link", "<img", "@import", "src=", "http://", "https://"} {
			rest := strings.ReplaceAll(out, `xmlns="http://www.w3.org/2000/svg"`, "")
			if strings.Contains(rest, bad) {
				t.Errorf("%s: %q in the page", name, bad)
			}
		}
		for _, want := range []string{"default-src 'none'", "prefers-color-scheme: dark", "@media print", `role="img"`} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: lacks %q", name, want)
			}
		}
	}
}

func TestMeasureHTML_NoDataIsNotZero(t *testing.T) {
	at := time.Date(2026, 11, 20, 6, 0, 0, 0, time.UTC)
	// An empty window: one bucket, nothing in it.
	empty := &api.MeasureReport{Since: at, Until: at.Add(time.Hour), K: 6, BucketDays: 1, Groups: []api.MeasureGroup{},
		Series: []api.MeasureBucket{{Start: at, End: at.Add(time.Hour), Precision: []api.GroupPrecision{}}}}
	out := render(t, func(b *bytes.Buffer) error { return MeasureHTML(b, empty) })
	for _, want := range []string{"no search in this window", "no judged vote in this window", "no useful vote in this window",
		"No search in this window", "none: every search of the window found something"} {
		if !strings.Contains(out, want) {
			t.Errorf("empty window lacks %q", want)
		}
	}
	// One day measured, one day searched without votes, one day with
	// nothing: the precision chart hatches the last two, draws one dot.
	r := smallMeasure()
	weighted, _ := json.Marshal(search.SeedConfig().Weights())
	r.Groups = []api.MeasureGroup{{Weights: weighted}}
	lo, hi := 0.2, 0.9
	r.Series = []api.MeasureBucket{
		{Start: at, Searches: 4, LatencyP50Ms: f(20), LatencyP95Ms: f(20), // all-equal latencies
			Precision: []api.GroupPrecision{{Group: 0, Judged: 4, Useful: 2, PrecisionAtK: f(0.5), Low: &lo, High: &hi}}},
		{Start: at.Add(24 * time.Hour), Searches: 2, LatencyP50Ms: f(20), LatencyP95Ms: f(20), Precision: []api.GroupPrecision{{Group: 0}}},
		{Start: at.Add(48 * time.Hour), Precision: []api.GroupPrecision{}},
	}
	out = render(t, func(b *bytes.Buffer) error { return MeasureHTML(b, r) })
	precision := chart(t, out, "precision")
	if n := strings.Count(precision, `url(#precision-nd)`); n != 2 {
		t.Errorf("precision chart hatches %d buckets, want 2", n)
	}
	if n := strings.Count(precision, "<circle"); n != 2 { // the dot and its legend swatch
		t.Errorf("precision chart has %d dots, want 1 and the legend's", n)
	}
	if !strings.Contains(precision, "2 useful of 4 judged") {
		t.Errorf("the dot does not say its counts")
	}
	latency := chart(t, out, "latency")
	if n := strings.Count(latency, `url(#latency-nd)`); n != 1 {
		t.Errorf("latency chart hatches %d buckets, want 1 (the day without searches)", n)
	}
}

// chart returns the SVG whose pattern ids start with id.
func chart(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<pattern id="`+id+`-nd"`)
	if i < 0 {
		t.Fatalf("no chart %q", id)
	}
	start := strings.LastIndex(page[:i], "<svg")
	end := strings.Index(page[i:], "</svg>")
	return page[start : i+end]
}

func TestEvalHTML_Edges(t *testing.T) {
	r := sampleEval()
	// A mode measured on nothing: its row says no data, never 0.
	r.Modes[1].Means[eval.NDCG10] = math.NaN()
	delete(r.Modes[1].Intervals, eval.NDCG10)
	r.Queries[7].Missed, r.Queries[7].NoHit = true, true
	out := render(t, func(b *bytes.Buffer) error { return EvalHTML(b, r) })
	modes := chart(t, out, "modes")
	if !strings.Contains(modes, "no data") {
		t.Errorf("a NaN mean is not drawn as no data")
	}
	if n := strings.Count(modes, `class="wh `); n < 3*len(r.Modes)-1 {
		t.Errorf("%d whiskers for %d modes × 3 metrics (one without interval)", n, len(r.Modes))
	}
	if !strings.Contains(out, "returned nothing") || !strings.Contains(out, r.Queries[7].Text) {
		t.Errorf("the query no mode answered is not listed")
	}
	// Without per-query detail the scatter says so.
	r.Queries = nil
	out = render(t, func(b *bytes.Buffer) error { return EvalHTML(b, r) })
	if !strings.Contains(chart(t, out, "scatter"), "no per-query scores") {
		t.Errorf("empty scatter not marked")
	}
}

func TestCalibrateHTML_Edges(t *testing.T) {
	r := sampleCalibrate()
	c := r.Calibration
	out := render(t, func(b *bytes.Buffer) error { return EvalHTML(b, r) })
	surface := chart(t, out, "surface")
	// The sample's best and current are weighted settings of the grid:
	// one ring per map column (train and held-out), one dashed square.
	if n := strings.Count(surface, `class="mark"`); n != 2+1 { // two maps and the legend
		t.Errorf("%d chosen marks, want 2 and the legend's", n)
	}
	if n := strings.Count(surface, `class="mark-alt"`); n != 2+1 {
		t.Errorf("%d current marks, want 2 and the legend's", n)
	}
	if !strings.Contains(out, "<h1>ragd calibrate</h1>") {
		t.Errorf("title")
	}
	// No holdout: the held-out maps say so; an RRF choice is named, not
	// placed; all-equal values still draw.
	c.HeldOut = 0
	for i := range c.Surface {
		c.Surface[i].HeldOut, c.Surface[i].Train = nil, 0.5
	}
	c.Best.Config.Fusion = search.FusionRRF
	c.Best.Settings = "rrf k=60"
	out = render(t, func(b *bytes.Buffer) error { return EvalHTML(b, r) })
	surface = chart(t, out, "surface")
	if n := strings.Count(surface, "no held-out part"); n != 8 {
		t.Errorf("%d held-out maps marked empty, want 8", n)
	}
	if !strings.Contains(surface, "chosen: rrf k=60 (not on these maps)") {
		t.Errorf("an RRF choice is not named")
	}
	if n := strings.Count(surface, `class="mark"`); n != 1 {
		t.Errorf("an RRF choice is placed on the map (%d marks)", n)
	}
	// An empty surface.
	c.Surface = nil
	out = render(t, func(b *bytes.Buffer) error { return EvalHTML(b, r) })
	if !strings.Contains(out, "no weighted setting in the grid") {
		t.Errorf("empty surface not marked")
	}
}

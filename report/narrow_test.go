package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// narrowWidths are the windows the narrow tier renders the reports in: a
// phone held sideways, a browser beside an editor.
var narrowWidths = []int{640, 800}

// layoutProbe measures a rendered page's layout in the browser and writes
// what is wrong into the body's data-layout attribute, which the DOM dump
// shows: a page wider than its window, a table cell broken inside its
// words (more lines than words: one character a line), a chart label cut
// at its chart's edge, or one written over an error bar. The reports have
// no script; this one is added for the test only.
const layoutProbe = `<script>
(function () {
  var p = [];
  var de = document.documentElement;
  if (de.scrollWidth > window.innerWidth + 1) p.push("page " + de.scrollWidth + "px wide in a " + window.innerWidth + "px window");
  document.querySelectorAll("td, th").forEach(function (td) {
    // Lines are the distinct tops of the text's boxes (a row is as tall
    // as its tallest cell, so the cell's height says nothing).
    var rg = document.createRange(), tops = {};
    rg.selectNodeContents(td);
    [].forEach.call(rg.getClientRects(), function (b) { if (b.width > 0) tops[Math.round(b.top)] = true; });
    var lines = Object.keys(tops).length, words = td.textContent.trim().split(/[\s-]+/).filter(Boolean).length; // a break at a hyphen is a break between words
    if (words > 0 && lines > words) p.push("cell " + JSON.stringify(td.textContent.trim().slice(0, 40)) + " wraps into " + lines + " lines for " + words + " words");
  });
  document.querySelectorAll("svg").forEach(function (svg) {
    var r = svg.getBoundingClientRect();
    var bars = [].slice.call(svg.querySelectorAll(".wh")).map(function (e) { return e.getBoundingClientRect(); });
    svg.querySelectorAll("text").forEach(function (t) {
      var b = t.getBoundingClientRect(), name = JSON.stringify(t.textContent);
      if (b.left < r.left - 1 || b.right > r.right + 1 || b.top < r.top - 1 || b.bottom > r.bottom + 1) p.push("label " + name + " cut at its chart's edge");
      if (t.classList.contains("small")) bars.forEach(function (w) {
        if (b.left <= w.right && w.left <= b.right && b.top <= w.bottom && w.top <= b.bottom) p.push("label " + name + " over an error bar");
      });
    });
  });
  document.body.setAttribute("data-layout", JSON.stringify(p));
})();
</script>`

var layoutAttr = regexp.MustCompile(`data-layout="([^"]*)"`)

// TestBrowser_Narrow renders every report in narrow windows and checks its
// layout holds: tables keep their words whole (scrolling sideways when
// they must), and chart labels stay inside their charts, off the error
// bars.
func TestBrowser_Narrow(t *testing.T) {
	bin := chromium(t)
	pages := []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"report-measure", func(b *bytes.Buffer) error { return MeasureHTML(b, sampleMeasure()) }},
		{"report-eval", func(b *bytes.Buffer) error { return EvalHTML(b, sampleEval()) }},
		{"report-calibrate", func(b *bytes.Buffer) error { return EvalHTML(b, sampleCalibrate()) }},
	}
	var wg sync.WaitGroup
	for _, p := range pages {
		var b bytes.Buffer
		if err := p.render(&b); err != nil {
			t.Fatal(err)
		}
		// The probe is the page's only script: the policy lets it run.
		page := strings.Replace(b.String(), "</body>", layoutProbe+"</body>", 1)
		page = strings.Replace(page, "default-src 'none'", "default-src 'none'; script-src 'unsafe-inline'", 1)
		for _, w := range narrowWidths {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("%s-%d", p.name, w)
				_, dom, ok := shot(t, bin, name, []byte(page), screen{w, 1600}, false)
				if !ok {
					return
				}
				m := layoutAttr.FindStringSubmatch(dom)
				if m == nil {
					t.Errorf("%s: the layout probe did not run", name)
					return
				}
				var problems []string
				if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &problems); err != nil {
					t.Errorf("%s: layout probe: %v", name, err)
					return
				}
				for _, pr := range problems {
					t.Errorf("%s at %d px: %s", p.name, w, pr)
				}
			}()
		}
	}
	wg.Wait()
}

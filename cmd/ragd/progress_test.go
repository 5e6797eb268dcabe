package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
)

// Progress counts what happened: an embed phase that failed ends saying so,
// in plain lines and on the bar.
func TestProgress_SaysFailures(t *testing.T) {
	steps := []api.Progress{
		{Phase: api.PhaseEmbed, Scope: "docs", Total: 7},
		{Phase: api.PhaseEmbed, Scope: "docs", Failed: 7, Total: 7},
		{Phase: api.PhaseWrite, Scope: "docs", Total: 7},
		{Phase: api.PhaseEmbed, Scope: "adr", Total: 3},
		{Phase: api.PhaseEmbed, Scope: "adr", Done: 3, Total: 3},
	}
	for _, tty := range []bool{false, true} {
		var b bytes.Buffer
		p := newProgress(&b, tty)
		for _, s := range steps {
			p.update(s)
		}
		p.done()
		out := b.String()
		want := "docs: embed: 7 of 7 failed"
		if tty {
			want = "0/7 (7 failed)"
		}
		if !strings.Contains(out, want) {
			t.Errorf("tty %v: %q does not say %q", tty, out, want)
		}
		if strings.Contains(out, "adr: embed: 0 of") || strings.Count(out, "failed") != 1 {
			t.Errorf("tty %v: failures said where there were none, or more than once: %q", tty, out)
		}
	}
}

// A long phase ticks in plain lines (a log of eval --beir embedding a
// corpus for minutes shows it moving), about one line a tenth; a short one
// does not.
func TestProgress_PlainTicks(t *testing.T) {
	run := func(total, step int) string {
		var b bytes.Buffer
		p := newProgress(&b, false)
		for done := 0; done <= total; done += step {
			p.update(api.Progress{Phase: api.PhaseEmbed, Scope: "docs", Done: done, Total: total})
		}
		p.update(api.Progress{Phase: api.PhaseWrite, Scope: "docs", Total: total})
		return b.String()
	}
	out := run(8208, 64)
	for _, want := range []string{"docs: embed (8208)\n", "docs: embed 832/8208 (10%)\n", "docs: embed 7424/8208 (90%)\n", "docs: write (8208)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("plain progress lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 2+9 {
		t.Errorf("%d lines, want the two phases and nine ticks:\n%s", n, out)
	}
	if out := run(75, 5); strings.Count(out, "\n") != 2 {
		t.Errorf("a short phase ticks:\n%s", out)
	}
}

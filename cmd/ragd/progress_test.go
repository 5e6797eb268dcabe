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

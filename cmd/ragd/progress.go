package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ragd/ragd/api"
	"golang.org/x/term"
)

func isTerminal(w io.Writer) bool {
	for {
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress draws reindex progress: a bar redrawn in place on a terminal,
// one plain line per phase otherwise (logs, pipes).
type progress struct {
	w       io.Writer
	tty     bool
	last    string // phase/scope of the last plain line
	drawing bool
	// failedSaid is the phase/scope whose failures a plain line told.
	failedSaid string
	// tick is the last tenth of the phase a plain line told.
	tick int
}

// minTickTotal is the smallest phase whose plain progress ticks: a phase
// of fewer items is over before a reader looks (make run's 75 chunks); a
// corpus's 8,208 embeddings take minutes.
const minTickTotal = 500

// ticks is how many plain lines a long phase gets: one a tenth.
const ticks = 10

func newProgress(w io.Writer, tty bool) *progress { return &progress{w: w, tty: tty} }

func (p *progress) update(pr api.Progress) {
	key := pr.Scope + " " + pr.Phase
	if !p.tty {
		if key != p.last && pr.Phase != api.PhaseDone {
			fmt.Fprintf(p.w, "%s: %s (%d)\n", pr.Scope, pr.Phase, pr.Total)
			p.last, p.tick = key, 0
		}
		// A long phase ticks, so that a log shows it moving.
		if pr.Total >= minTickTotal && pr.Phase != api.PhaseDone {
			if t := ticks * (pr.Done + pr.Failed) / pr.Total; t > p.tick && t < ticks {
				fmt.Fprintf(p.w, "%s: %s %d/%d (%d%%)\n", pr.Scope, pr.Phase, pr.Done+pr.Failed, pr.Total, 100*t/ticks)
				p.tick = t
			}
		}
		// A phase that ends with failures says so: its start line could not.
		if pr.Failed > 0 && pr.Done+pr.Failed >= pr.Total && key != p.failedSaid {
			fmt.Fprintf(p.w, "%s: %s: %d of %d failed\n", pr.Scope, pr.Phase, pr.Failed, pr.Total)
			p.failedSaid = key
		}
		return
	}
	// One line per scope: the bar is redrawn in place within a scope, and
	// a scope's last state stays on screen when the next one starts.
	if p.drawing && pr.Scope != p.last {
		fmt.Fprintln(p.w)
	}
	p.last = pr.Scope
	const width = 30
	filled := width
	if pr.Total > 0 {
		filled = min(width, width*pr.Done/pr.Total)
	}
	failed := ""
	if pr.Failed > 0 {
		failed = fmt.Sprintf("(%d failed) ", pr.Failed)
	}
	fmt.Fprintf(p.w, "\r%-8s %-6s [%s%s] %d/%d %s", pr.Scope, pr.Phase,
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), pr.Done, pr.Total, failed)
	p.drawing = true
}

// Write writes a line of its own below the bar: eval's steps between the
// progress of indexing.
func (p *progress) Write(b []byte) (int, error) {
	p.done()
	return p.w.Write(b)
}

func (p *progress) done() {
	if p.drawing {
		fmt.Fprintln(p.w)
		p.drawing = false
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"golang.org/x/term"
)

func cmdReindex(ctx context.Context, e *env, args []string) error {
	fs := e.flags("reindex")
	e.projectFlag(fs)
	scope := fs.String("scope", "all", "docs, adr, session or all")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("reindex takes no arguments (use --project and --scope)")
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	bar := newProgress(e.stderr, !e.json && isTerminal(e.stderr))
	rep, err := c.ReindexStream(ctx, id, api.ReindexRequest{Scope: *scope}, func(p api.Progress) {
		if !e.json {
			bar.update(p)
		}
	})
	bar.done()
	var streamErr *client.Error
	if errors.As(err, &streamErr) && streamErr.Status == http.StatusOK && e.json {
		// The daemon failed after the stream began: say so in the JSON too.
		e.printJSON(map[string]any{"report": rep, "error": api.ErrorDetail{Code: streamErr.Code, Message: streamErr.Message}})
		return errSilent
	}
	if rep != nil && !e.json {
		printReport(e.stdout, rep)
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(rep)
	}
	return nil
}

func printReport(w io.Writer, rep *api.Report) {
	for _, sc := range rep.Scopes {
		fmt.Fprintln(w, sc.Summary)
		for _, s := range sc.Skipped {
			fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
		}
		for _, n := range sc.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	state := "complete"
	if !rep.Complete {
		state = "NOT complete (see above: lexical-only chunks or failed scopes)"
	}
	fmt.Fprintf(w, "reindex of %s: %s, %.1fs\n", rep.Project, state, float64(rep.DurationMs)/1000)
}

func isTerminal(w io.Writer) bool {
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
}

func newProgress(w io.Writer, tty bool) *progress { return &progress{w: w, tty: tty} }

func (p *progress) update(pr api.Progress) {
	key := pr.Scope + " " + pr.Phase
	if !p.tty {
		if key != p.last && pr.Phase != api.PhaseDone {
			fmt.Fprintf(p.w, "%s: %s (%d)\n", pr.Scope, pr.Phase, pr.Total)
			p.last = key
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
	fmt.Fprintf(p.w, "\r%-8s %-6s [%s%s] %d/%d ", pr.Scope, pr.Phase,
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), pr.Done, pr.Total)
	p.drawing = true
}

func (p *progress) done() {
	if p.drawing {
		fmt.Fprintln(p.w)
		p.drawing = false
	}
}

func cmdCoverage(ctx context.Context, e *env, args []string) error {
	fs := e.flags("coverage")
	e.projectFlag(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	cov, err := c.Coverage(ctx, id)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(cov)
	}
	head := "unreadable"
	if cov.Head != nil {
		head = short(cov.Head.Commit)
		if cov.Head.Branch != "" {
			head += " (" + cov.Head.Branch + ")"
		}
	}
	fmt.Fprintf(e.stdout, "project %s, HEAD %s, language %s\n", cov.Project, head, languageLabel(cov.Language, cov.LanguageSetting))
	for _, sc := range cov.Scopes {
		last := "never indexed"
		if sc.LastIndexed != nil {
			last = "indexed " + sc.LastIndexed.Local().Format("2006-01-02 15:04")
			if sc.LastCommit != "" {
				last += " from " + short(sc.LastCommit)
			}
		}
		stale := ""
		if sc.Stale {
			stale = "  STALE: " + sc.StaleReason
		}
		fmt.Fprintf(e.stdout, "  %-8s %d/%d %s indexed, %d chunks (lexical only: %d), %s%s\n",
			sc.Scope, sc.Indexed, sc.Total, sc.Unit, sc.Chunks, sc.LexicalOnly, last, stale)
	}
	for _, n := range cov.Notes {
		fmt.Fprintf(e.stdout, "  note: %s\n", n)
	}
	return nil
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}

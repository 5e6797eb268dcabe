package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
)

var reindexCommand = command{
	name:    "reindex",
	summary: "rebuild a project's index: reindex [--scope docs|adr|session|all]",
	usage: `Usage: ragd reindex [flags]

Rebuild the project's index of one scope or of all: docs and ADRs from the
commit at HEAD, sessions from the imported events. Unchanged files are not
embedded again. Progress goes to standard error (a bar on a terminal, one
line per phase otherwise), then a report per scope. The reindex is NOT
complete when chunks are lexical only (the embedding provider was
unavailable: search still finds them by their words) or a scope failed.
`,
	examples: `  ragd reindex                                # every scope of the repository here
  ragd reindex --project billing --scope adr
  ragd reindex --scope session --json
`,
	run: cmdReindex,
}

func cmdReindex(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	scope := fs.String("scope", "all", "docs, adr, session or all")
	pos, err := e.parse(fs, args)
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
	if err != nil {
		if p, perr := c.Project(ctx, id); perr == nil && folderGone(p.Path) {
			err = fmt.Errorf("%w\n%s", err, goneHint(p.ID, p.Path))
		}
	}
	return finishStream(e, rep, err, func(w io.Writer, rep *api.Report) {
		hint := ""
		if onlyProviderDown(rep) && unusableReason(rep) == "" {
			if h, herr := c.Health(ctx); herr == nil {
				hint = serveHint(h.Embedding)
			}
		}
		printReportHint(w, rep, hint)
	})
}

// finishStream prints the outcome of a streamed command: its report, as text
// or JSON, and the error when the daemon failed after the stream began (the
// JSON then holds both).
func finishStream[R any](e *env, rep *R, err error, print func(io.Writer, *R)) error {
	var streamErr *client.Error
	if errors.As(err, &streamErr) && streamErr.Status == http.StatusOK && e.json {
		e.printJSON(map[string]any{"report": rep, "error": api.ErrorDetail{Code: streamErr.Code, Message: streamErr.Message}})
		return errSilent
	}
	if rep != nil && !e.json {
		print(e.stdout, rep)
	}
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(rep)
	}
	return nil
}

// printReport prints a reindex's report.
func printReport(w io.Writer, rep *api.Report) { printReportHint(w, rep, "") }

// printReportHint prints a reindex's report; serve, when not "", is how to
// serve the embedding model that did not answer (serveHint).
func printReportHint(w io.Writer, rep *api.Report, serve string) {
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
		switch {
		case onlyDeferred(rep):
			state = "written; vectors follow in the background (ragd coverage shows how far)"
		case onlyProviderDown(rep) && unusableReason(rep) != "":
			// A provider that answers, with nothing usable: waiting for
			// it changes nothing.
			state = "written, searchable by keywords; the embedding provider answers, but with no usable vector: " +
				unusableReason(rep) + ". The background fill will not help until the provider or [embedding] is fixed " +
				"(ragd doctor checks it); then run ragd reindex"
		case onlyProviderDown(rep) && serve != "":
			// make run's path without Ollama: said once, plainly.
			state = "written; search is keyword-only until an embedding model is served (" + providerDownReason(rep) +
				"). To serve one: " + serve + "; the background fill then adds the vectors, no reindex needed"
		case onlyProviderDown(rep):
			// The path of a machine without a provider: nothing failed
			// that search needs.
			state = "written, searchable by keywords; no embedding provider answered, so no vectors yet: " +
				"the background fill adds them once it does (ragd doctor says what to start)"
		default:
			state = "NOT complete (see above: lexical-only chunks or failed scopes)"
		}
	}
	fmt.Fprintf(w, "reindex of %s: %s, %.1fs\n", rep.Project, state, float64(rep.DurationMs)/1000)
}

// providerDownReason is the reason of the first scope the provider was
// found down for.
func providerDownReason(rep *api.Report) string {
	for _, sc := range rep.Scopes {
		if sc.Embedding.ProviderDown {
			return strings.TrimSpace(strings.SplitN(sc.Embedding.Reason, ";", 2)[0])
		}
	}
	return ""
}

// unusableReason is the reason of the first scope whose provider answered
// with nothing usable, "" when none did.
func unusableReason(rep *api.Report) string {
	for _, sc := range rep.Scopes {
		if sc.Embedding.Unusable {
			return sc.Embedding.Reason
		}
	}
	return ""
}

// onlyProviderDown reports whether every scope was written and all that
// it lacks are the vectors of a provider found down.
func onlyProviderDown(rep *api.Report) bool {
	down := false
	for _, sc := range rep.Scopes {
		if sc.Status != api.StatusOK {
			return false
		}
		if sc.LexicalOnly > 0 {
			if !sc.Embedding.ProviderDown {
				return false
			}
			down = true
		}
	}
	return down
}

// onlyDeferred reports whether every scope was written and all that it
// lacks are the vectors left to the background fill.
func onlyDeferred(rep *api.Report) bool {
	deferred := false
	for _, sc := range rep.Scopes {
		if sc.Status != api.StatusOK || sc.Embedding.Failed > 0 {
			return false
		}
		if sc.LexicalOnly > 0 {
			if sc.Embedding.Deferred == 0 {
				return false
			}
			deferred = true
		}
	}
	return deferred
}

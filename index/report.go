package index

import (
	"fmt"
	"strings"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/words"
)

func ms(d time.Duration) int64 { return d.Milliseconds() }

func newScopeReport(scope string) *ragd.ScopeReport {
	return &ragd.ScopeReport{Scope: scope, Status: ragd.StatusNotRun, Skipped: []ragd.Input{}, Replaced: []ragd.Input{}, Notes: []string{}}
}

// summarize fills the Summary of a finished scope report.
func summarize(sr *ragd.ScopeReport) {
	var b strings.Builder
	b.WriteString(sr.Scope + ": ")
	switch sr.Status {
	case ragd.StatusFailed:
		b.WriteString("failed: " + sr.Error)
		sr.Summary = b.String()
		return
	case ragd.StatusCancelled, ragd.StatusNotRun:
		b.WriteString(sr.Status)
		sr.Summary = b.String()
		return
	}
	if sr.Scope == "session" {
		fmt.Fprintf(&b, "%s, %s", words.Plural(sr.Sessions, "session"), words.Plural(sr.Messages, "message"))
	} else {
		b.WriteString(words.Plural(sr.Files, "file"))
		if sr.WorkTree {
			b.WriteString(" (working tree)")
		}
	}
	c := sr.Chunks
	if sr.Unchanged {
		fmt.Fprintf(&b, ", %s (unchanged)", words.Plural(c.Total, "chunk"))
	} else {
		fmt.Fprintf(&b, ", %s (%d new, %d kept, %d deleted)", words.Plural(c.Total, "chunk"), c.Inserted, c.Kept, c.Deleted)
	}
	if n := len(sr.Skipped); n > 0 {
		fmt.Fprintf(&b, ", %d skipped", n)
	}
	if n := len(sr.Replaced); n > 0 {
		fmt.Fprintf(&b, ", %d with bad bytes replaced", n)
	}
	reason := sr.Embedding.Reason
	if reason == "" {
		reason = "no vector"
	}
	switch {
	case c.Total == 0:
	case sr.LexicalOnly == 0:
		b.WriteString(", all with vectors")
	case sr.Vectors == 0:
		b.WriteString(", lexical only: " + reason)
	default:
		fmt.Fprintf(&b, ", %d lexical only: %s", sr.LexicalOnly, reason)
	}
	// Notes last, said as notes: in parentheses after "2 skipped" one
	// read as the reason for the skips.
	for _, n := range sr.Notes {
		b.WriteString("; note: " + n)
	}
	sr.Summary = b.String()
}

// finish fills the report's totals from its scopes.
func finish(r *ragd.IndexReport, took time.Duration) {
	r.Complete = len(r.Scopes) > 0
	var parts []string
	for _, sr := range r.Scopes {
		if sr.Summary == "" {
			summarize(sr)
		}
		parts = append(parts, sr.Summary)
		r.Complete = r.Complete && sr.Complete
	}
	r.Summary = strings.Join(parts, "; ")
	r.DurationMs = ms(took)
}

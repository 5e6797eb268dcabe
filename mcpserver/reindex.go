package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/api"
)

// ReindexInput is the reindex tool's arguments.
type ReindexInput struct {
	Project string   `json:"project,omitempty"`
	Scopes  []string `json:"scopes,omitempty" jsonschema:"Optional. Which scopes to rebuild: docs, adr, session. Default: all."`
}

// ReindexOutput is what a reindex did.
type ReindexOutput struct {
	Project  string `json:"project"`
	Complete bool   `json:"complete" jsonschema:"true when every scope was written and every chunk has a vector."`
	Summary  string `json:"summary"`
	// DurationMs is the reindex's wall time.
	DurationMs int64         `json:"durationMs"`
	Scopes     []ScopeReport `json:"scopes"`
}

// ScopeReport is what a reindex did to one scope.
type ScopeReport struct {
	Scope       string `json:"scope"`
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Chunks      int    `json:"chunks"`
	Inserted    int    `json:"inserted"`
	Deleted     int    `json:"deleted"`
	LexicalOnly int    `json:"lexicalOnly"`
	Summary     string `json:"summary"`
}

func (s *Server) reindex(ctx context.Context, req *mcp.CallToolRequest, in ReindexInput) (*mcp.CallToolResult, ReindexOutput, error) {
	return run(ctx, s, in.Project, func(project string) (string, ReindexOutput, error) {
		// A client that asked for progress gets the daemon's, step by step.
		var progress func(api.Progress)
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			steps := 0
			progress = func(p api.Progress) {
				steps++
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(steps),
					Message: fmt.Sprintf("%s %s %d/%d", p.Scope, p.Phase, p.Done, p.Total)}) // best effort: the report says it all
			}
		}
		rep, err := s.opts.Client.ReindexStream(ctx, project, api.ReindexRequest{Scopes: in.Scopes}, progress)
		if err != nil {
			return "", ReindexOutput{}, err
		}
		out := ReindexOutput{Project: rep.Project, Complete: rep.Complete, Summary: rep.Summary, DurationMs: rep.DurationMs, Scopes: []ScopeReport{}}
		var b strings.Builder
		fmt.Fprintf(&b, "Reindexed project %s in %.1fs", rep.Project, float64(rep.DurationMs)/1000)
		if !rep.Complete {
			b.WriteString(" (incomplete: some chunks are keyword-only or a scope failed)")
		}
		b.WriteString("\n")
		for _, sc := range rep.Scopes {
			out.Scopes = append(out.Scopes, ScopeReport{Scope: sc.Scope, Status: sc.Status, Error: sc.Error, Commit: sc.Commit,
				Chunks: sc.Chunks.Total, Inserted: sc.Chunks.Inserted, Deleted: sc.Chunks.Deleted, LexicalOnly: sc.LexicalOnly, Summary: sc.Summary})
			b.WriteString("  " + scopeLine(sc) + "\n")
		}
		return strings.TrimSuffix(b.String(), "\n"), out, nil
	})
}

// scopeLine is a scope's line of the reindex result: its summary, which
// names the scope and says how it went ("docs: 6 files, …", "adr: failed:
// …"), or its status when it has none.
func scopeLine(sc *api.ScopeReport) string {
	if sc.Summary != "" {
		return sc.Summary
	}
	line := sc.Scope + ": " + sc.Status
	if sc.Error != "" {
		line += ": " + sc.Error
	}
	return line
}

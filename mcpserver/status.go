package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/client"
)

// StatusInput is the status tool's arguments.
type StatusInput struct {
	Project string `json:"project,omitempty"`
}

// StatusOutput is what ragd has indexed, and whether it can search.
type StatusOutput struct {
	Daemon   DaemonStatus `json:"daemon"`
	Vectors  *Vectors     `json:"vectors,omitempty" jsonschema:"Whether semantic search is available; without it searches are keyword-only."`
	Projects []string     `json:"projects" jsonschema:"The registered projects."`
	// Project is the project reported on; "" when none resolved (Problem
	// says why).
	Project string `json:"project,omitempty"`
	Path    string `json:"path,omitempty"`
	Problem string `json:"problem,omitempty" jsonschema:"Why no project could be reported on."`
	// Head is the repository's current commit; Branch its branch.
	Head           string        `json:"head,omitempty"`
	Branch         string        `json:"branch,omitempty"`
	ReindexRunning bool          `json:"reindexRunning"`
	Notes          []string      `json:"notes,omitempty"`
	Scopes         []ScopeStatus `json:"scopes,omitempty"`
}

// DaemonStatus says whether the daemon answers.
type DaemonStatus struct {
	Running bool   `json:"running"`
	Socket  string `json:"socket"`
	Version string `json:"version,omitempty"`
	// Start is the command to start it, when it does not run.
	Start string `json:"start,omitempty"`
}

// Vectors is the state of the embedding provider.
type Vectors struct {
	Available bool   `json:"available"`
	Model     string `json:"model"`
	Reason    string `json:"reason,omitempty"`
}

// ScopeStatus is one scope's index against its sources.
type ScopeStatus struct {
	Scope string `json:"scope"`
	// Unit is what Total and Indexed count: files or sessions.
	Unit        string     `json:"unit"`
	Total       int        `json:"total"`
	Indexed     int        `json:"indexed"`
	Chunks      int        `json:"chunks"`
	LexicalOnly int        `json:"lexicalOnly" jsonschema:"Chunks without a vector: found by keywords only."`
	Commit      string     `json:"commit,omitempty" jsonschema:"The commit the last successful reindex read."`
	LastIndexed *time.Time `json:"lastIndexed"`
	Stale       bool       `json:"stale"`
	StaleReason string     `json:"staleReason,omitempty"`
}

func (s *Server) status(ctx context.Context, _ *mcp.CallToolRequest, in StatusInput) (*mcp.CallToolResult, StatusOutput, error) {
	out := StatusOutput{Daemon: DaemonStatus{Socket: s.opts.Client.Socket()}, Projects: []string{}}
	h, err := s.opts.Client.Health(ctx)
	if errors.Is(err, client.ErrNotRunning) {
		out.Daemon.Start = StartCommand
		return result(fmt.Sprintf("ragd is not running (nothing answers on %s). Start it with %s.", out.Daemon.Socket, StartCommand)), out, nil
	}
	if err != nil {
		return nil, out, s.toolError(in.Project, err)
	}
	out.Daemon.Running, out.Daemon.Version = true, h.Version
	out.Vectors = &Vectors{Available: h.Embedding.Available, Model: h.Embedding.Model, Reason: h.Embedding.Reason}
	list, err := s.opts.Client.Projects(ctx)
	if err != nil {
		return nil, out, s.toolError(in.Project, err)
	}
	for _, p := range list {
		out.Projects = append(out.Projects, p.ID)
	}
	project, err := s.resolveProject(ctx, in.Project)
	if err != nil {
		out.Problem = s.toolError(in.Project, err).Error()
		return result(statusText(out)), out, nil
	}
	cov, err := s.opts.Client.Coverage(ctx, project)
	if err != nil {
		return nil, out, s.toolError(project, err)
	}
	out.Project, out.ReindexRunning, out.Notes = project, cov.Running, cov.Notes
	for _, p := range list {
		if p.ID == project {
			out.Path = p.Path
		}
	}
	if cov.Head != nil {
		out.Head, out.Branch = cov.Head.Commit, cov.Head.Branch
	}
	for _, sc := range cov.Scopes {
		out.Scopes = append(out.Scopes, ScopeStatus{Scope: sc.Scope, Unit: sc.Unit, Total: sc.Total, Indexed: sc.Indexed,
			Chunks: sc.Chunks, LexicalOnly: sc.LexicalOnly, Commit: sc.LastCommit, LastIndexed: sc.LastIndexed,
			Stale: sc.Stale, StaleReason: sc.StaleReason})
	}
	return result(statusText(out)), out, nil
}

func statusText(out StatusOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ragd %s runs on %s", out.Daemon.Version, out.Daemon.Socket)
	if v := out.Vectors; v != nil {
		if v.Available {
			fmt.Fprintf(&b, "; semantic search available (%s)", v.Model)
		} else {
			fmt.Fprintf(&b, "; semantic search unavailable, keyword-only: %s", v.Reason)
		}
	}
	fmt.Fprintf(&b, "\nprojects: %s\n", strings.Join(out.Projects, ", "))
	if out.Project == "" {
		b.WriteString(out.Problem)
		return b.String()
	}
	fmt.Fprintf(&b, "project %s (%s), HEAD %s", out.Project, out.Path, shortCommit(out.Head))
	if out.Branch != "" {
		fmt.Fprintf(&b, " on %s", out.Branch)
	}
	if out.ReindexRunning {
		b.WriteString("; a reindex is running")
	}
	b.WriteString("\n")
	stale := false
	for _, sc := range out.Scopes {
		fmt.Fprintf(&b, "  %s: %d/%d %s indexed, %d chunks (%d keyword-only)", sc.Scope, sc.Indexed, sc.Total, sc.Unit, sc.Chunks, sc.LexicalOnly)
		if sc.Commit != "" {
			fmt.Fprintf(&b, ", from %s", shortCommit(sc.Commit))
		}
		if sc.Stale {
			stale = true
			fmt.Fprintf(&b, ", STALE: %s", sc.StaleReason)
		}
		b.WriteString("\n")
	}
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if stale {
		b.WriteString("Stale scopes may answer from old text: call reindex to refresh them.\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Package mcpserver is ragd's Model Context Protocol adapter: it offers the
// daemon's search, citations, votes, status and reindex as MCP tools, so that
// an agent or editor (Claude Code, Codex CLI, Gemini CLI, VS Code, Cursor…)
// uses ragd without speaking HTTP over a Unix socket. It talks to the running
// daemon through the typed socket client only: it never opens the database,
// and a daemon that stops or restarts costs the tools that run meanwhile,
// never the server.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
)

// Name is the server's name in the MCP handshake.
const Name = "ragd"

// StartCommand is what a tool result tells to run when no daemon answers.
const StartCommand = "`ragd serve` (foreground) or `ragd service install && ragd service start` (background)"

// maxClientName bounds the client name recorded as the actor, in runes: the
// daemon refuses longer agent names (search.MaxAgentName).
const maxClientName = 64

// instructions is what the server tells a client about itself at the
// handshake; clients show it to the model beside the tool list.
const instructions = `ragd indexes this project's documentation, architecture decision records (ADRs, under docs/adr/) ` +
	`and past conversation sessions, and answers hybrid (semantic + keyword) searches with citations. ` +
	`Call search before answering questions about how the project works or why it was built this way; ` +
	`open a hit in full with get; after using hits, vote with feedback so ranking improves. ` +
	`status says what is indexed and stale; reindex refreshes it. ` +
	`The project defaults to the git repository of the working directory.`

// Options configure a Server.
type Options struct {
	// Client is the daemon's socket client.
	Client *client.Client
	// Dir is the directory whose git repository is the default project:
	// the working directory the MCP client started the server in. Optional:
	// the process's working directory.
	Dir string
	// Project is the default project (a name, or a path inside a registered
	// repository), when it is not Dir's. Optional.
	Project string
	// Version is ragd's version, told at the handshake.
	Version string
	// Logger logs to stderr (stdout is the protocol). Optional: discard.
	Logger *slog.Logger
}

// Server is ragd's MCP server.
type Server struct {
	opts Options
	mcp  *mcp.Server
	// arguments are the names each tool takes, by tool (set by add, read
	// by checkArguments).
	arguments map[string][]string

	mu sync.Mutex
	// project is the default project once resolved from Dir; "" until
	// then, and again after the daemon forgets it.
	project string
}

// New returns a server with ragd's tools.
func New(opts Options) (*Server, error) {
	if opts.Client == nil {
		return nil, errors.New("mcpserver: no client")
	}
	if opts.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("mcpserver: working directory: %w", err)
		}
		opts.Dir = wd
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, arguments: map[string][]string{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "ragd: project docs, ADRs and sessions search", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: opts.Logger})
	if err := s.addTools(); err != nil {
		return nil, err
	}
	s.mcp.AddReceivingMiddleware(s.checkArguments)
	return s, nil
}

// MCP returns the SDK server, for transports other than Run's.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client over t until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, t)
}

// actor is who the daemon records as asking: the MCP client's name from the
// handshake, as a named agent ("agent:claude-code"); a plain agent when the
// client gave no usable name.
func actor(req *mcp.CallToolRequest) string {
	var name string
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
			name = p.ClientInfo.Name
		}
	}
	name = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, strings.TrimSpace(name))
	if name = strings.TrimSpace(name); name == "" {
		return ragd.ActorAgent
	}
	if r := []rune(name); len(r) > maxClientName {
		name = string(r[:maxClientName])
	}
	return "agent:" + name
}

// resolveProject returns the project a tool is about: the one asked for
// (a name, or a path inside a registered repository), or else the
// registered project whose repository holds Dir, the deepest when they nest.
func (s *Server) resolveProject(ctx context.Context, asked string) (string, error) {
	if asked == "" {
		asked = s.opts.Project
	}
	if asked == "" {
		s.mu.Lock()
		p := s.project
		s.mu.Unlock()
		if p != "" {
			return p, nil
		}
	}
	list, err := s.opts.Client.Projects(ctx)
	if err != nil {
		return "", err
	}
	if asked != "" {
		for _, p := range list {
			if p.ID == asked {
				return p.ID, nil
			}
		}
		if filepath.IsAbs(asked) {
			if p := deepest(list, asked); p != "" {
				return p, nil
			}
		}
		return "", fmt.Errorf("%w: project %q is not registered; registered: %s. Register a repository with `ragd add PATH`",
			ragd.ErrNotFound, asked, names(list))
	}
	p := deepest(list, s.opts.Dir)
	if p == "" {
		if !inGitRepository(s.opts.Dir) {
			// ragd add would refuse the folder: say what would work.
			return "", fmt.Errorf("%w: the working directory %s is not inside a git repository, so it names no project; pass project "+
				"(registered: %s), or start the MCP client in a registered repository's folder (`ragd add PATH` registers one)",
				ragd.ErrNotFound, s.opts.Dir, names(list))
		}
		return "", fmt.Errorf("%w: no registered project holds the working directory %s; pass project (registered: %s), "+
			"or register this repository with `ragd add %s` and index it with the reindex tool", ragd.ErrNotFound, s.opts.Dir, names(list), s.opts.Dir)
	}
	s.mu.Lock()
	s.project = p
	s.mu.Unlock()
	return p, nil
}

// forget drops the cached default project after the daemon said it does not
// know it (removed, or a new daemon with another database).
func (s *Server) forget(project string) {
	s.mu.Lock()
	if s.project == project {
		s.project = ""
	}
	s.mu.Unlock()
}

// deepest returns the project whose path holds dir, the deepest one, or "".
func deepest(list []api.ProjectInfo, dir string) string {
	dirs := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dirs[0] {
		dirs = append(dirs, real)
	}
	best, bestLen := "", -1
	for _, p := range list {
		roots := []string{filepath.Clean(p.Path)}
		if real, err := filepath.EvalSymlinks(p.Path); err == nil && real != roots[0] {
			roots = append(roots, real)
		}
		for _, root := range roots {
			for _, d := range dirs {
				if within(root, d) && len(root) > bestLen {
					best, bestLen = p.ID, len(root)
				}
			}
		}
	}
	return best
}

// within reports whether path is root or below it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func names(list []api.ProjectInfo) string {
	if len(list) == 0 {
		return "none"
	}
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = fmt.Sprintf("%s (%s)", p.ID, p.Path)
	}
	return strings.Join(out, ", ")
}

// toolError turns a failure into the message a model can act on. The SDK
// returns it as a tool error (isError), never as a protocol error: the
// server goes on.
func (s *Server) toolError(project string, err error) error {
	var ce *client.Error
	switch {
	case errors.Is(err, client.ErrNotRunning):
		return fmt.Errorf("ragd is not running (nothing answers on %s). Start it with %s, then call this tool again",
			s.opts.Client.Socket(), StartCommand)
	case errors.Is(err, ragd.ErrAlreadyRunning):
		return fmt.Errorf("a reindex of project %s is already running, so none was started; "+
			"call status to see when it is done (reindexRunning false), then search again", project)
	case errors.Is(err, ragd.ErrInvalid):
		return fmt.Errorf("invalid arguments: %s", message(err))
	case errors.Is(err, ragd.ErrNotFound):
		if errors.As(err, &ce) && strings.HasPrefix(ce.Message, "unknown project") {
			s.forget(project)
		}
		return errors.New(message(err))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("cancelled: %w", err)
	case errors.As(err, &ce):
		return fmt.Errorf("ragd answered %d %s: %s", ce.Status, ce.Code, ce.Message)
	}
	return fmt.Errorf("ragd failed: %w", err)
}

// message is the daemon's message for a daemon error, else the error.
func message(err error) string {
	var ce *client.Error
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}

// inGitRepository reports whether dir is inside a git work tree: whether
// it or a parent holds a .git entry (a folder, or the file of a linked
// work tree). The daemon reads the repository; this only words an error.
func inGitRepository(dir string) bool {
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

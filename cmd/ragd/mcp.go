package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/mcpserver"
)

var mcpCommand = command{
	name:    "mcp",
	summary: "serve the MCP tools (search, get, feedback, status, reindex) on stdio for an agent or editor",
	usage: `Usage: ragd mcp [flags]

Serve ragd's Model Context Protocol tools on standard input and output, for
the agent or editor that spawned it: search, get (open a citation), feedback,
status and reindex. It talks to the running daemon over its socket and never
opens the database; when no daemon runs, every tool says so with the command
that starts one. The project defaults to the git repository of the working
directory. Registration blocks for Claude Code, Codex CLI, Gemini CLI, VS Code
and Cursor are in docs/mcp.md.
`,
	examples: `  claude mcp add --scope user ragd -- ragd mcp
  ragd mcp --project myproj
`,
	run: cmdMCP,
}

// cmdMCP serves ragd's MCP tools on stdin and stdout for one client (an
// agent or editor that spawned it), talking to the running daemon.
func cmdMCP(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	level := fs.String("log-level", "warn", "log level on stderr: debug, info, warn, error")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	defer c.Close()
	srv, err := mcpserver.New(mcpserver.Options{Client: c, Project: e.project, Version: daemon.Version,
		Logger: newLogger(e.stderr, *level)})
	if err != nil {
		return err
	}
	// A line a client gets wrong is answered with a JSON-RPC error, and the
	// server reads on (the SDK's IOTransport would end the session).
	err = srv.Run(ctx, &mcpserver.LineTransport{Reader: readCloser(e.stdin), Writer: e.stdout})
	if ctx.Err() != nil {
		return nil // interrupted: a normal end
	}
	return err
}

// readCloser makes stdin closable as the transport wants, closing it when
// it is a file.
func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// mcpCheck is the `ragd doctor` check that `ragd mcp` can reach the daemon:
// it runs the MCP server in memory against socket, as a client would, and
// calls its status tool.
func mcpCheck(ctx context.Context, socket string) check {
	c := client.New(socket)
	defer c.Close()
	fail := func(detail string) check {
		return check{Name: "mcp", Detail: detail, Fix: "start the daemon: `ragd serve` (foreground) or `ragd service start`"}
	}
	srv, err := mcpserver.New(mcpserver.Options{Client: c, Version: daemon.Version, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fail(err.Error())
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		return fail("start the MCP server: " + err.Error())
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ragd-doctor", Version: daemon.Version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return fail("connect to the MCP server: " + err.Error())
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fail("list tools: " + err.Error())
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "status"})
	if err != nil {
		return fail("call status: " + err.Error())
	}
	var st2 mcpserver.StatusOutput
	if err := remarshal(res.StructuredContent, &st2); err != nil || res.IsError || !st2.Daemon.Running {
		return fail("`ragd mcp` does not reach the daemon on " + socket)
	}
	names := make([]string, len(tools.Tools))
	for i, t := range tools.Tools {
		names[i] = t.Name
	}
	return check{Name: "mcp", OK: true, Detail: fmt.Sprintf("`ragd mcp` reaches ragd %s on %s; tools: %s",
		st2.Daemon.Version, socket, strings.Join(names, ", "))}
}

// remarshal decodes a structured tool result (decoded JSON) into out.
func remarshal(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

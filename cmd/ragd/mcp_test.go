package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/gittest"
)

// nodeTestsEnv turns on the tier that runs a client no one here wrote (the
// official TypeScript SDK); scripts/test.sh sets it after `npm ci`.
const nodeTestsEnv = "RAGD_NODE_TESTS"

// transportADR answers the question the agent tiers ask.
const transportADR = "# ADR 3: Transport\n\n## Context\n\nEditors and agents on the same machine query the index.\n\n" +
	"## Decision\n\nThe daemon listens on a Unix domain socket with mode 0600, never on a TCP port, " +
	"so that only its owner can query the index.\n\n## Consequences\n\nRemote clients need an SSH tunnel.\n"

// startIndexed starts a daemon pointed at by the XDG variables, over a
// repository of daemontest.Docs plus transportADR, indexed.
func startIndexed(t *testing.T) (*daemontest.Daemon, *gittest.Repo) {
	t.Helper()
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := startDaemon(t, srv.URL)
	files := map[string]string{"docs/adr/0003-transport.md": transportADR}
	for k, v := range daemontest.Docs {
		files[k] = v
	}
	repo := daemontest.Repo(t, files)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	if rep := daemontest.Reindex(t, d.Client, "demo"); !rep.Complete {
		t.Fatalf("reindex: %s", rep.Summary)
	}
	return d, repo
}

// ragdMCP is the command `ragd mcp` as this test binary runs it, in dir.
func ragdMCP(t *testing.T, d *daemontest.Daemon, dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "mcp")
	cmd.Env = append(append(os.Environ(), d.World.Env...), mainChildEnv+"=1")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	return cmd
}

// TestMCP_Command runs `ragd mcp` as a process with the Go SDK's client: the
// subcommand finds the daemon from the configuration and the project from
// its working directory.
func TestMCP_Command(t *testing.T) {
	d, repo := startIndexed(t)
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.Timeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cmd-test", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: ragdMCP(t, d, filepath.Join(repo.Dir, "docs", "adr"))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "Unix domain socket TCP port", "limit": 1}})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %+v", err, res)
	}
	var out struct {
		Project string
		Hits    []struct{ File string }
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	if out.Project != "demo" || len(out.Hits) != 1 || out.Hits[0].File != "docs/adr/0003-transport.md" {
		t.Errorf("search through `ragd mcp`: %s", b)
	}
}

// TestMCP_DoctorCheck is the check `ragd doctor` can run: it passes against
// a daemon and says how to start one without.
func TestMCP_DoctorCheck(t *testing.T) {
	ctx := context.Background()
	d, _ := startIndexed(t)
	c := mcpCheck(ctx, d.Socket())
	if !c.OK || !strings.Contains(c.Detail, "feedback, get, reindex, search, status") {
		t.Errorf("check with a daemon: %+v", c)
	}
	d.Stop(t)
	c = mcpCheck(ctx, d.Socket())
	if c.OK || !strings.Contains(c.Fix, "ragd serve") {
		t.Errorf("check without a daemon: %+v", c)
	}
}

// TestMCP_NodeClient is the real-client tier: the official TypeScript SDK
// spawns `ragd mcp`, finds the ADR section that answers a question, opens it
// and votes (tests/mcp-node/mcp_client.mjs).
func TestMCP_NodeClient(t *testing.T) {
	if os.Getenv(nodeTestsEnv) != "1" {
		t.Skipf("the TypeScript SDK tier runs with %s=1 (scripts/test.sh sets it after `npm ci` in tests/mcp-node)", nodeTestsEnv)
	}
	dir, err := filepath.Abs("../../tests/mcp-node")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the TypeScript SDK is not installed: run `npm ci` in %s (%v)", dir, err)
	}
	d, repo := startIndexed(t)
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.Timeout)
	defer cancel()
	node := exec.CommandContext(ctx, "node", "mcp_client.mjs")
	node.Dir = dir
	node.Env = append(append(os.Environ(), d.World.Env...), mainChildEnv+"=1",
		"RAGD_BIN="+os.Args[0], `RAGD_BIN_ARGS=["mcp"]`, "RAGD_MCP_CWD="+repo.Dir,
		"RAGD_QUESTION=Why does the daemon listen on a Unix domain socket and not a TCP port?",
		"RAGD_WANT_FILE=docs/adr/0003-transport.md", "RAGD_WANT_HEADING=Decision",
		"RAGD_WANT_TEXT=only its owner can query the index")
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("node client: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	var got struct {
		OK       bool   `json:"ok"`
		SearchID int64  `json:"searchId"`
		ChunkID  string `json:"chunkId"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &got); err != nil || !got.OK {
		t.Fatalf("node client said %q (%v)", stdout.Bytes(), err)
	}
	// The daemon holds the vote the client cast, as that client.
	votes, err := d.Store().SearchVotes(ctx, got.SearchID)
	if err != nil || len(votes) != 1 || votes[0].ChunkID != got.ChunkID || votes[0].Actor != "agent:node-sdk-tier" {
		t.Errorf("votes of search %d: %+v, %v", got.SearchID, votes, err)
	}
}

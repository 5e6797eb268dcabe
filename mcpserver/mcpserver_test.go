package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/mcpserver"
	"github.com/ragd/ragd/search"
)

// Environment of the child process that serves MCP on its stdio: the test
// binary re-executed, so that every test speaks to a real server process
// over a real pipe, as an agent's client does.
const (
	serveSocketEnv = "RAGD_MCP_TEST_SOCKET"
	serveDirEnv    = "RAGD_MCP_TEST_DIR"
)

// clientName is the name the tests' MCP client gives at the handshake.
const clientName = "mcp-go-test"

func TestMain(m *testing.M) {
	if socket := os.Getenv(serveSocketEnv); socket != "" {
		c := client.New(socket)
		srv, err := mcpserver.New(mcpserver.Options{Client: c, Dir: os.Getenv(serveDirEnv), Version: "test"})
		if err == nil {
			err = srv.Run(context.Background(), &mcpserver.LineTransport{Reader: os.Stdin, Writer: os.Stdout})
		}
		if err != nil {
			os.Stderr.WriteString("mcp child: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// connect spawns a server process for the daemon on socket with dir as its
// working directory, and connects an MCP client to it over its stdio.
func connect(t testing.TB, socket, dir string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveSocketEnv+"="+socket, serveDirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.Timeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to the MCP server: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its result; a protocol error fails t (a
// tool's own error is a result with IsError).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.Timeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s %v: protocol error %v", name, args, err)
	}
	return res
}

// text is a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok decodes a successful result's structured content into a T, failing t
// when the tool failed.
func ok[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	var out T
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return out
}

// failed checks that res is a tool error whose text says each of says.
func failed(t *testing.T, what string, res *mcp.CallToolResult, says ...string) {
	t.Helper()
	if !res.IsError {
		t.Errorf("%s: not an error: %s", what, text(res))
		return
	}
	for _, s := range says {
		if !strings.Contains(text(res), s) {
			t.Errorf("%s: error %q does not say %q", what, text(res), s)
		}
	}
}

func newOllama(t testing.TB) *ollamatest.Server {
	t.Helper()
	return ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
}

// startDocs starts a daemon over a repository of daemontest.Docs registered
// as "demo", not indexed yet.
func startDocs(t *testing.T, srv *ollamatest.Server) (*daemontest.Daemon, *gittest.Repo) {
	t.Helper()
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(srv.URL))
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	return d, repo
}

func TestTools_List(t *testing.T) {
	d, repo := startDocs(t, newOllama(t))
	cs := connect(t, d.Socket(), repo.Dir)
	if got := cs.InitializeResult().ServerInfo.Name; got != "ragd" {
		t.Errorf("server name %q", got)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "search") {
		t.Errorf("instructions %q", cs.InitializeResult().Instructions)
	}
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]map[string]any{}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 100 || tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("tool %s: description %q, output schema %v, annotations %v", tool.Name, tool.Description, tool.OutputSchema, tool.Annotations)
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s map[string]any
		json.Unmarshal(b, &s)
		schemas[tool.Name] = s["properties"].(map[string]any)
	}
	if want := []string{"search", "get", "feedback", "status", "reindex"}; !slices.Equal(names, want) && !sameSet(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	prop := func(tool, name string) map[string]any { return schemas[tool][name].(map[string]any) }
	if l := prop("search", "limit"); l["minimum"] != 1.0 || l["maximum"] != float64(search.MaxLimit) {
		t.Errorf("search limit schema %v, want 1..20", l)
	}
	if s := prop("search", "scopes")["items"].(map[string]any); !sameSet(anyStrings(s["enum"]), ragd.Scopes) {
		t.Errorf("search scopes schema %v", s)
	}
	if f := prop("search", "fusion"); !sameSet(anyStrings(f["enum"]), fusionNames()) {
		t.Errorf("search fusion schema %v", f)
	}
	if d, _ := prop("search", "fusion")["description"].(string); !strings.Contains(d, "Default") {
		t.Errorf("search fusion description %q lacks the default", d)
	} else {
		for _, f := range fusionNames() {
			if !strings.Contains(d, f+" (") {
				t.Errorf("search fusion description %q does not say what %s does", d, f)
			}
		}
	}
	if v := prop("feedback", "verdict"); !sameSet(anyStrings(v["enum"]), []string{"useful", "irrelevant"}) {
		t.Errorf("feedback verdict schema %v", v)
	}
	if a := prop("get", "around"); a["minimum"] != 0.0 || a["maximum"] != 10.0 {
		t.Errorf("get around schema %v", a)
	}
	for _, tool := range []string{"search", "get", "status", "reindex"} {
		if _, ok := schemas[tool]["project"]; !ok {
			t.Errorf("tool %s takes no project", tool)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestTools_FindOpenVote is the agent's path: status says nothing is
// indexed, reindex indexes, search finds the ADR section that answers, get
// opens it and the message around a session hit, feedback votes; the
// daemon records the search and the vote as the MCP client.
func TestTools_FindOpenVote(t *testing.T) {
	ctx := context.Background()
	d, repo := startDocs(t, newOllama(t))
	at := func(s string) time.Time { tm, _ := time.Parse(time.RFC3339, s); return tm }
	if _, err := d.Client.AppendEvents(ctx, "demo", []ragd.Event{
		{ID: "e1", SessionID: "s1", Type: ragd.TypeChatMessage, Actor: "person", Text: "Where do the zeppelin hangar logs go?", Time: at("2026-11-29T12:00:00Z"), Title: "Logs"},
		{ID: "e2", SessionID: "s1", Type: ragd.TypeAgentResponse, Actor: "agent", Text: "The zeppelin hangar logs go to the state directory.", Time: at("2026-11-29T12:00:05Z")},
		{ID: "e3", SessionID: "s1", Type: ragd.TypeChatMessage, Actor: "person", Text: "Thanks.", Time: at("2026-11-29T12:00:09Z")},
	}); err != nil {
		daemontest.Fatal(t, "append", err)
	}
	// The server runs in a subdirectory of the repository: the project is
	// found from there.
	sub := repo.Dir + "/docs"
	cs := connect(t, d.Socket(), sub)

	st := ok[mcpserver.StatusOutput](t, call(t, cs, "status", nil))
	if !st.Daemon.Running || st.Project != "demo" || st.Vectors == nil || !st.Vectors.Available || len(st.Scopes) != 3 {
		t.Fatalf("status before indexing: %+v", st)
	}
	for _, sc := range st.Scopes {
		if sc.Scope != "session" && (!sc.Stale || sc.Chunks != 0) {
			t.Errorf("scope %s before indexing: %+v, want stale and empty", sc.Scope, sc)
		}
	}

	rep := ok[mcpserver.ReindexOutput](t, call(t, cs, "reindex", nil))
	if !rep.Complete || rep.Project != "demo" || len(rep.Scopes) != 3 {
		t.Fatalf("reindex: %+v", rep)
	}
	st = ok[mcpserver.StatusOutput](t, call(t, cs, "status", map[string]any{"project": "demo"}))
	head := repo.Head(t)
	for _, sc := range st.Scopes {
		if sc.Stale || sc.Chunks == 0 || (sc.Scope != "session" && sc.Commit != head) {
			t.Errorf("scope %s after reindex: %+v", sc.Scope, sc)
		}
	}
	if st.Head != head {
		t.Errorf("status head %s, want %s", st.Head, head)
	}

	res := call(t, cs, "search", map[string]any{"query": "where are vectors and telemetry stored? sqlite-vec FTS5"})
	out := ok[mcpserver.SearchOutput](t, res)
	if out.SearchID == nil || out.Degraded || out.Project != "demo" || len(out.Hits) == 0 || out.VectorShare == nil || *out.VectorShare != 1 {
		t.Fatalf("search: %+v", out)
	}
	top := out.Hits[0]
	if top.Scope != "adr" || top.File != "docs/adr/0001-storage.md" || !slices.Equal(top.HeadingPath, []string{"Decision"}) ||
		top.Commit != head || top.Text != "" || !strings.Contains(top.Snippet, "sqlite-vec") ||
		top.Citation != "docs/adr/0001-storage.md § Decision @"+head[:7] {
		t.Errorf("top hit %+v", top)
	}
	if txt := text(res); !strings.Contains(txt, top.Citation) || !strings.Contains(txt, top.ChunkID) || !strings.Contains(txt, "searchId") {
		t.Errorf("search text form lacks the citation, chunk id or search id:\n%s", txt)
	}
	rec, err := d.Store().LoadSearch(ctx, *out.SearchID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Actor != "agent:"+clientName {
		t.Errorf("search recorded as %q, want agent:%s", rec.Actor, clientName)
	}

	// Full text on request, bounded limit and scope.
	full := ok[mcpserver.SearchOutput](t, call(t, cs, "search", map[string]any{"query": "sqlite-vec", "fullText": true, "limit": 1, "scopes": []string{"adr"}}))
	if len(full.Hits) != 1 || full.Hits[0].Snippet != "" || !strings.Contains(full.Hits[0].Text, "## Decision\n\nWe keep every chunk") {
		t.Errorf("full text search: %+v", full.Hits)
	}

	// get by chunk id: the whole section, with where to read on.
	res = call(t, cs, "get", map[string]any{"chunkId": top.ChunkID})
	g := ok[mcpserver.GetOutput](t, res)
	if g.ChunkID != top.ChunkID || g.File != top.File || !strings.Contains(g.Text, "telemetry beside it") ||
		g.Parent == nil || len(g.Parent.HeadingPath) != 0 || g.Next == nil || !slices.Equal(g.Next.HeadingPath, []string{"Consequences"}) {
		t.Errorf("get by chunk: %+v", g)
	}
	if !strings.Contains(text(res), "telemetry beside it") || !strings.Contains(text(res), `next: ["Consequences"]`) {
		t.Errorf("get text form:\n%s", text(res))
	}
	// get by file and heading path: the next section.
	g = ok[mcpserver.GetOutput](t, call(t, cs, "get", map[string]any{"file": top.File, "headingPath": g.Next.HeadingPath}))
	if !strings.Contains(g.Text, "write-ahead log") || g.Previous == nil || !slices.Equal(g.Previous.HeadingPath, []string{"Decision"}) {
		t.Errorf("get by heading: %+v", g)
	}

	// A session hit opens to the message and the ones around it.
	sess := ok[mcpserver.SearchOutput](t, call(t, cs, "search", map[string]any{"query": "zeppelin hangar logs", "scopes": []string{"session"}}))
	if len(sess.Hits) == 0 || sess.Hits[0].SessionID != "s1" {
		t.Fatalf("session search: %+v", sess.Hits)
	}
	g = ok[mcpserver.GetOutput](t, call(t, cs, "get", map[string]any{"eventId": "e2", "sessionId": "s1", "around": 1}))
	if g.Message == nil || g.Message.EventID != "e2" || len(g.Before) != 1 || g.Before[0].EventID != "e1" ||
		len(g.After) != 1 || g.After[0].EventID != "e3" || g.Text != "The zeppelin hangar logs go to the state directory." {
		t.Errorf("get by event: %+v", g)
	}

	// The vote carries the client's name.
	v := ok[mcpserver.FeedbackOutput](t, call(t, cs, "feedback", map[string]any{"searchId": *out.SearchID, "chunkId": top.ChunkID, "verdict": "useful"}))
	if v.Rank != 1 || v.Verdict != "useful" || v.Actor != "agent:"+clientName {
		t.Errorf("vote %+v", v)
	}
	votes, err := d.Store().SearchVotes(ctx, *out.SearchID)
	if err != nil || len(votes) != 1 || votes[0].Actor != "agent:"+clientName || votes[0].Verdict != "useful" {
		t.Errorf("recorded votes %+v, %v", votes, err)
	}
	v = ok[mcpserver.FeedbackOutput](t, call(t, cs, "feedback", map[string]any{"searchId": *out.SearchID, "chunkId": top.ChunkID, "verdict": "irrelevant"}))
	if v.Replaced != "useful" {
		t.Errorf("re-vote %+v, want it to replace useful", v)
	}
}

func TestTools_BadArguments(t *testing.T) {
	d, repo := startDocs(t, newOllama(t))
	daemontest.Reindex(t, d.Client, "demo")
	cs := connect(t, d.Socket(), repo.Dir)
	out := ok[mcpserver.SearchOutput](t, call(t, cs, "search", map[string]any{"query": "sqlite"}))
	for _, tt := range []struct {
		name string
		tool string
		args map[string]any
		says []string
	}{
		{"no query", "search", map[string]any{}, []string{"query"}},
		{"empty query", "search", map[string]any{"query": ""}, []string{"query"}},
		{"limit 0", "search", map[string]any{"query": "x", "limit": 0}, []string{"limit"}},
		{"limit 21", "search", map[string]any{"query": "x", "limit": 21}, []string{"limit"}},
		{"unknown scope", "search", map[string]any{"query": "x", "scopes": []string{"wiki"}}, []string{"scopes"}},
		{"unknown fusion", "search", map[string]any{"query": "x", "fusion": "max"}, []string{"fusion"}},
		{"query of only punctuation", "search", map[string]any{"query": "?!"}, nil},
		{"unknown project", "search", map[string]any{"query": "x", "project": "nope"}, []string{`"nope" is not registered`, "demo (", "ragd add"}},
		{"no citation", "get", map[string]any{}, []string{"name one citation"}},
		{"two citations", "get", map[string]any{"chunkId": "a", "eventId": "b"}, []string{"name one citation"}},
		{"heading without file", "get", map[string]any{"eventId": "b", "headingPath": []string{"x"}}, []string{"headingPath needs file"}},
		{"around 11", "get", map[string]any{"eventId": "b", "around": 11}, []string{"around"}},
		{"unknown chunk", "get", map[string]any{"chunkId": "0123"}, []string{"no chunk", "search again"}},
		{"unknown section", "get", map[string]any{"file": "docs/adr/0001-storage.md", "headingPath": []string{"Nope"}}, []string{`["Decision"]`, `["Consequences"]`}},
		{"unknown verdict", "feedback", map[string]any{"searchId": *out.SearchID, "chunkId": out.Hits[0].ChunkID, "verdict": "maybe"}, []string{"verdict"}},
		{"search id 0", "feedback", map[string]any{"searchId": 0, "chunkId": "x", "verdict": "useful"}, []string{"searchId"}},
		{"unknown search", "feedback", map[string]any{"searchId": *out.SearchID + 1000, "chunkId": "x", "verdict": "useful"}, []string{"no search has id"}},
		{"chunk not among the hits", "feedback", map[string]any{"searchId": *out.SearchID, "chunkId": "x", "verdict": "useful"}, []string{"not among the hits"}},
		{"unknown reindex scope", "reindex", map[string]any{"scopes": []string{"all"}}, []string{"scopes"}},
		// Issue 35 item 16: an unknown argument is refused, never ignored
		// (a misspelt "scope" reindexed every scope).
		{"unknown argument", "reindex", map[string]any{"scope": "bogus"}, []string{`unknown argument "scope"`, "scopes", "project"}},
		{"unknown search argument", "search", map[string]any{"query": "x", "k": 3}, []string{`unknown argument "k"`, "limit"}},
	} {
		res := call(t, cs, tt.tool, tt.args)
		if tt.says == nil {
			// The daemon answers, with nothing to search for: not a crash.
			if res.IsError {
				if !strings.Contains(text(res), "invalid arguments") {
					t.Errorf("%s: %s", tt.name, text(res))
				}
			}
			continue
		}
		failed(t, tt.name, res, tt.says...)
	}
	// A value over its bound is not echoed back whole (issue 35 item 16).
	long := strings.Repeat("q", 50*api.MaxQueryLength)
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": long}},
		{"search", map[string]any{"query": "x", "fusion": long}},
		{"get", map[string]any{"chunkId": long}},
		{"reindex", map[string]any{long: 1}},
	} {
		res := call(t, cs, tt.tool, tt.args)
		if !res.IsError {
			t.Errorf("%s with a %d-character value: not an error", tt.tool, len(long))
		}
		if got := text(res); len(got) > maxErrorText {
			t.Errorf("%s with a %d-character value: the error is %d characters (%.80q…), want at most %d",
				tt.tool, len(long), len(got), got, maxErrorText)
		}
	}
	// The server is still there.
	ok[mcpserver.StatusOutput](t, call(t, cs, "status", nil))
}

// maxErrorText bounds a tool error's text: what the server says plus the
// clipped values it echoes, never a whole oversized argument.
const maxErrorText = 2000

func TestTools_NoProjectHere(t *testing.T) {
	d, _ := startDocs(t, newOllama(t))
	// Outside any repository (an MCP client started in /tmp): ragd add
	// would refuse the folder, so it is not what the error suggests.
	dir := t.TempDir()
	cs := connect(t, d.Socket(), dir)
	res := call(t, cs, "search", map[string]any{"query": "x"})
	failed(t, "search outside any repository", res, "not inside a git repository", "demo (", "registered repository's folder")
	if strings.Contains(text(res), "ragd add "+dir) {
		t.Errorf("search outside any repository suggests registering it: %s", text(res))
	}
	st := ok[mcpserver.StatusOutput](t, call(t, cs, "status", nil))
	if st.Project != "" || !strings.Contains(st.Problem, "not inside a git repository") || !slices.Equal(st.Projects, []string{"demo"}) {
		t.Errorf("status outside any project: %+v", st)
	}
	// Naming it works from anywhere.
	ok[mcpserver.StatusOutput](t, call(t, cs, "status", map[string]any{"project": "demo"}))

	// In a repository no project is: registering it is the way.
	other := daemontest.Repo(t, map[string]string{"docs/a.md": "# A\n\nText.\n"})
	cs = connect(t, d.Socket(), other.Dir)
	failed(t, "search in an unregistered repository", call(t, cs, "search", map[string]any{"query": "x"}),
		"no registered project holds", "demo (", "ragd add "+other.Dir)
}

func TestTools_DaemonDown(t *testing.T) {
	w := daemontest.NewWorld(t)
	cs := connect(t, w.Paths.Socket, t.TempDir())
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "x"}},
		{"get", map[string]any{"chunkId": "x"}},
		{"feedback", map[string]any{"searchId": 1, "chunkId": "x", "verdict": "useful"}},
		{"reindex", nil},
	} {
		failed(t, tt.tool+" without a daemon", call(t, cs, tt.tool, tt.args), "ragd is not running", w.Paths.Socket, "ragd serve")
	}
	res := call(t, cs, "status", nil)
	st := ok[mcpserver.StatusOutput](t, res)
	if st.Daemon.Running || !strings.Contains(st.Daemon.Start, "ragd serve") || !strings.Contains(text(res), "ragd serve") {
		t.Errorf("status without a daemon: %+v %s", st, text(res))
	}
}

// TestTools_DaemonRestarted stops the daemon under a live MCP session and
// starts another on the same files: the session goes on, the tools say the
// daemon is gone meanwhile, and answer again once it is back.
func TestTools_DaemonRestarted(t *testing.T) {
	srv := newOllama(t)
	d, repo := startDocs(t, srv)
	daemontest.Reindex(t, d.Client, "demo")
	cs := connect(t, d.Socket(), repo.Dir)
	first := ok[mcpserver.SearchOutput](t, call(t, cs, "search", map[string]any{"query": "sqlite-vec"}))

	d.Stop(t)
	failed(t, "search with the daemon stopped", call(t, cs, "search", map[string]any{"query": "sqlite-vec"}), "ragd is not running", "ragd serve")

	d2 := daemontest.Start(t, d.World, d.Config)
	again := ok[mcpserver.SearchOutput](t, call(t, cs, "search", map[string]any{"query": "sqlite-vec"}))
	if len(again.Hits) == 0 || again.Hits[0].ChunkID != first.Hits[0].ChunkID || *again.SearchID <= *first.SearchID {
		t.Errorf("after restart: %+v, before %+v", again, first)
	}
	ok[mcpserver.FeedbackOutput](t, call(t, cs, "feedback", map[string]any{"searchId": *again.SearchID, "chunkId": again.Hits[0].ChunkID, "verdict": "useful"}))
	if _, err := d2.Store().LoadSearch(context.Background(), *again.SearchID); err != nil {
		t.Errorf("the new daemon has not recorded the search: %v", err)
	}
}

// TestTools_ReindexRefusedWhileRunning holds a reindex in the embedder and
// asks for another through MCP: refused politely, not queued, not failed.
func TestTools_ReindexRefusedWhileRunning(t *testing.T) {
	srv := newOllama(t)
	d, repo := startDocs(t, srv)
	cs := connect(t, d.Socket(), repo.Dir)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv.SetFault(func(w http.ResponseWriter, r *http.Request, req ollamatest.Request) bool {
		// Only the reindex's first call is held: the health check the
		// status tool makes embeds too.
		held := false
		once.Do(func() { held = true; close(entered) })
		if held {
			select {
			case <-release:
			case <-srv.Released():
			}
		}
		return false
	})
	done := make(chan error, 1)
	go func() {
		_, err := d.Client.Reindex(context.Background(), "demo", api.ReindexRequest{})
		done <- err
	}()
	<-entered
	failed(t, "reindex while one runs", call(t, cs, "reindex", nil), "already running", "status")
	st := ok[mcpserver.StatusOutput](t, call(t, cs, "status", nil))
	if !st.ReindexRunning {
		t.Errorf("status while a reindex runs: %+v", st)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the held reindex: %v", err)
	}
	if rep := ok[mcpserver.ReindexOutput](t, call(t, cs, "reindex", map[string]any{"scopes": []string{"adr"}})); len(rep.Scopes) != 1 || rep.Scopes[0].Scope != "adr" {
		t.Errorf("scoped reindex: %+v", rep)
	}
}

// fusionNames are search's fusions: the schema's enum follows them.
func fusionNames() []string {
	var out []string
	for _, f := range search.Fusions {
		out = append(out, string(f))
	}
	return out
}

package transcript_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/transcript"
)

// buildDB makes a SQLite database at dir/rel from the SQL fixture in
// testdata, in WAL mode as the tools keep theirs, and returns its path.
func buildDB(tb testing.TB, fixture, dir, rel string) string {
	tb.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		tb.Fatalf("%s: %v", fixture, err)
	}
	return path
}

type dbEvent struct{ ID, Type, Actor, Text string }

func readDB(t *testing.T, f transcript.Format, path string) ([]dbEvent, map[string]transcript.Session, transcript.Stats) {
	t.Helper()
	var evs []dbEvent
	sessions := map[string]transcript.Session{}
	st, err := transcript.ReadFile(t.Context(), f, path, transcript.Options{}, func(s *transcript.Session, e ragd.Event) error {
		if err := e.Validate(); err != nil {
			t.Errorf("invalid event %s: %v", e.ID, err)
		}
		if e.SessionID != s.ID {
			t.Errorf("event %s of session %s handed with %s", e.ID, e.SessionID, s.ID)
		}
		evs = append(evs, dbEvent{e.ID, e.Type, e.Actor, e.Text})
		sessions[s.ID] = *s
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFile %s: %v", path, err)
	}
	return evs, sessions, st
}

// dirNames lists a folder's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestCrushFixture(t *testing.T) {
	repo := t.TempDir()
	path := buildDB(t, "more/crush.sql", repo, ".crush/crush.db")
	before := dirNames(t, filepath.Dir(path))
	evs, sessions, st := readDB(t, transcript.Crush, path)
	p := "crush:cs-1/"
	want := []dbEvent{
		// The session's title, handed on before its first event.
		{p + "title/f541d23b", transcript.TypeTitle, transcript.ActorSystem, "Queue retries"},
		{p + "m1/1", transcript.TypeAttachment, ragd.ActorPerson, "image/png"},
		{p + "m1", ragd.TypeChatMessage, ragd.ActorPerson, "Why does the queue retry forever?"},
		{p + "m2/0", transcript.TypeSystemNote, transcript.ActorSystem, "API Error\n404 Not Found"},
		{p + "m3/0", transcript.TypeThinking, ragd.ActorAgent, "Look for the loop."},
		{p + "m3/1", transcript.TypeToolCall, ragd.ActorAgent, `grep {"pattern":"retry"}`},
		{p + "m4/0", transcript.TypeToolResult, transcript.ActorTool, "q.go:12: for {"},
		// The text parts of one message are one answer.
		{p + "m5", ragd.TypeAgentResponse, ragd.ActorAgent, "The loop at q.go:12 never\n\nbacks off."},
		// m6 is still being written: read once finished. The subagent's
		// session is the agent's conversation, not the person's.
		{"crush:call_sub/title/80e6edb4", transcript.TypeTitle, transcript.ActorSystem, "Find the loop"},
		{"crush:call_sub/s1", transcript.TypeSubagentMessage, ragd.ActorAgent, "Find the retry loop in q.go"},
		{"crush:call_sub/s2", transcript.TypeSubagentResponse, transcript.ActorSubagent, "It is at q.go:12."},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("events:\n got %v\nwant %v", evs, want)
	}
	if s := sessions["crush:cs-1"]; s.Cwd != repo || s.Title != "Queue retries" || s.Subagent {
		t.Errorf("session %+v, want cwd %s, its title", s, repo)
	}
	if s := sessions["crush:call_sub"]; !s.Subagent {
		t.Errorf("session %+v is a subagent's", s)
	}
	if !st.Incomplete || st.Malformed != 0 {
		t.Errorf("stats %+v: want the unfinished message noted, nothing malformed", st)
	}
	// Read from a copy: nothing written beside the tool's files.
	if after := dirNames(t, filepath.Dir(path)); !slices.Equal(before, after) {
		t.Errorf("files beside the database: %v before, %v after", before, after)
	}
}

// TestDatabaseReadWhileWritten: a database the tool keeps writing (WAL
// mode, as Crush and OpenCode do) reads consistently: every read sees a
// state the tool left, the messages already read are read again the same.
func TestDatabaseReadWhileWritten(t *testing.T) {
	path := buildDB(t, "more/crush.sql", t.TempDir(), ".crush/crush.db")
	w, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stop := make(chan struct{})
	wrote := make(chan int)
	go func() {
		n := 0
		defer func() { wrote <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			n++
			if _, err := w.Exec(`INSERT INTO messages (id, session_id, role, parts, created_at, updated_at, finished_at)
				VALUES (?, 'cs-1', 'user', '[{"type":"text","data":{"text":"more"}}]', ?, ?, NULL)`,
				"w"+strconv.Itoa(n), 1754315400+n, 1754315400+n); err != nil {
				t.Errorf("write %d: %v", n, err)
				return
			}
		}
	}()
	last := 0
	for range 5 {
		evs, _, st := readDB(t, transcript.Crush, path)
		if st.Malformed != 0 {
			t.Fatalf("read while written: %d malformed (%v)", st.Malformed, st.Errors)
		}
		if len(evs) < last {
			t.Fatalf("a read saw %d events after one saw %d", len(evs), last)
		}
		last = len(evs)
	}
	close(stop)
	if n := <-wrote; n == 0 {
		t.Fatal("the writer wrote nothing")
	}
}

func TestOpenCodeFixture(t *testing.T) {
	dir := t.TempDir()
	path := buildDB(t, "more/opencode.sql", dir, "opencode/opencode.db")
	before := dirNames(t, filepath.Dir(path))
	evs, sessions, st := readDB(t, transcript.OpenCode, path)
	p, q := "opencode:ses_1/", "opencode:ses_2/"
	want := []dbEvent{
		{p + "title/a54a6f3f", transcript.TypeTitle, transcript.ActorSystem, "Retry loop"},
		// Text OpenCode adds to the prompt is a note.
		{p + "msg_1/prt_02", transcript.TypeSystemNote, transcript.ActorSystem, "Called the Read tool with q.go: package q"},
		{p + "msg_1/prt_03", transcript.TypeAttachment, ragd.ActorPerson, "text/plain"},
		{p + "msg_1", ragd.TypeChatMessage, ragd.ActorPerson, "Why does q.go retry forever?"},
		{p + "msg_2/prt_05", transcript.TypeThinking, ragd.ActorAgent, "Find the loop first."},
		{p + "msg_2/prt_06/call", transcript.TypeToolCall, ragd.ActorAgent, `task {"prompt":"find it"}`},
		{p + "msg_2/prt_06/result", transcript.TypeToolResult, transcript.ActorTool, "at q.go:12"},
		{p + "msg_2/prt_07/call", transcript.TypeToolCall, ragd.ActorAgent, `bash {"command":"go vet"}`},
		{p + "msg_2/prt_07/result", transcript.TypeToolResult, transcript.ActorTool, "exit 1"},
		{p + "msg_2", ragd.TypeAgentResponse, ragd.ActorAgent, "The loop at q.go:12\n\nnever backs off."},
		// The task tool's session: the agent's conversation.
		{q + "title/11147e63", transcript.TypeTitle, transcript.ActorSystem, "Find the loop (@general subagent)"},
		{q + "msg_3", transcript.TypeSubagentMessage, ragd.ActorAgent, "Find the retry loop"},
		{q + "msg_4", transcript.TypeSubagentResponse, transcript.ActorSubagent, "q.go:12"},
		{p + "msg_5/prt_14", transcript.TypeCompacted, transcript.ActorSystem, "conversation compacted"},
		// msg_6 is still being written.
	}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("events:\n got %v\nwant %v", evs, want)
	}
	if s := sessions["opencode:ses_1"]; s.Cwd != "/home/dev/proj" || s.Title != "Retry loop" || s.Subagent {
		t.Errorf("session %+v", s)
	}
	if !st.Incomplete || st.Malformed != 0 {
		t.Errorf("stats %+v: want the unfinished message noted, nothing malformed", st)
	}
	if after := dirNames(t, filepath.Dir(path)); !slices.Equal(before, after) {
		t.Errorf("files beside the database: %v before, %v after", before, after)
	}
}

// TestOpenCodeGoProgram: the older OpenCode Go program's database, in the
// repository, has the schema Crush kept.
func TestOpenCodeGoProgram(t *testing.T) {
	repo := t.TempDir()
	path := buildDB(t, "more/crush.sql", repo, ".opencode/opencode.db")
	found, err := transcript.Discover(transcript.OpenCode, []string{repo})
	if err != nil || !slices.Equal(found, []string{path}) {
		t.Fatalf("Discover in the repository: %v, %v; want %s", found, err, path)
	}
	evs, sessions, _ := readDB(t, transcript.OpenCode, path)
	if len(evs) != 11 || evs[2].ID != "opencode:cs-1/m1" || evs[2].Type != ragd.TypeChatMessage {
		t.Errorf("events %v", evs)
	}
	if s := sessions["opencode:cs-1"]; s.Cwd != repo {
		t.Errorf("session %+v, want the repository's", s)
	}
}

func TestCursorStateFixture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	path := buildDB(t, "more/cursor-state.sql", dir, "state.vscdb")
	ws, err := os.ReadFile(filepath.Join("testdata", "more", "ws2", "workspace.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workspace.json"), ws, 0o600); err != nil {
		t.Fatal(err)
	}
	before := dirNames(t, dir)
	evs, sessions, _ := readDB(t, transcript.Cursor, path)
	want := []dbEvent{
		// The draft left in the input box is not a prompt; the prompt
		// history (aiService.prompts) is not read again.
		{"cursor:tab-1/title/f7efa7bc", transcript.TypeTitle, transcript.ActorSystem, "Sidebar"},
		{"cursor:tab-1/b1", ragd.TypeChatMessage, ragd.ActorPerson, "Add a sidebar"},
		{"cursor:tab-1/b2", ragd.TypeAgentResponse, ragd.ActorAgent, "Here is a sidebar."},
		{"cursor:comp-1/c1", ragd.TypeChatMessage, ragd.ActorPerson, "Fix the build"},
		{"cursor:comp-1/c2", ragd.TypeAgentResponse, ragd.ActorAgent, "Fixed the import."},
		// Newer versions: each bubble under its own key.
		{"cursor:comp-2/title/3b2fe03e", transcript.TypeTitle, transcript.ActorSystem, "Queue"},
		{"cursor:comp-2/d1", ragd.TypeChatMessage, ragd.ActorPerson, "Why does the queue stall?"},
		{"cursor:comp-2/d2", ragd.TypeAgentResponse, ragd.ActorAgent, "It waits on a closed channel."},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("events:\n got %v\nwant %v", evs, want)
	}
	if s := sessions["cursor:tab-1"]; s.Cwd != "/home/dev/proj" || s.Title != "Sidebar" {
		t.Errorf("session %+v: want the workspace's folder and the tab's title", s)
	}
	if after := dirNames(t, dir); !slices.Equal(before, after) {
		t.Errorf("files beside the database: %v before, %v after", before, after)
	}
}

// TestOpenCodeStorage: OpenCode's older JSON storage, a message file read
// with its parts and its session found beside it.
func TestOpenCodeStorage(t *testing.T) {
	storage, err := filepath.Abs(filepath.Join("testdata", "more", "opencode-storage", "storage"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := transcript.Discover(transcript.OpenCode, []string{filepath.Join(storage, "message")})
	if err != nil || len(files) != 2 {
		t.Fatalf("Discover: %v, %v; want the 2 message files", files, err)
	}
	var evs []dbEvent
	var sess transcript.Session
	for _, f := range files {
		got, sessions, _ := readDB(t, transcript.OpenCode, f)
		evs = append(evs, got...)
		sess = sessions["opencode:ses_1"]
	}
	p := "opencode:ses_1/"
	// Each message file hands on the session's title, the same event
	// (its id and time) from both: stored once.
	title := dbEvent{p + "title/a54a6f3f", transcript.TypeTitle, transcript.ActorSystem, "Retry loop"}
	want := []dbEvent{
		title,
		{p + "msg_1/prt_02", transcript.TypeSystemNote, transcript.ActorSystem, "<file>package q</file>"},
		{p + "msg_1", ragd.TypeChatMessage, ragd.ActorPerson, "Why does q.go retry forever?"},
		title,
		{p + "msg_2/prt_03/call", transcript.TypeToolCall, ragd.ActorAgent, `read {"filePath":"q.go"}`},
		{p + "msg_2/prt_03/result", transcript.TypeToolResult, transcript.ActorTool, "package q"},
		{p + "msg_2", ragd.TypeAgentResponse, ragd.ActorAgent, "It never sleeps."},
	}
	if !reflect.DeepEqual(evs, want) {
		t.Errorf("events:\n got %v\nwant %v", evs, want)
	}
	if sess.Cwd != "/home/dev/proj" || sess.Title != "Retry loop" {
		t.Errorf("session %+v", sess)
	}
}

package daemon_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// updateGolden rewrites the files under goldenDir from the answers of this
// run: go test ./daemon -run Golden -update.
var updateGolden = flag.Bool("update", false, "rewrite the socket's golden answers under testdata/golden")

// goldenDir holds one file per exchange, NN-name.json: the answer's body,
// normalised and indented (one indented value per NDJSON line), and
// exchanges.txt, each exchange's request, status and content type.
const goldenDir = "testdata/golden"

// volatileTimes are the fields whose RFC 3339 value is the clock of the run;
// the event times a test sends are its own and stay.
var volatileTimes = regexp.MustCompile(`"(createdAt|startedAt|lastIndexed|eventsThrough|since|until|last)":"[^"]*"`)

// volatileLists are measure's lists that follow the clock: the day buckets
// of the window (how many depends on the time of day) and the searches
// ordered by their latency. search's unit tests check their content.
var volatileLists = regexp.MustCompile(`"(series|slowest)":\[.*?\],"(slowest|zeroHitQueries)":`)

// volatileNumbers are the fields whose number is a duration, a latency or a
// file size: they vary with the machine's load and SQLite's page use.
var volatileNumbers = regexp.MustCompile(`"(durationMs|readMs|chunkMs|embedMs|writeMs|totalMs|latencyMs|latencyP50Ms|latencyP95Ms|fileBytes)":-?[0-9][0-9.eE+-]*`)

// golden runs exchanges against one daemon and compares each answer with
// its golden file.
type golden struct {
	t       *testing.T
	d       *daemontest.Daemon
	n       int
	replace []string // literal old, new pairs: temporary paths, URLs, commits
	index   strings.Builder
}

// do sends body (JSON unless contentType says otherwise; none when body is
// "") and checks the answer against goldenDir/NN-name.json. It returns the
// raw body, for the ids later requests need.
func (g *golden) do(name, method, path, body string) []byte {
	ctype := ""
	if body != "" {
		ctype = "application/json"
	}
	return g.doType(name, method, path, ctype, body)
}

func (g *golden) doType(name, method, path, ctype, body string) []byte {
	g.t.Helper()
	g.n++
	file := fmt.Sprintf("%02d-%s.json", g.n, name)
	var raw []byte
	if body != "" {
		raw = []byte(body)
	}
	a := daemontest.Do(g.t, g.d.Socket(), method, path, ctype, raw)
	fmt.Fprintf(&g.index, "%s: %s %s -> %d %s\n", file, method, g.normalise([]byte(path)), a.Status, a.Header.Get("Content-Type"))
	got := g.normalise(a.Body)
	goldenPath := filepath.Join(goldenDir, file)
	if *updateGolden {
		writeGolden(g.t, goldenPath, indentValues(g.t, file, got))
		return a.Body
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		g.t.Fatalf("%s: %v (run with -update to record it)", file, err)
	}
	if exp := compactValues(g.t, file, want); !bytes.Equal(got, exp) {
		g.t.Errorf("%s %s: body differs from %s\n got: %s\nwant: %s", method, path, goldenPath, got, exp)
	}
	return a.Body
}

// normalise replaces the run's own values by placeholders, leaving every
// other byte as the daemon wrote it.
func (g *golden) normalise(b []byte) []byte {
	s := strings.NewReplacer(g.replace...).Replace(string(b))
	s = volatileLists.ReplaceAllString(s, `"$1":"<list>","$2":`)
	s = volatileLists.ReplaceAllString(s, `"$1":"<list>","$2":`) // series, then slowest
	s = volatileTimes.ReplaceAllString(s, `"$1":"<time>"`)
	s = volatileNumbers.ReplaceAllString(s, `"$1":"<n>"`)
	return []byte(s)
}

// finish compares the list of exchanges, their statuses and content types.
func (g *golden) finish() {
	path := filepath.Join(goldenDir, "exchanges.txt")
	if *updateGolden {
		writeGolden(g.t, path, []byte(g.index.String()))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		g.t.Fatal(err)
	}
	if got := g.index.String(); got != string(want) {
		g.t.Errorf("exchanges differ from %s\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

func writeGolden(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// indentValues indents each newline-terminated JSON value of body. Indenting
// only adds whitespace between tokens, so compactValues gives body back byte
// for byte: the goldens read well and still pin the exact encoding.
func indentValues(t *testing.T, file string, body []byte) []byte {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n")) {
		t.Fatalf("%s: body %q does not end in a newline", file, body)
	}
	var out bytes.Buffer
	for line := range bytes.Lines(body) {
		if err := json.Indent(&out, bytes.TrimSuffix(line, []byte("\n")), "", "  "); err != nil {
			t.Fatalf("%s: body line %q: %v", file, line, err)
		}
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// compactValues is the inverse of indentValues: each JSON value of the
// golden file, compacted and newline-terminated.
func compactValues(t *testing.T, file string, golden []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(golden))
	var out bytes.Buffer
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return out.Bytes()
		} else if err != nil {
			t.Fatalf("golden %s: %v", file, err)
		}
		if err := json.Compact(&out, v); err != nil {
			t.Fatalf("golden %s: %v", file, err)
		}
		out.WriteByte('\n')
	}
}

// field reads a JSON field of body by path (object keys, array indexes).
func field(t *testing.T, body []byte, path ...any) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// TestGolden_SocketAnswers pins the socket's JSON, byte for byte, for a
// representative request to every route and the usual bad ones: a change
// to a wire type that changes an answer fails here.
func TestGolden_SocketAnswers(t *testing.T) {
	srv := newServer(t)
	w := daemontest.NewWorld(t)
	d := daemontest.Start(t, w, daemontest.Config(srv.URL))
	// The fill would embed appended messages at its own pace, and the
	// answers would follow its timing (backfill_test.go tests it).
	d.StopBackfill()
	repo := daemontest.Repo(t, daemontest.Docs)
	root, err := filepath.EvalSymlinks(repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	head := repo.Head(t)
	g := &golden{t: t, d: d, replace: []string{repo.Dir, "<repo>", root, "<repo>", w.Dir, "<world>", srv.URL, "<ollama>", head, "<commit-1>"}}
	// Appended messages are indexed with them: no refresh of the watcher's
	// stale scopes follows, so the answers after them need no wait.
	// Health and projects.
	g.do("health", "GET", "/v1/health", "")
	g.do("projects-add", "POST", "/v1/projects", fmt.Sprintf(`{"path":%q,"name":"demo"}`, repo.Dir))
	g.do("projects-add-exists", "POST", "/v1/projects", fmt.Sprintf(`{"path":%q,"name":"other"}`, repo.Dir))
	g.do("projects-add-relative", "POST", "/v1/projects", `{"path":"docs/here"}`)
	g.do("projects-add-not-repository", "POST", "/v1/projects", fmt.Sprintf(`{"path":%q}`, w.Dir))
	g.do("projects-add-bad-name", "POST", "/v1/projects", fmt.Sprintf(`{"path":%q,"name":"Bad Name!"}`, repo.Dir))
	g.do("projects-list", "GET", "/v1/projects", "")
	g.do("projects-get", "GET", "/v1/projects/demo", "")
	g.do("projects-patch", "PATCH", "/v1/projects/demo", `{"autoReindex":false}`)
	g.do("projects-patch-empty", "PATCH", "/v1/projects/demo", `{}`)
	g.do("projects-get-unknown", "GET", "/v1/projects/nope", "")

	// Index, coverage, searches.
	g.do("coverage-never-indexed", "GET", "/v1/projects/demo/coverage", "")
	g.do("reindex", "POST", "/v1/projects/demo/reindex", "")
	g.do("reindex-unchanged", "POST", "/v1/projects/demo/reindex", `{"scopes":["docs","adr"]}`)
	g.do("reindex-bad-scope", "POST", "/v1/projects/demo/reindex", `{"scope":"wiki"}`)
	g.do("coverage", "GET", "/v1/projects/demo/coverage", "")
	weighted := g.do("search-weighted-explain", "POST", "/v1/projects/demo/search", `{"query":"sqlite-vec FTS5 telemetry","explain":true}`)
	g.do("search-rrf", "POST", "/v1/projects/demo/search", `{"query":"hybrid search weights","fusion":"rrf"}`)
	g.do("search-rrf-explain", "POST", "/v1/projects/demo/search", `{"query":"hybrid search weights","fusion":"rrf","explain":true}`)
	scoped := g.do("search-scopes", "POST", "/v1/projects/demo/search", `{"query":"Unix socket owner","scopes":["docs"],"limit":2}`)
	g.do("search-nothing-found", "POST", "/v1/projects/demo/search", `{"query":"zzzqqqxxy","scopes":["adr"]}`)

	// Feedback, accepted and refused.
	searchID := int64(field(t, weighted, "searchId").(float64))
	top := field(t, weighted, "hits", 0, "chunkId").(string)
	vote := func(name string, id int64, chunk, verdict string) {
		g.do(name, "POST", "/v1/feedback", fmt.Sprintf(`{"searchId":%d,"chunkId":%q,"verdict":%q}`, id, chunk, verdict))
	}
	vote("feedback", searchID, top, "irrelevant")
	vote("feedback-replaced", searchID, top, "useful")
	vote("feedback-bad-verdict", searchID, top, "meh")
	vote("feedback-no-chunk", searchID, "", "useful")
	vote("feedback-no-search", 0, top, "useful")
	vote("feedback-unknown-search", 999, top, "useful")
	vote("feedback-not-in-hits", searchID, "no-such-chunk", "useful")

	// The session log: append, duplicates, a conflict, an import, one event.
	one := `{"id":"e1","sessionId":"s-storage","type":"chat.message","actor":"person","text":"Why a write-ahead log for the zeppelin hangar?","time":"2026-11-29T12:00:00Z","title":"Storage talk"}`
	g.do("events-append-one", "POST", "/v1/projects/demo/events", one)
	g.do("events-append-many", "POST", "/v1/projects/demo/events", `{"events":[`+
		`{"id":"e2","sessionId":"s-storage","type":"tool.call","actor":"agent","time":"2026-11-29T12:00:01Z","payload":{"tool":"grep","args":["zeppelin"]}},`+
		`{"id":"e3","sessionId":"s-storage","type":"agent.response","actor":"agent","text":"Readers of the zeppelin hangar never wait.","time":"2026-11-29T12:00:02Z"},`+
		one+`]}`)
	g.do("events-append-conflict", "POST", "/v1/projects/demo/events", strings.Replace(one, "Why", "How", 1))
	g.do("events-append-invalid", "POST", "/v1/projects/demo/events", `{"id":"e9","sessionId":"s-storage"}`)
	g.do("events-append-none", "POST", "/v1/projects/demo/events", `{"events":[]}`)
	g.doType("events-import", "POST", "/v1/projects/demo/events/import", "application/x-ndjson", strings.Join([]string{
		`{"id":"f1","sessionId":"s-import","type":"chat.message","actor":"person","text":"The quokka benchmark needs eight clients.","time":"2026-11-30T09:00:00Z"}`,
		`{"id":"f2","sessionId":"s-import","type":`,
		`{"id":"f3","sessionId":"s-import","type":"agent.response","actor":"agent","text":"Eight quokka clients it is.","time":"2026-11-30T09:00:02Z"}`,
	}, "\n")+"\n")
	g.do("events-get", "GET", "/v1/projects/demo/events/e2", "")
	g.do("events-get-unknown", "GET", "/v1/projects/demo/events/nope", "")
	g.do("coverage-sessions-indexed", "GET", "/v1/projects/demo/coverage", "")
	g.do("reindex-stream", "POST", "/v1/projects/demo/reindex?stream=1", `{"scopes":["session"]}`)
	g.do("search-session", "POST", "/v1/projects/demo/search", `{"query":"zeppelin hangar","scopes":["session"]}`)
	g.do("projects-get-indexed", "GET", "/v1/projects/demo", "")

	// Measure.
	g.do("measure", "GET", "/v1/measure?project=demo&since=1h&k=3", "")
	g.do("measure-all", "GET", "/v1/measure", "")
	g.do("measure-bad-since", "GET", "/v1/measure?since=yesterday", "")
	g.do("measure-bad-k", "GET", "/v1/measure?k=many", "")
	g.do("measure-unknown-project", "GET", "/v1/measure?project=nope", "")

	// Bad requests.
	g.do("search-malformed-json", "POST", "/v1/projects/demo/search", `{"query": x}`)
	g.do("search-truncated-json", "POST", "/v1/projects/demo/search", `{"query":`)
	g.do("search-unknown-field", "POST", "/v1/projects/demo/search", `{"query":"a","bogus":1}`)
	g.do("search-wrong-type", "POST", "/v1/projects/demo/search", `{"query":42}`)
	g.do("search-two-values", "POST", "/v1/projects/demo/search", `{"query":"a"} {"query":"b"}`)
	g.do("search-not-object", "POST", "/v1/projects/demo/search", `[1]`)
	g.doType("search-empty-body", "POST", "/v1/projects/demo/search", "application/json", "")
	g.doType("search-text-plain", "POST", "/v1/projects/demo/search", "text/plain", `query=a`)
	g.do("search-bad-limit", "POST", "/v1/projects/demo/search", `{"query":"a","limit":0}`)
	g.do("search-limit-too-large", "POST", "/v1/projects/demo/search", `{"query":"a","limit":99}`)
	g.do("search-bad-fusion", "POST", "/v1/projects/demo/search", `{"query":"a","fusion":"max"}`)
	g.do("search-bad-scope", "POST", "/v1/projects/demo/search", `{"query":"a","scopes":["wiki"]}`)
	g.do("search-unknown-project", "POST", "/v1/projects/nope/search", `{"query":"a"}`)
	g.do("unknown-route", "GET", "/v1/nope", "")
	g.do("wrong-method", "PUT", "/v1/health", "")
	g.do("wrong-method-project", "POST", "/v1/projects/demo", `{}`)

	// The provider fails: searches degrade to the lexical signal.
	srv.SetFault(ollamatest.Respond(500, `{"error":"model runner has unexpectedly stopped"}`))
	g.do("search-degraded", "POST", "/v1/projects/demo/search", `{"query":"write-ahead log backups"}`)
	g.do("health-degraded", "GET", "/v1/health", "")
	srv.SetFault(nil)

	// A reindex changes the voted chunk: voting on it again is refused.
	scopedID := int64(field(t, scoped, "searchId").(float64))
	guideChunk := field(t, scoped, "hits", 0, "chunkId").(string)
	g.replace = append(g.replace, repo.Commit(t, "reword the guide", map[string]string{
		"docs/guide.md": "# Guide\n\n## Install\n\nStart the daemon with ragd serve.\n"}), "<commit-2>")
	g.do("reindex-changed", "POST", "/v1/projects/demo/reindex", `{"scope":"docs"}`)
	vote("feedback-chunk-gone", scopedID, guideChunk, "useful")

	g.do("projects-remove", "DELETE", "/v1/projects/demo", "")
	g.do("projects-remove-unknown", "DELETE", "/v1/projects/demo", "")
	g.do("projects-list-empty", "GET", "/v1/projects", "")
	g.do("path-dot-segment", "GET", "/v1/./health", "")
	g.do("path-trailing-slash", "POST", "/v1/projects/", `{}`)
	g.finish()
}

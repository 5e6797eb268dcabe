package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/search"
)

// newServer is the fake Ollama the tests embed with.
func newServer(tb testing.TB) *ollamatest.Server {
	tb.Helper()
	return ollamatest.NewServer(tb, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
}

// startDocs starts a daemon embedding at host and registers a repository of
// daemontest.Docs as project "demo".
func startDocs(t *testing.T, host string) (*daemontest.Daemon, *gittest.Repo) {
	t.Helper()
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(host))
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	return d, repo
}

func TestAPI_IndexSearchVoteCoverageMeasure(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	srv := newServer(t)
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(srv.URL))
	c := d.Client
	repo := daemontest.Repo(t, daemontest.Docs)
	head := repo.Head(t)

	p := daemontest.AddProject(t, c, repo.Dir, "demo")
	root, _ := filepath.EvalSymlinks(repo.Dir)
	if p.ID != "demo" || (p.Path != repo.Dir && p.Path != root) || p.AutoReindex {
		t.Errorf("added project: %+v", p)
	}
	if !slices.Equal(p.Stale, []string{"docs", "adr"}) {
		t.Errorf("new project stale %v, want [docs adr] (never indexed)", p.Stale)
	}

	h, err := c.Health(ctx)
	if err != nil {
		daemontest.Fatal(t, "health", err)
	}
	if h.Socket != d.Socket() || h.Database.SchemaVersion < 1 || (h.Database.SqliteVec == "") != daemontest.OnPostgres() ||
		h.Database.Space != "nomic-embed-text/64" || !h.Embedding.Available || h.Index.Projects != 1 {
		t.Errorf("health: %+v", h)
	}

	rep := daemontest.Reindex(t, c, "demo")
	if !rep.Complete || rep.Project != "demo" || len(rep.Scopes) != 3 {
		t.Fatalf("reindex: %+v", rep)
	}
	for _, sr := range rep.Scopes {
		if sr.Status != api.StatusOK {
			t.Errorf("scope %s: status %s (%s)", sr.Scope, sr.Status, sr.Error)
		}
	}

	cov := daemontest.Coverage(t, c, "demo")
	if cov.Head == nil || cov.Head.Commit != head || cov.Running {
		t.Errorf("coverage head %+v running %v, want %s", cov.Head, cov.Running, head)
	}
	for _, scope := range []string{"docs", "adr"} {
		sc := daemontest.ScopeCoverage(t, cov, scope)
		if sc.Total != 1 || sc.Indexed != 1 || sc.Chunks == 0 || sc.LexicalOnly != 0 || sc.Stale ||
			sc.LastCommit != head || sc.LastIndexed == nil {
			t.Errorf("coverage of %s: %+v", scope, sc)
		}
	}
	if p := daemontest.Project(t, c, "demo"); len(p.Stale) != 0 {
		t.Errorf("after reindex, GET /v1/projects says stale %v", p.Stale)
	}

	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "sqlite-vec FTS5 telemetry", Explain: true})
	if resp.SearchID == nil || !resp.VectorAvailable || resp.Degraded || resp.Project != "demo" ||
		resp.Fusion != string(search.FusionWeighted) || len(resp.Stale) != 0 || resp.Explain == nil {
		t.Fatalf("search answer: %+v", resp)
	}
	if w := resp.Weights; w.Vector == nil || *w.Vector != 0.6 || w.Lexical == nil || *w.Lexical != 0.4 ||
		w.Threshold == nil || *w.Threshold != 0.2 {
		t.Errorf("weights %+v, want 0.6/0.4/0.2", resp.Weights)
	}
	if len(resp.Hits) == 0 {
		t.Fatal("no hits")
	}
	top := resp.Hits[0]
	if top.Rank != 1 || top.Scope != "adr" || top.Origin.Kind != ragd.OriginFile ||
		top.Origin.SourcePath != "docs/adr/0001-storage.md" || !slices.Equal(top.Origin.HeadingPath, []string{"Decision"}) || top.Origin.Title != "ADR 1: Storage" ||
		top.Origin.Commit != head || top.LexicalScore == nil || top.Explain == nil || !strings.Contains(top.Content, "sqlite-vec") {
		t.Errorf("top hit: %+v origin %+v", top, top.Origin)
	}

	// A vote, then another on the same hit replacing it.
	vote, err := c.Feedback(ctx, api.FeedbackRequest{SearchID: *resp.SearchID, ChunkID: top.ChunkID, Verdict: "irrelevant"})
	if err != nil {
		daemontest.Fatal(t, "feedback", err)
	}
	if vote.Rank != 1 || vote.Verdict != "irrelevant" || vote.Replaced != "" {
		t.Errorf("vote: %+v", vote)
	}
	if vote, err = c.Feedback(ctx, api.FeedbackRequest{SearchID: *resp.SearchID, ChunkID: top.ChunkID, Verdict: "useful"}); err != nil {
		daemontest.Fatal(t, "feedback again", err)
	}
	if vote.Verdict != "useful" || vote.Replaced != "irrelevant" {
		t.Errorf("second vote: %+v", vote)
	}

	// A scoped search, and one under RRF (no weights).
	guide := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "Unix socket owner", Scopes: []string{"docs"}, Limit: ptr(2)})
	if len(guide.Hits) == 0 || len(guide.Hits) > 2 {
		t.Fatalf("scoped search: %d hits", len(guide.Hits))
	}
	for _, hit := range guide.Hits {
		if hit.Scope != "docs" || hit.Origin.SourcePath != "docs/guide.md" {
			t.Errorf("scoped search hit %+v", hit.Origin)
		}
	}
	rrf := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "hybrid search weights", Fusion: "rrf"})
	if rrf.Fusion != string(search.FusionRRF) || rrf.Weights.Vector != nil || rrf.Weights.Threshold != nil || len(rrf.Hits) == 0 {
		t.Errorf("rrf search: fusion %s weights %+v hits %d", rrf.Fusion, rrf.Weights, len(rrf.Hits))
	}

	m, err := c.Measure(ctx, api.MeasureQuery{Project: "demo", Since: "1h", K: 3})
	if err != nil {
		daemontest.Fatal(t, "measure", err)
	}
	if m.Failed || m.K != 3 || m.Project != "demo" || m.Total.Searches != 3 || m.Total.Votes != 1 || m.Total.Judged != 1 || m.Total.Useful != 1 ||
		m.Total.PrecisionAtK == nil || *m.Total.PrecisionAtK != 1 || m.Total.Degraded != 0 || m.Total.LatencyP95Ms == nil {
		t.Errorf("measure: %+v", m.Total)
	}

	// Every search left exactly one telemetry row; the vote replaced the first.
	st, err := d.Engine().Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Searches != 3 || st.Votes != 1 {
		t.Errorf("telemetry: %d searches, %d votes; want 3 and 1", st.Searches, st.Votes)
	}

	// Reindexing twice gives the same index: the second run keeps every chunk.
	again := daemontest.Reindex(t, c, "demo", "docs", "adr")
	for _, sr := range again.Scopes {
		if !sr.Unchanged || sr.Chunks.Inserted != 0 || sr.Chunks.Deleted != 0 || sr.Embedding.Calls != 0 {
			t.Errorf("second reindex of %s: %+v", sr.Scope, sr.Chunks)
		}
	}

	// The removal says what telemetry went with the project.
	if removed, err := c.RemoveProject(ctx, "demo"); err != nil || removed.Removed != "demo" ||
		removed.TelemetrySearches != st.Searches || removed.TelemetryVotes != st.Votes {
		t.Fatalf("remove: %v %v", removed, err)
	}
	var ce *client.Error
	if _, err := c.Project(ctx, "demo"); !errors.As(err, &ce) || ce.Status != http.StatusNotFound || !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("removed project: %v, want 404", err)
	}
}

func TestAPI_DegradedWhenProviderDown(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, ollamatest.ClosedURL(t))
	c := d.Client

	h, err := c.Health(ctx)
	if err != nil {
		daemontest.Fatal(t, "health", err)
	}
	if h.Embedding.Available || h.Embedding.Reason == "" {
		t.Errorf("health with Ollama down: %+v", h.Embedding)
	}

	// The index is written without vectors, and says so.
	rep := daemontest.Reindex(t, c, "demo")
	if rep.Complete {
		t.Errorf("reindex without a provider claims complete: %s", rep.Summary)
	}
	for _, sr := range rep.Scopes[:2] {
		if sr.Status != api.StatusOK || sr.Embedding.Available || sr.Embedding.Reason == "" || sr.LexicalOnly == 0 || sr.Chunks.Total != sr.LexicalOnly {
			t.Errorf("scope %s without a provider: status %s embedding %+v lexical-only %d of %d",
				sr.Scope, sr.Status, sr.Embedding, sr.LexicalOnly, sr.Chunks.Total)
		}
	}

	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "sqlite-vec telemetry"})
	if !resp.Degraded || resp.VectorAvailable || resp.Reason == "" || resp.SearchID == nil {
		t.Errorf("search with Ollama down: degraded %v vectorAvailable %v reason %q searchId %v",
			resp.Degraded, resp.VectorAvailable, resp.Reason, resp.SearchID)
	}
	if len(resp.Hits) == 0 {
		t.Fatal("no lexical hits with Ollama down")
	}
	for _, hit := range resp.Hits {
		if hit.VectorScore != nil || hit.LexicalScore == nil {
			t.Errorf("hit %s: vector %v lexical %v, want null and a score", hit.ChunkID, hit.VectorScore, hit.LexicalScore)
		}
	}
	if resp.Hits[0].Origin.SourcePath != "docs/adr/0001-storage.md" {
		t.Errorf("top lexical hit %+v", resp.Hits[0].Origin)
	}

	// measure fails for that one reason: the whole window ran without vectors.
	m, err := c.Measure(ctx, api.MeasureQuery{Project: "demo"})
	if err != nil {
		daemontest.Fatal(t, "measure", err)
	}
	if !m.Failed || m.FailReason == "" || m.Total.Degraded != 1 || m.Total.VectorUnavailable != 1 {
		t.Errorf("measure with every search degraded: failed %v (%s) %+v", m.Failed, m.FailReason, m.Total)
	}
}

func TestAPI_Sessions(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	// Appended chunks stay lexical until the reindex below: the background
	// fill, which would embed them meanwhile, is tested on its own.
	d.StopBackfill()
	c := d.Client
	const s1 = "s-2026-storage"

	// One event, then many; a tool call is stored but never indexed.
	var res *api.AppendResult
	var err error
	one := map[string]any{"id": "e1", "sessionId": s1, "type": "chat.message", "actor": "person",
		"text": "Why did we pick a write-ahead log for the zeppelin hangar?", "time": "2026-11-29T12:00:00Z", "title": "Storage talk"}
	// One event may be sent bare, without {"events": [...]}.
	body, _ := json.Marshal(one)
	a := daemontest.Do(t, d.Socket(), "POST", daemontest.ProjectPath("demo", "/events"), "application/json", body)
	if a.Status != http.StatusOK || json.Unmarshal(a.Body, &res) != nil {
		t.Fatalf("append one event: %d %s", a.Status, a.Body)
	}
	if res.Appended != 1 || res.Messages != 1 || res.SessionsCreated != 1 {
		t.Errorf("append one: %+v", res)
	}
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	many := []ragd.Event{
		{ID: "e2", SessionID: s1, Type: "tool.call", Actor: "agent", Time: at("2026-11-29T12:00:01Z"), Payload: json.RawMessage(`{"tool":"grep","args":["zeppelin"]}`)},
		{ID: "e3", SessionID: s1, Type: "agent.response", Actor: "agent", Text: "Readers of the zeppelin hangar never wait for the writer.", Time: at("2026-11-29T12:00:02Z")},
		// a duplicate of the first: a no-op
		{ID: "e1", SessionID: s1, Type: "chat.message", Actor: "person", Text: "Why did we pick a write-ahead log for the zeppelin hangar?", Time: at("2026-11-29T12:00:00Z"), Title: "Storage talk"},
	}
	if res, err = c.AppendEvents(ctx, "demo", many); err != nil {
		daemontest.Fatal(t, "append events", err)
	}
	if res.Appended != 2 || res.Messages != 1 || res.Duplicates != 1 || len(res.Conflicts) != 0 {
		t.Errorf("append many: %+v", res)
	}

	// An event file with a malformed line in the middle.
	file := strings.Join([]string{
		`{"id":"f1","sessionId":"s-import","type":"chat.message","actor":"person","text":"The quokka benchmark needs eight clients.","time":"2026-11-30T09:00:00Z"}`,
		`{"id":"f2","sessionId":"s-import","type":`,
		`{"id":"f3","sessionId":"s-import","type":"agent.error","actor":"agent","text":"quokka tool failed","time":"2026-11-30T09:00:01Z"}`,
		`{"id":"f4","sessionId":"s-import","type":"agent.response","actor":"agent","text":"Eight quokka clients it is.","time":"2026-11-30T09:00:02Z"}`,
	}, "\n") + "\n"
	imp, err := c.ImportEvents(ctx, "demo", strings.NewReader(file))
	if err != nil {
		daemontest.Fatal(t, "import", err)
	}
	if imp.Lines != 4 || imp.Events != 3 || imp.Appended != 3 || imp.Messages != 2 || imp.Bad != 1 ||
		len(imp.LineErrors) != 1 || imp.LineErrors[0].Line != 2 || imp.LineErrors[0].Reason == "" {
		t.Errorf("import: %+v", imp)
	}

	// Appended messages are indexed at once, lexically: the reindex keeps
	// their chunks and gives them vectors.
	sc := daemontest.ScopeCoverage(t, daemontest.Coverage(t, c, "demo"), "session")
	if sc.Stale || sc.Total != 2 || sc.Messages != 4 || sc.Indexed != 2 || sc.MessagesIndexed != 4 || sc.LexicalOnly != sc.Chunks {
		t.Errorf("session coverage before reindex: %+v", sc)
	}
	rep := daemontest.Reindex(t, c, "demo", "session")
	if len(rep.Scopes) != 1 || rep.Scopes[0].Status != api.StatusOK || rep.Scopes[0].Chunks.Total < 4 ||
		rep.Scopes[0].Chunks.Inserted != 0 || rep.Scopes[0].Chunks.Deleted != 0 || rep.Scopes[0].Vectors != rep.Scopes[0].Chunks.Total {
		t.Fatalf("session reindex: %+v", rep.Scopes)
	}
	sc = daemontest.ScopeCoverage(t, daemontest.Coverage(t, c, "demo"), "session")
	if sc.Stale || sc.Indexed != 2 || sc.MessagesIndexed != 4 {
		t.Errorf("session coverage after reindex: %+v", sc)
	}

	// A session hit cites its message, and the citation resolves.
	resp := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "zeppelin hangar", Scopes: []string{"session"}})
	if len(resp.Hits) == 0 {
		t.Fatal("no session hit")
	}
	hit := resp.Hits[0]
	if hit.Scope != "session" || hit.Origin.Kind != ragd.OriginSession || hit.Origin.SessionID != s1 ||
		(hit.Origin.EventID != "e1" && hit.Origin.EventID != "e3") || hit.Origin.Title != "Storage talk" {
		t.Fatalf("session hit: %+v", hit.Origin)
	}
	ev, err := c.Event(ctx, "demo", hit.Origin.EventID)
	if err != nil {
		daemontest.Fatal(t, "get event", err)
	}
	if ev.ID != hit.Origin.EventID || ev.SessionID != s1 || !strings.Contains(ev.Text, "zeppelin") || !strings.Contains(hit.Content, "zeppelin") {
		t.Errorf("event %+v for hit %q", ev, hit.Content)
	}
	// Mechanism is not conversation: tool calls and errors never become chunks.
	for _, q := range []string{"grep", "quokka tool failed"} {
		for _, h := range daemontest.Search(t, c, "demo", api.SearchRequest{Query: q, Scopes: []string{"session"}}).Hits {
			if h.Origin.EventID == "e2" || h.Origin.EventID == "f3" {
				t.Errorf("search %q found event %s, which is not a message", q, h.Origin.EventID)
			}
		}
	}

	// A search and a vote from inside a session are told in its log.
	agent := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "quokka clients", SessionID: "s-agent", Actor: "agent"})
	if agent.SearchID == nil || len(agent.Hits) == 0 {
		t.Fatalf("agent search: %+v", agent)
	}
	if _, err := c.Feedback(ctx, api.FeedbackRequest{SearchID: *agent.SearchID, ChunkID: agent.Hits[0].ChunkID,
		Verdict: "useful", Actor: "agent", SessionID: "s-agent"}); err != nil {
		daemontest.Fatal(t, "agent vote", err)
	}
	p, err := d.Engine().Project(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	told := d.Messages(t, p.ID, []string{"rag.search", "rag.feedback"})
	if len(told) != 2 || told[0].Type != "rag.search" || told[1].Type != "rag.feedback" {
		t.Fatalf("session log of s-agent: %+v, want rag.search then rag.feedback", told)
	}
	for _, m := range told {
		if ev, err = c.Event(ctx, "demo", m.EventID); err != nil {
			daemontest.Fatal(t, "get "+m.Type, err)
		}
		var payload struct {
			SearchID int64  `json:"searchId"`
			ChunkID  string `json:"chunkId"`
			Query    string `json:"query"`
		}
		if err := json.Unmarshal(ev.Payload, &payload); err != nil || ev.SessionID != "s-agent" || ev.Actor != "agent" ||
			payload.SearchID != *agent.SearchID {
			t.Errorf("%s event %+v payload %s: %v", m.Type, ev, ev.Payload, err)
		}
	}
	// The narrative is never indexed: a session reindex leaves it out.
	daemontest.Reindex(t, c, "demo", "session")
	if hits := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "quokka clients", Scopes: []string{"session"}}).Hits; slices.ContainsFunc(hits, func(h api.Hit) bool {
		return h.Origin.SessionID == "s-agent"
	}) {
		t.Errorf("a rag.* event was indexed: %+v", hits)
	}
}

func ptr[T any](v T) *T { return &v }

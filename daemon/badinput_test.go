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

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/store"
)

// TestAPI_BadInput sends the daemon what a confused client or a typo sends:
// each gets a 4xx with the JSON error shape and a message naming the
// problem, never a 5xx; the daemon stays up and no telemetry row is lost.
func TestAPI_BadInput(t *testing.T) {
	ctx := context.Background()
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(newServer(t).URL)
	cfg.Daemon.MaxBodyBytes = 4096
	d := daemontest.Start(t, w, cfg)
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	daemontest.Reindex(t, d.Client, "demo")

	// Two searches whose hits do not overlap, for a vote on a chunk that
	// was not among a search's hits.
	adr := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "sqlite-vec", Scopes: []string{"adr"}, Limit: ptr(1)})
	docs := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "Unix socket", Scopes: []string{"docs"}, Limit: ptr(1)})
	if adr.SearchID == nil || len(adr.Hits) != 1 || len(docs.Hits) != 1 {
		t.Fatalf("set-up searches: %+v, %+v", adr, docs)
	}
	answered := 2
	notRepo := t.TempDir()

	search := daemontest.ProjectPath("demo", "/search")
	js := "application/json"
	jsonOf := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name         string
		method, path string
		contentType  string
		body         string
		status       int
		code         string
		message      string // a part of the message
	}{
		{"malformed JSON", "POST", search, js, `{"query": oops}`, 400, "bad_request", "malformed JSON"},
		{"truncated JSON", "POST", search, js, `{"query": "socket"`, 400, "bad_request", "truncated"},
		{"two JSON values", "POST", search, js, `{"query": "a"} {"query": "b"}`, 400, "bad_request", "more than one"},
		{"empty body", "POST", search, js, ``, 400, "bad_request", "empty"},
		{"JSON null", "POST", search, js, `null`, 400, "bad_request", "query is empty"},
		{"array body", "POST", search, js, `["socket"]`, 400, "bad_request", "want a JSON object, got array"},
		{"string body", "POST", "/v1/feedback", js, `"useful"`, 400, "bad_request", "want a JSON object, got string"},
		{"unknown field", "POST", search, js, `{"query": "socket", "limt": 3}`, 400, "bad_request", `"limt"`},
		{"wrong field type", "POST", search, js, `{"query": 42}`, 400, "bad_request", `"query"`},
		{"text/plain", "POST", search, "text/plain", `query=socket`, 415, "unsupported_media_type", "not JSON"},
		{"form", "POST", "/v1/projects", "application/x-www-form-urlencoded", `path=/tmp`, 415, "unsupported_media_type", "application/json"},
		{"bad content type", "POST", search, "application/", `query: socket`, 415, "unsupported_media_type", "not JSON"},
		{"form content type, JSON body, bad JSON", "POST", search, "application/x-www-form-urlencoded", `{"query": oops}`, 400, "bad_request", "malformed JSON"},
		{"oversized body", "POST", search, js, `{"query": "` + strings.Repeat("socket ", 1000) + `"}`, 413, "too_large", "4096 bytes"},
		{"unknown route", "GET", "/v1/nothing", "", ``, 404, "not_found", "no route GET /v1/nothing"},
		{"dot segment", "GET", "/v1/./health", "", ``, 400, "bad_request", `not canonical: send "/v1/health"`},
		{"dot-dot segment", "GET", "/v1/projects/../health", "", ``, 400, "bad_request", `not canonical: send "/v1/health"`},
		{"double slash", "GET", "/v1//health", "", ``, 400, "bad_request", `not canonical: send "/v1/health"`},
		{"trailing slash", "GET", "/v1/health/", "", ``, 400, "bad_request", `not canonical: send "/v1/health"`},
		{"trailing slash on a collection", "GET", "/v1/projects/", "", ``, 400, "bad_request", `not canonical: send "/v1/projects"`},
		{"dot-dot in a POST", "POST", daemontest.ProjectPath("demo", "/../demo/search"), js, `{"query": "socket"}`, 400, "bad_request", `send "/v1/projects/demo/search"`},
		{"dot-dot above the root", "GET", "/../v1/health", "", ``, 400, "bad_request", "not canonical"},
		{"escaped NUL in the path", "GET", "/v1/he%00alth", "", ``, 404, "not_found", "no route"},
		{"unversioned route", "GET", "/health", "", ``, 404, "not_found", "no route"},
		{"route under a project", "GET", daemontest.ProjectPath("demo", "/nothing"), "", ``, 404, "not_found", "no route"},
		{"wrong method", "DELETE", "/v1/health", "", ``, 405, "method_not_allowed", "allowed: GET"},
		{"GET a POST route", "GET", search, "", ``, 405, "method_not_allowed", "POST"},
		{"unknown project", "POST", daemontest.ProjectPath("nope", "/search"), js, `{"query": "socket"}`, 404, "not_found", `unknown project "nope"`},
		{"unknown project coverage", "GET", daemontest.ProjectPath("nope", "/coverage"), "", ``, 404, "not_found", `"nope"`},
		{"unknown event", "GET", daemontest.ProjectPath("demo", "/events/nope"), "", ``, 404, "not_found", `"nope"`},
		{"unknown search id", "POST", "/v1/feedback", js, jsonOf(api.FeedbackRequest{SearchID: 999999, ChunkID: adr.Hits[0].ChunkID, Verdict: "useful"}), 404, "not_found", "999999"},
		{"search id 0", "POST", "/v1/feedback", js, jsonOf(api.FeedbackRequest{ChunkID: adr.Hits[0].ChunkID, Verdict: "useful"}), 400, "bad_request", "search id 0"},
		{"chunk not among the hits", "POST", "/v1/feedback", js, jsonOf(api.FeedbackRequest{SearchID: *adr.SearchID, ChunkID: docs.Hits[0].ChunkID, Verdict: "useful"}), 400, "bad_request", "not among the hits"},
		{"unknown verdict", "POST", "/v1/feedback", js, jsonOf(api.FeedbackRequest{SearchID: *adr.SearchID, ChunkID: adr.Hits[0].ChunkID, Verdict: "meh"}), 400, "bad_request", `"meh"`},
		{"not a repository", "POST", "/v1/projects", js, jsonOf(api.AddProjectRequest{Path: notRepo}), 400, "bad_request", notRepo},
		{"missing path", "POST", "/v1/projects", js, `{}`, 400, "bad_request", "path: required"},
		{"relative path", "POST", "/v1/projects", js, `{"path": "docs"}`, 400, "bad_request", "absolute"},
		{"bad project name", "POST", "/v1/projects", js, jsonOf(api.AddProjectRequest{Path: repo.Dir, Name: "Bad Name!"}), 400, "bad_request", `"Bad Name!"`},
		{"registered twice", "POST", "/v1/projects", js, jsonOf(api.AddProjectRequest{Path: repo.Dir}), 409, "exists", `"demo"`},
		{"registered twice by its .git", "POST", "/v1/projects", js, jsonOf(api.AddProjectRequest{Path: filepath.Join(repo.Dir, ".git"), Name: "other"}), 409, "exists", `"demo"`},
		{"registered twice by a sub-folder", "POST", "/v1/projects", js, jsonOf(api.AddProjectRequest{Path: filepath.Join(repo.Dir, "docs"), Name: "other"}), 409, "exists", `"demo"`},
		{"registered twice by a file", "POST", "/v1/projects", js, jsonOf(api.AddProjectRequest{Path: filepath.Join(repo.Dir, "docs", "guide.md"), Name: "other"}), 409, "exists", `"demo"`},
		{"empty query", "POST", search, js, `{"query": ""}`, 400, "bad_request", "empty"},
		{"blank query", "POST", search, js, `{"query": " \t\n "}`, 400, "bad_request", "empty"},
		{"over-long query", "POST", search, js, jsonOf(api.SearchRequest{Query: strings.Repeat("é", 1001)}), 400, "bad_request", "longer than 1000"},
		{"NUL in query", "POST", search, js, `{"query": "socket\u0000owner"}`, 400, "bad_request", "NUL"},
		{"limit 0", "POST", search, js, `{"query": "socket", "limit": 0}`, 400, "bad_request", "limit 0"},
		{"limit 21", "POST", search, js, `{"query": "socket", "limit": 21}`, 400, "bad_request", "limit 21"},
		{"negative limit", "POST", search, js, `{"query": "socket", "limit": -1}`, 400, "bad_request", "limit -1"},
		{"unknown scope", "POST", search, js, `{"query": "socket", "scopes": ["code"]}`, 400, "bad_request", `"code"`},
		{"unknown fusion", "POST", search, js, `{"query": "socket", "fusion": "magic"}`, 400, "bad_request", `"magic"`},
		{"unknown actor", "POST", search, js, `{"query": "socket", "actor": "robot"}`, 400, "bad_request", `"robot"`},
		{"reindex unknown scope", "POST", daemontest.ProjectPath("demo", "/reindex"), js, `{"scope": "code"}`, 400, "bad_request", `"code"`},
		{"patch nothing", "PATCH", daemontest.ProjectPath("demo", ""), js, `{}`, 400, "bad_request", "autoReindex"},
		{"invalid event", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"id": "x", "sessionId": "s", "type": "chat.message", "actor": "person", "time": "2026-01-01T00:00:00Z"}`, 400, "bad_request", "missing text"},
		{"event with a bad time", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"id": "x", "sessionId": "s", "type": "note", "actor": "person", "time": "yesterday"}`, 400, "bad_request", "yesterday"},
		{"no events", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"events": []}`, 400, "bad_request", "no events"},
		{"events a string", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"events": "x"}`, 400, "bad_request", "events: want an array of events, got string"},
		{"events null", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"events": null}`, 400, "bad_request", "events: want an array of events, got null"},
		{"events an object", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"events": {"id": "x"}}`, 400, "bad_request", "events: want an array of events, got object"},
		{"events beside event fields", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"events": [], "id": "x"}`, 400, "bad_request", `"id"`},
		{"events array body", "POST", daemontest.ProjectPath("demo", "/events"), js, `[{"id": "x"}]`, 400, "bad_request", "want a JSON object, got array"},
		{"lone surrogate in an event id", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"id": "\ud800", "sessionId": "s", "type": "note", "actor": "person", "time": "2026-01-01T00:00:00Z"}`, 400, "bad_request", `field "id": lone UTF-16 surrogate \ud800`},
		{"lone low surrogate in a listed event", "POST", daemontest.ProjectPath("demo", "/events"), js, `{"events": [{"id": "a\udc00b", "sessionId": "s", "type": "note", "actor": "person", "time": "2026-01-01T00:00:00Z"}]}`, 400, "bad_request", `field "events[0].id": lone UTF-16 surrogate \udc00`},
		{"high surrogate then a letter", "POST", search, js, `{"query": "\ud83dx"}`, 400, "bad_request", `field "query": lone UTF-16 surrogate \ud83d`},
		{"invalid UTF-8 in a query", "POST", search, js, "{\"query\": \"sock\xffet\"}", 400, "bad_request", `field "query": invalid UTF-8`},
		{"invalid UTF-8 in a key", "POST", search, js, "{\"qu\xc3ery\": \"socket\"}", 400, "bad_request", "invalid UTF-8"},
		{"invalid UTF-8 in a scope", "POST", search, js, "{\"query\": \"socket\", \"scopes\": [\"docs\", \"a\xed\xa0\x80\"]}", 400, "bad_request", `field "scopes[1]": invalid UTF-8`},
		{"measure bad window", "GET", "/v1/measure?since=last+week", "", ``, 400, "bad_request", "since"},
		{"measure bad k", "GET", "/v1/measure?k=many", "", ``, 400, "bad_request", `"many"`},
		{"measure k too large", "GET", "/v1/measure?k=99", "", ``, 400, "bad_request", "k 99"},
		{"measure unknown project", "GET", "/v1/measure?project=nope", "", ``, 404, "not_found", `"nope"`},
		{"measure since overflows", "GET", "/v1/measure?since=99999999999d", "", ``, 400, "bad_request", "since"},
		{"measure since before year 1", "GET", "/v1/measure?since=0000-06-01T00:00:00Z", "", ``, 400, "bad_request", "before year 1"},
		{"measure until overflows", "GET", "/v1/measure?until=9223372036854775807h", "", ``, 400, "bad_request", "until"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != "" || tt.method == "POST" {
				body = []byte(tt.body)
			}
			a := daemontest.Do(t, d.Socket(), tt.method, tt.path, tt.contentType, body)
			if a.Status >= 500 {
				t.Fatalf("%d for bad input: %s", a.Status, a.Body)
			}
			e := a.ErrorBody(t)
			if a.Status != tt.status || e.Code != tt.code || !strings.Contains(e.Message, tt.message) {
				t.Errorf("got %d %s %q; want %d %s with %q", a.Status, e.Code, e.Message, tt.status, tt.code, tt.message)
			}
			if tt.status == http.StatusMethodNotAllowed && a.Header.Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
		})
	}

	// The daemon is up, the index and the telemetry as they were.
	h, err := d.Client.Health(ctx)
	if err != nil {
		daemontest.Fatal(t, "health after bad input", err)
	}
	if h.Index.Searches != answered || h.Index.Votes != 0 || h.Index.Projects != 1 || h.Index.Events != 0 {
		t.Errorf("after bad input: %+v, want %d searches, no vote, one project, no event", h.Index, answered)
	}
	if err := d.Store().IntegrityCheck(ctx); err != nil {
		t.Error(err)
	}
	if resp := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "socket"}); resp.SearchID == nil || len(resp.Hits) == 0 {
		t.Errorf("search after bad input: %+v", resp)
	}
}

// TestAPI_ClientGoesAwayMidReindex cancels a streaming reindex from the
// client side while the embedder is busy: the reindex stops, nothing of it
// is written, the daemon stays up, and the next reindex works.
func TestAPI_ClientGoesAwayMidReindex(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t)
	d, repo := startDocs(t, srv.URL)
	c := d.Client
	daemontest.Reindex(t, c, "demo")
	p, err := d.Store().Project(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	before := chunkIDs(t, d.Store(), p.ID)

	// New text needs the embedder, which now hangs.
	repo.Commit(t, "v2", daemontest.Corpus(5, 4, "v2"))
	srv.SetFault(srv.Hang())

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var phases []string
	_, err = c.ReindexStream(sctx, "demo", api.ReindexRequest{Scope: "all"}, func(p api.Progress) {
		phases = append(phases, p.Phase)
		if p.Phase == api.PhaseEmbed {
			cancel() // the client goes away while the embedder works
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stream after cancel: %v (phases %v)", err, phases)
	}

	// The daemon answers, and the abandoned reindex winds down while the
	// embedder still hangs: the cancel reached it.
	daemontest.Project(t, c, "demo")
	daemontest.WaitFor(t, "the abandoned reindex to stop", func() bool {
		return !daemontest.Coverage(t, c, "demo").Running
	})
	srv.SetFault(nil)
	if h, err := c.Health(ctx); err != nil || !h.Embedding.Available {
		t.Fatalf("health after the client went away: %+v, %v", h, err)
	}
	if err := d.Store().IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	if after := chunkIDs(t, d.Store(), p.ID); !slices.Equal(after, before) {
		t.Errorf("index changed by a cancelled reindex: %d chunks, was %d", len(after), len(before))
	}
	run, err := d.Store().LastRun(ctx, p.ID, "docs", "")
	if err != nil || run.Status != ragd.RunFailed {
		t.Errorf("last docs run: %+v, %v; want it recorded failed", run, err)
	}
	cov := daemontest.Coverage(t, c, "demo")
	if sc := daemontest.ScopeCoverage(t, cov, "docs"); !sc.Stale {
		t.Errorf("docs after the cancelled reindex: %+v, want stale", sc)
	}

	// With the embedder back, the next reindex completes.
	if rep := daemontest.Reindex(t, c, "demo"); !rep.Complete {
		t.Errorf("reindex after the cancelled one: %s", rep.Summary)
	}
	if after := chunkIDs(t, d.Store(), p.ID); slices.Equal(after, before) {
		t.Error("the reindex after the cancelled one changed nothing")
	}
}

// chunkIDs lists the ids of a project's chunks, every scope, sorted.
func chunkIDs(tb testing.TB, s *store.Store, projectID int64) []string {
	tb.Helper()
	var ids []string
	for _, scope := range ragd.Scopes {
		cs, err := s.ScopeChunks(context.Background(), projectID, scope)
		if err != nil {
			tb.Fatal(err)
		}
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

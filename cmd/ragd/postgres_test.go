package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/pgtest"
	"github.com/ragd/ragd/internal/syncbuf"
	"github.com/ragd/ragd/store/postgres"
)

// pgPool is the pool of each daemon these tests start: small, as a team
// member's daemon on a shared server would keep it.
const pgPool = "3"

// pgDatabase is an empty database for t on the test binary's PostgreSQL
// server (pgtest.Fresh), its URL asking for a pool of pgPool: the
// [daemon] database a team member would configure, password included.
func pgDatabase(t *testing.T) string {
	t.Helper()
	return pgtest.Fresh(t) + "&pool_max_conns=" + pgPool
}

// startPG starts a daemon of owner on the PostgreSQL engine at database,
// opened as ragd serve opens it (engines.Open), in a world of its own.
func startPG(t *testing.T, host, database, owner string, share bool) *daemontest.Daemon {
	t.Helper()
	cfg := daemontest.Config(host)
	cfg.Daemon.Database = database
	cfg.Daemon.Owner = owner
	cfg.Sessions.Share = share
	return daemontest.StartWith(t, daemontest.NewWorld(t), cfg, engines.Open)
}

// pgConn connects the test itself to database (without the pool's
// parameters, which a server refuses at connect), closed at the end.
func pgConn(t *testing.T, database string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), strings.Replace(database, "&pool_max_conns="+pgPool, "", 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func newOllama(t *testing.T) *ollamatest.Server {
	t.Helper()
	return ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
}

// Issue 24: ragd doctor on the PostgreSQL engine shows the server's,
// pgvector's and the schema's versions as lines of their own, no
// sqlite-vec line, and the database without its password, on the health
// route too; a schema newer than the binary's fails its line with the fix.
func TestDoctor_Postgres(t *testing.T) {
	srv := newOllama(t)
	database := pgDatabase(t)
	d := startPG(t, srv.URL, database, "alice", false)
	d.World.Setenv(t)

	out, stderr, err := ragdErr(t, "doctor", "--json")
	doc := decode[doctorReport](t, out)
	if err != nil || !doc.OK {
		t.Errorf("doctor: %v, ok %v: %+v (%s)", err, doc.OK, doc.Checks, stderr)
	}
	byName := map[string]check{}
	for _, c := range doc.Checks {
		byName[c.Name] = c
	}
	// Every migration the engine ships is applied.
	migrations, err := filepath.Glob("../../store/postgres/migrations/*.sql")
	if err != nil || len(migrations) == 0 {
		t.Fatalf("the engine's migrations: %v, %v", migrations, err)
	}
	for name, want := range map[string]string{
		"PostgreSQL server": "PostgreSQL 18",
		"pgvector":          "0.",
		"schema":            fmt.Sprintf("version %d of %d", len(migrations), len(migrations)),
		"indexes":           "valid",
		"database":          "postgres://postgres:xxxxx@127.0.0.1:",
	} {
		if c, ok := byName[name]; !ok || !c.OK || !strings.Contains(c.Detail, want) {
			t.Errorf("doctor's %s line: %+v, want ok and %q in it", name, c, want)
		}
	}
	if c := byName["schema"]; !strings.Contains(c.Detail, "owner alice") {
		t.Errorf("doctor's schema line %q does not say whose daemon it is", c.Detail)
	}
	if _, ok := byName["sqlite-vec"]; ok {
		t.Errorf("doctor shows a sqlite-vec line on PostgreSQL: %+v", doc.Checks)
	}
	text, _, _ := ragdErr(t, "doctor")
	health := daemontest.Do(t, d.Socket(), "GET", "/v1/health", "", nil)
	for what, b := range map[string][]byte{"doctor --json": out, "doctor": text, "health": health.Body} {
		if strings.Contains(string(b), "postgres:postgres@") {
			t.Errorf("%s shows the database's password:\n%s", what, b)
		}
	}

	// A newer ragd migrated the database: the schema line fails, saying
	// what to do.
	conn := pgConn(t, database)
	if _, err := conn.Exec(context.Background(), "INSERT INTO schema_version (version, name) VALUES (99, '0099_future.sql')"); err != nil {
		t.Fatal(err)
	}
	out, _, err = ragdErr(t, "doctor", "--json")
	doc = decode[doctorReport](t, out)
	i := slices.IndexFunc(doc.Checks, func(c check) bool { return c.Name == "schema" })
	if err == nil || doc.OK || i < 0 || doc.Checks[i].OK || !strings.Contains(doc.Checks[i].Detail, "version 99") ||
		!strings.Contains(doc.Checks[i].Fix, "upgrade ragd") {
		t.Errorf("doctor on a newer schema: %v, %+v", err, doc.Checks)
	}
}

// Issue 24: the server going away under a running daemon. A search
// answers a JSON 5xx that names the database (without its password),
// the health route too, and the daemon keeps running; a reindex fails and
// leaves the old scope whole; once the server is back, the same daemon
// searches and reindexes again. The server is taken away by a proxy in
// front of it (daemontest.Proxy); store/postgres's TestServerKilled kills
// the server itself in the middle of a replace and of an append.
func TestPostgres_ConnectionLoss(t *testing.T) {
	ctx := context.Background()
	srv := newOllama(t)
	px, database := daemontest.ProxyURL(t, pgDatabase(t))
	cfg := daemontest.Config(srv.URL)
	cfg.Daemon.Database, cfg.Daemon.Owner = database, "alice"
	var logs syncbuf.Buffer
	d := daemontest.StartLogged(t, daemontest.NewWorld(t), cfg, engines.Open,
		slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	c := d.Client
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, c, repo.Dir, "demo")
	daemontest.Reindex(t, c, "demo")
	eng := d.Engine().(*postgres.Store)
	p, err := eng.Project(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	before := chunkSet(t, eng, p.ID, domain.ScopeDocs)
	if len(before) == 0 {
		t.Fatal("no docs chunks after the first reindex")
	}
	search := func() daemontest.Answer {
		body, _ := json.Marshal(api.SearchRequest{Query: "hybrid search weights"})
		return daemontest.Do(t, d.Socket(), "POST", daemontest.ProjectPath("demo", "/search"), "application/json", body)
	}
	if a := search(); a.Status != http.StatusOK {
		t.Fatalf("search with the server up: %d %s", a.Status, a.Body)
	}

	px.Cut()
	shown := domain.RedactDatabase(database)
	hostAndPath := shown[strings.Index(shown, "@"):strings.Index(shown, "?")]
	for what, a := range map[string]daemontest.Answer{
		"search": search(),
		"health": daemontest.Do(t, d.Socket(), "GET", "/v1/health", "", nil),
	} {
		if a.Status != http.StatusServiceUnavailable {
			t.Errorf("%s with the server gone: %d %s, want 503", what, a.Status, a.Body)
			continue
		}
		e := a.ErrorBody(t)
		if e.Code != api.CodeDatabaseUnavailable {
			t.Errorf("%s with the server gone: code %q, want %q", what, e.Code, api.CodeDatabaseUnavailable)
		}
		// The URL as the engine shows it; the daemon's redaction of its
		// answers may mark the hidden password its own way.
		if !strings.Contains(e.Message, shown) && !strings.Contains(e.Message, hostAndPath) ||
			!strings.Contains(e.Message, "database connection failed") {
			t.Errorf("%s with the server gone: %q, want the database %s and what failed", what, e.Message, shown)
		}
		if pw := urlPassword(t, database); strings.Contains(string(a.Body), pw) {
			t.Errorf("%s shows the password: %s", what, a.Body)
		}
	}
	repo.Commit(t, "rewrite the guide", map[string]string{
		"docs/guide.md": "# Guide\n\n## Zebra\n\nThe zebra crossing chapter replaces the old guide.\n"})
	rep, err := c.Reindex(ctx, "demo", api.ReindexRequest{Scopes: []string{domain.ScopeDocs}})
	if err == nil && rep.Complete && rep.Scopes[0].Status == api.StatusOK {
		t.Errorf("reindex with the server gone succeeded: %+v", rep)
	}
	select {
	case err := <-d.Done():
		t.Fatalf("the daemon stopped when the server went away: %v", err)
	default:
	}

	// Back: the same daemon answers, the old scope is whole, a reindex
	// writes the new text. The pool notices its dead connections and
	// dials again.
	px.Restore(t)
	if a := search(); a.Status != http.StatusOK {
		t.Fatalf("search once the server is back: %d %s", a.Status, a.Body)
	}
	if after := chunkSet(t, eng, p.ID, domain.ScopeDocs); !slices.Equal(after, before) {
		t.Errorf("docs after the failed reindex: %v, want the old %v", after, before)
	}
	rep = daemontest.Reindex(t, c, "demo", domain.ScopeDocs)
	if !rep.Complete || rep.Scopes[0].Status != api.StatusOK {
		t.Fatalf("reindex once the server is back: %+v", rep.Scopes)
	}
	hits := daemontest.Search(t, c, "demo", api.SearchRequest{Query: "zebra crossing"}).Hits
	if len(hits) == 0 || hits[0].Origin.SourcePath != "docs/guide.md" {
		t.Errorf("search of the new text: %+v", hits)
	}
	d.Stop(t)
	if l := logs.String(); !strings.Contains(l, hostAndPath) || strings.Contains(l, urlPassword(t, database)) {
		t.Errorf("the daemon's log names the database without its password? %s", l)
	}
}

// urlPassword is the password of a postgres:// URL.
func urlPassword(t *testing.T, database string) string {
	t.Helper()
	u, err := url.Parse(database)
	if err != nil {
		t.Fatal(err)
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" {
		t.Fatalf("no password in %s", domain.RedactDatabase(database))
	}
	return pw
}

// The server itself stopped (a server of the test's own, stopped for
// good): searches and the health route answer a JSON 5xx naming the
// database, the daemon keeps serving, and it closes cleanly.
func TestPostgres_ServerStopped(t *testing.T) {
	server := pgtest.StartOptions(t, pgtest.Options{})
	database := server.Fresh(t) + "&pool_max_conns=" + pgPool
	d := startPG(t, newOllama(t).URL, database, "alice", false)
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	daemontest.Reindex(t, d.Client, "demo")
	if err := server.Stop(); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(api.SearchRequest{Query: "hybrid search weights"})
	for what, a := range map[string]daemontest.Answer{
		"search": daemontest.Do(t, d.Socket(), "POST", daemontest.ProjectPath("demo", "/search"), "application/json", body),
		"health": daemontest.Do(t, d.Socket(), "GET", "/v1/health", "", nil),
	} {
		if a.Status < 500 {
			t.Errorf("%s with the server stopped: %d %s, want a 5xx", what, a.Status, a.Body)
			continue
		}
		if e := a.ErrorBody(t); !strings.Contains(e.Message, "database connection failed") || !strings.Contains(e.Message, "127.0.0.1:") {
			t.Errorf("%s with the server stopped: %q, want the database and what failed", what, e.Message)
		}
	}
	select {
	case err := <-d.Done():
		t.Fatalf("the daemon stopped with the server: %v", err)
	default:
	}
	d.Stop(t)
}

// chunkSet lists the IDs of a scope's chunks, sorted.
func chunkSet(t *testing.T, e *postgres.Store, projectID int64, scope string) []string {
	t.Helper()
	chunks, err := e.ScopeChunks(context.Background(), projectID, scope)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, ch := range chunks {
		ids = append(ids, ch.ID)
	}
	slices.Sort(ids)
	return ids
}

// Issue 24, "Tests and figures": two developers' daemons on one database.
// Both reindex one shared project at once: both finish, the scopes hold
// one set of chunks, no duplicates, every run recorded under its owner.
// Each one's sessions are invisible to the other's searches until shared
// ([sessions] share = true). Searches and votes carry their owner, and
// each daemon's measure counts its own owner's searches only: a person's
// measure is their own searches.
//
// Each daemon gets a pool of pgPool; the reindexes of one scope take turns
// under the scope's advisory lock.
func TestPostgres_TwoDaemons(t *testing.T) {
	database := pgDatabase(t)
	testTwoDaemons(t, database, func(string) string { return database })
}

// testTwoDaemons is TestPostgres_TwoDaemons on the database admin, each
// owner's daemon connecting to databaseOf(owner).
func testTwoDaemons(t *testing.T, database string, databaseOf func(owner string) string) {
	ctx := context.Background()
	srv := newOllama(t)
	alice := startPG(t, srv.URL, databaseOf("alice"), "alice", false)
	bob := startPG(t, srv.URL, databaseOf("bob"), "bob", false)
	files := daemontest.Corpus(12, 3, "v1")
	repo := daemontest.Repo(t, files)
	for _, d := range []*daemontest.Daemon{alice, bob} {
		daemontest.AddProject(t, d.Client, repo.Dir, "team")
	}

	// Both reindex the shared project at once.
	reports := make([]*api.Report, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, d := range []*daemontest.Daemon{alice, bob} {
		wg.Go(func() {
			reports[i], errs[i] = d.Client.Reindex(ctx, "team", api.ReindexRequest{})
		})
	}
	wg.Wait()
	for i, who := range []string{"alice", "bob"} {
		if errs[i] != nil {
			daemontest.Fatal(t, who+"'s reindex", errs[i])
		}
		if !reports[i].Complete {
			t.Errorf("%s's reindex incomplete: %+v", who, reports[i].Scopes)
		}
		for _, sr := range reports[i].Scopes {
			if sr.Status != api.StatusOK {
				t.Errorf("%s's reindex of %s: %s %s", who, sr.Scope, sr.Status, sr.Error)
			}
		}
	}
	eng := alice.Engine().(*postgres.Store)
	p, err := eng.Project(ctx, "team")
	if err != nil {
		t.Fatal(err)
	}
	conn := pgConn(t, strings.Replace(database, "&pool_max_conns="+pgPool, "", 1))
	var dup int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT source_path, position FROM chunks
		WHERE project_id = $1 AND scope IN ('docs', 'adr') GROUP BY scope, source_path, position HAVING count(*) > 1) d`, p.ID).Scan(&dup); err != nil {
		t.Fatal(err)
	}
	if dup != 0 {
		t.Errorf("%d (path, position) pairs held twice after concurrent reindexes", dup)
	}
	for _, scope := range []string{domain.ScopeDocs, domain.ScopeADR} {
		ids := chunkSet(t, eng, p.ID, scope)
		if n := len(slices.Compact(slices.Clone(ids))); n != len(ids) {
			t.Errorf("scope %s: %d chunk IDs of which %d distinct", scope, len(ids), n)
		}
		for i, rep := range reports {
			if sr := scopeReport(rep, scope); sr == nil || sr.Chunks.Total != len(ids) {
				t.Errorf("scope %s holds %d chunks; daemon %d's report: %+v", scope, len(ids), i, sr)
			}
		}
		paths := map[string]bool{}
		chunks, _ := eng.ScopeChunks(ctx, p.ID, scope)
		for _, ch := range chunks {
			paths[ch.SourcePath] = true
		}
		for path := range files {
			if (strings.HasPrefix(path, "docs/adr/") == (scope == domain.ScopeADR)) && !paths[path] {
				t.Errorf("scope %s lacks %s", scope, path)
			}
		}
	}
	rows, err := conn.Query(ctx, `SELECT owner, scope, status FROM index_runs WHERE project_id = $1 AND scope IN ('docs', 'adr')`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	type run struct{ owner, scope, status string }
	runs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (run, error) {
		var x run
		return x, r.Scan(&x.owner, &x.scope, &x.status)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, owner := range []string{"alice", "bob"} {
		for _, scope := range []string{domain.ScopeDocs, domain.ScopeADR} {
			if !slices.Contains(runs, run{owner, scope, "ok"}) {
				t.Errorf("no ok run of %s by %s: %+v", scope, owner, runs)
			}
		}
	}

	// Each one's session, private by default.
	appendSession := func(d *daemontest.Daemon, session, text string) {
		t.Helper()
		if _, err := d.Client.AppendEvents(ctx, "team", []domain.Event{{ID: session + "-1", SessionID: session, Type: "chat.message",
			Actor: "person", Text: text, Time: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}); err != nil {
			daemontest.Fatal(t, "append to "+session, err)
		}
		// Embedded now, not by the background fill some time later: a
		// lexical-only hit may score below the weighted threshold.
		if rep := daemontest.Reindex(t, d.Client, "team", domain.ScopeSession); rep.Scopes[0].Status != api.StatusOK {
			t.Fatalf("reindex of %s's sessions: %+v", session, rep.Scopes)
		}
	}
	appendSession(alice, "s-alice", "The aardvark migration plan needs a rollback.")
	appendSession(bob, "s-bob", "The walrus cache evicts on every deploy.")
	sessionHits := func(d *daemontest.Daemon, query string) []api.Hit {
		t.Helper()
		return daemontest.Search(t, d.Client, "team", api.SearchRequest{Query: query, Scopes: []string{domain.ScopeSession}}).Hits
	}
	// Each finds their own session by its words, and never the other's:
	// the vector half may add one's own session to any search (the best
	// vector candidate reads as a match under the space normalisation),
	// which is no leak.
	for _, tc := range []struct {
		d      *daemontest.Daemon
		who    string
		query  string
		want   string // the session that must be found, "" for none
		hidden string // the other's session, never found
	}{
		{alice, "alice", "aardvark migration", "s-alice", "s-bob"},
		{alice, "alice", "walrus cache", "", "s-bob"},
		{bob, "bob", "walrus cache", "s-bob", "s-alice"},
		{bob, "bob", "aardvark migration", "", "s-alice"},
	} {
		hits := sessionHits(tc.d, tc.query)
		var sessions []string
		for _, h := range hits {
			sessions = append(sessions, h.Origin.SessionID)
		}
		if slices.Contains(sessions, tc.hidden) || tc.want != "" && (len(hits) == 0 || sessions[0] != tc.want) {
			t.Errorf("%s's search %q found sessions %v, want %q first and never %q", tc.who, tc.query, sessions, tc.want, tc.hidden)
		}
	}
	if list, err := alice.Client.Sessions(ctx, "team", api.SessionsQuery{}); err != nil || len(list.Sessions) != 1 || list.Sessions[0].ID != "s-alice" {
		t.Errorf("alice's session list: %+v, %v; want hers alone", list, err)
	}

	// Bob shares from now on: his new session is found by alice, his
	// earlier one still is not.
	bob.Stop(t)
	bob = startPG(t, srv.URL, databaseOf("bob"), "bob", true)
	appendSession(bob, "s-bob-shared", "The narwhal release train leaves on Fridays.")
	if hits := sessionHits(alice, "narwhal release"); len(hits) == 0 || hits[0].Origin.SessionID != "s-bob-shared" {
		t.Errorf("alice's search of bob's shared session: %+v", hits)
	}
	for _, h := range sessionHits(alice, "walrus cache") {
		if h.Origin.SessionID == "s-bob" {
			t.Errorf("alice finds bob's private session once he shares new ones: %+v", h)
		}
	}

	// Telemetry: every search so far carries its owner; a vote too; each
	// one's measure counts their own searches.
	hit := daemontest.Search(t, alice.Client, "team", api.SearchRequest{Query: "Paragraph file3 section1"})
	if hit.SearchID == nil || len(hit.Hits) == 0 {
		t.Fatalf("alice's docs search: %+v", hit)
	}
	if _, err := alice.Client.Feedback(ctx, api.FeedbackRequest{SearchID: *hit.SearchID, ChunkID: hit.Hits[0].ChunkID, Verdict: "useful"}); err != nil {
		daemontest.Fatal(t, "alice's vote", err)
	}
	// alice: aardvark, walrus, narwhal, walrus again, the docs search;
	// bob: walrus, aardvark.
	wantSearches := map[string]int{"alice": 5, "bob": 2}
	counts := map[string]int{}
	rows, err = conn.Query(ctx, "SELECT owner, count(*) FROM rag_searches GROUP BY owner")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var owner string
		var n int
		if err := rows.Scan(&owner, &n); err != nil {
			t.Fatal(err)
		}
		counts[owner] = n
	}
	if rows.Close(); !maps.Equal(counts, wantSearches) {
		t.Errorf("searches by owner: %v, want %v", counts, wantSearches)
	}
	var voter string
	if err := conn.QueryRow(ctx, "SELECT owner FROM rag_feedback WHERE search_id = $1", *hit.SearchID).Scan(&voter); err != nil || voter != "alice" {
		t.Errorf("the vote's owner: %q, %v; want alice", voter, err)
	}
	for who, d := range map[string]*daemontest.Daemon{"alice": alice, "bob": bob} {
		m, err := d.Client.Measure(ctx, api.MeasureQuery{Project: "team"})
		if err != nil {
			daemontest.Fatal(t, who+"'s measure", err)
		}
		wantVotes := map[string]int{"alice": 1, "bob": 0}[who]
		if m.Total.Searches != wantSearches[who] || m.Total.Votes != wantVotes {
			t.Errorf("%s's measure: %d searches, %d votes; want %d and %d (their own)", who, m.Total.Searches, m.Total.Votes, wantSearches[who], wantVotes)
		}
	}
}

func scopeReport(rep *api.Report, scope string) *api.ScopeReport {
	for _, sr := range rep.Scopes {
		if sr.Scope == scope {
			return sr
		}
	}
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/store/rules"
)

// t0 and ev are the shared test events' (internal/testdb).
var (
	t0 = testdb.T0
	ev = testdb.Event
)

// sessProject adds a project in English (so that the tests know the
// analysed words) and returns its id.
func sessProject(t *testing.T, s *Store, name string) int64 {
	t.Helper()
	ctx := context.Background()
	p, err := s.AddProject(ctx, name, "/src/"+name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetLanguage(ctx, p.ID, "english"); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// sessionChunkRow is a session chunk row as the tests read it.
type sessionChunkRow struct {
	id, event, title, content, owner string
	position                         int
	shared, vector                   bool
}

// sessionChunks reads the session chunks of a project, every owner's, by
// event and position.
func sessionChunks(t *testing.T, s *Store, projectID int64) []sessionChunkRow {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT id, event_id, title, content, owner, position, shared,
		embedding_space IS NOT NULL FROM chunks WHERE project_id = $1 AND scope = 'session' ORDER BY event_id, position`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []sessionChunkRow
	for rows.Next() {
		var c sessionChunkRow
		if err := rows.Scan(&c.id, &c.event, &c.title, &c.content, &c.owner, &c.position, &c.shared, &c.vector); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// lexicalHits lists the ids of a project's chunks whose lexical column
// matches the analysed token, with weight in weights ("A" the title, "D"
// the content; "" any).
func lexicalHits(t *testing.T, s *Store, projectID int64, token, weights string) []string {
	t.Helper()
	q := token
	if weights != "" {
		q += ":" + weights
	}
	rows, err := s.pool.Query(context.Background(), `SELECT id FROM chunks WHERE project_id = $1 AND tsv @@ to_tsquery('simple', $2)
		ORDER BY id`, projectID, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func TestAppendEvents_Idempotent(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "Why PostgreSQL?", 0)
	e1.Title = "Storage"
	e2 := ev("e2", "s1", "agent.response", "Because the team shares it.", time.Second)
	e3 := ev("e3", "s1", "tool.call", "", 2*time.Second)
	e3.Time = e3.Time.Add(123) // nanoseconds: kept exactly
	e3.Payload = []byte(`{"name": "grep", "args": ["-r"]}`)

	res, err := s.AppendEvents(ctx, p, []ragd.Event{e1, e2, e3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 3 || res.Duplicates != 0 || res.SessionsCreated != 1 || len(res.Conflicts) != 0 ||
		res.ByType["chat.message"] != 1 || res.ByType["tool.call"] != 1 || res.Unindexed != 2 || res.Chunks != 0 {
		t.Fatalf("first append: %+v", res)
	}

	// The same events again, one with its time in another zone and its
	// payload re-spaced: the same content.
	again := e3
	again.Time = e3.Time.In(time.FixedZone("CET", 3600))
	again.Payload = []byte(`{"name":"grep","args":["-r"]}`)
	res, err = s.AppendEvents(ctx, p, []ragd.Event{e1, e2, again})
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 0 || res.Duplicates != 3 || res.SessionsCreated != 0 || len(res.Conflicts) != 0 || res.Unindexed != 0 {
		t.Fatalf("second append: %+v", res)
	}

	got, err := s.Event(ctx, p, "e3")
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionID != "s1" || got.Type != "tool.call" || !got.Time.Equal(e3.Time) || string(got.Payload) != string(e3.Payload) ||
		got.Title != "Storage" {
		t.Errorf("Event(e3) = %+v", got)
	}
	if got.CreatedAt.IsZero() {
		t.Error("CreatedAt not set")
	}
	if got, _ := s.Event(ctx, p, "e1"); got.Text != "Why PostgreSQL?" || got.Payload != nil {
		t.Errorf("Event(e1) = %+v", got)
	}
	var events, sessions int
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM session_events WHERE project_id = $1),
		(SELECT count(*) FROM sessions WHERE project_id = $1)`, p).Scan(&events, &sessions); err != nil {
		t.Fatal(err)
	}
	if events != 3 || sessions != 1 {
		t.Errorf("%d events in %d sessions stored, want 3 in 1", events, sessions)
	}
}

func TestAppendEvents_ConflictKeepsOthers(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	if _, err := s.AppendEvents(ctx, p, []ragd.Event{ev("e1", "s1", "chat.message", "hello", 0)}); err != nil {
		t.Fatal(err)
	}
	changed := ev("e1", "s2", "chat.message", "hello there", 0)
	res, err := s.AppendEvents(ctx, p, []ragd.Event{changed, ev("e2", "s1", "chat.message", "next", time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 1 || len(res.Conflicts) != 1 || res.SessionsCreated != 0 {
		t.Fatalf("result: %+v", res)
	}
	if c := res.Conflicts[0]; c.EventID != "e1" || !slices.Equal(c.Fields, []string{"sessionId", "text"}) || !errors.Is(c, ragd.ErrEventConflict) {
		t.Errorf("conflict: %+v", c)
	}
	if got, _ := s.Event(ctx, p, "e1"); got.Text != "hello" || got.SessionID != "s1" {
		t.Errorf("stored event changed: %+v", got)
	}
	if _, err := s.Event(ctx, p, "e2"); err != nil {
		t.Errorf("e2 not stored: %v", err)
	}
}

func TestAppendEvents_BadInputStoresNothing(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	for name, bad := range map[string]ragd.Event{
		"no id":             ev("", "s1", "chat.message", "x", 0),
		"no time":           {ID: "e9", SessionID: "s1", Type: "x", Actor: "a"},
		"payload":           {ID: "e9", SessionID: "s1", Type: "x", Actor: "a", Time: t0, Payload: []byte("{")},
		"message, no text":  ev("e9", "s1", "chat.message", "", 0),
		"bad UTF-8 in text": ev("e9", "s1", "chat.message", "a\xffb", 0),
	} {
		_, err := s.AppendEvents(ctx, p, []ragd.Event{ev("ok", "s1", "chat.message", "x", 0), bad})
		if !errors.Is(err, ragd.ErrInvalidEvent) || !strings.Contains(err.Error(), "event 1") || !strings.Contains(err.Error(), bad.Problem()) {
			t.Errorf("%s: %v, want an invalid event naming event 1 and %q", name, err, bad.Problem())
		}
	}
	if _, err := s.Event(ctx, p, "ok"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("a batch with a bad event was partly stored: %v", err)
	}
	if _, err := s.AppendEvents(ctx, p+99, []ragd.Event{ev("e1", "s1", "chat.message", "x", 0)}); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("append to an unknown project: %v, want ErrNotFound", err)
	}
}

// TestAppendEvents_NULInText: PostgreSQL refuses a NUL byte in text, which
// the event format allows: it is stored as U+FFFD, and the event appended
// again is the same event.
func TestAppendEvents_NULInText(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	e := ev("e1", "s1", "chat.message", "a\x00b", 0)
	e.Title = "t\x00"
	for i, want := range []ragd.AppendResult{{Appended: 1, SessionsCreated: 1}, {Duplicates: 1}} {
		in := []ragd.ChunkInput{{SessionID: "s1", EventID: "e1", Content: e.Text, ContentHash: "h", End: len(e.Text)}}
		res, err := s.AppendSession(ctx, p, []ragd.Event{e}, [][]ragd.ChunkInput{in})
		if err != nil || res.Appended != want.Appended || res.Duplicates != want.Duplicates || len(res.Conflicts) != 0 {
			t.Fatalf("append %d: %+v, %v", i, res, err)
		}
	}
	if got, err := s.Event(ctx, p, "e1"); err != nil || got.Text != "a\uFFFDb" || got.Title != "t\uFFFD" {
		t.Errorf("stored: %+v, %v", got, err)
	}
	if cs := sessionChunks(t, s, p); len(cs) != 1 || cs[0].content != "a\uFFFDb" {
		t.Errorf("chunks: %+v", cs)
	}
}

func TestAppendSession_ChunksAndIdempotence(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "why databases", 0)
	e2 := ev("e2", "s1", "agent.response", "shared server storage", time.Second)
	e3 := ev("e3", "s1", "tool.call", "", 2*time.Second)
	res, err := s.AppendSession(ctx, p, []ragd.Event{e1, e2, e3}, testdb.ChunksOf(e1, e2, e3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 3 || res.Chunks != 5 || res.Unindexed != 0 || res.Retitled != 0 || res.SessionsCreated != 1 {
		t.Fatalf("append: %+v", res)
	}
	cs := sessionChunks(t, s, p)
	if len(cs) != 5 {
		t.Fatalf("%d chunks, want 5", len(cs))
	}
	want := testdb.WordChunks(e2)[2]
	if c := cs[4]; c.event != "e2" || c.position != 2 || c.content != "storage" || c.title != "s1" || c.owner != "alice" ||
		c.shared || c.vector || c.id != want.ID(p, ragd.ScopeSession) {
		t.Errorf("chunk e2#2: %+v", c)
	}
	// Searchable at once, by the analysed (stemmed) word: "databases" is
	// "databas" in English.
	if hits := lexicalHits(t, s, p, "databas", "D"); len(hits) != 1 || hits[0] != cs[1].id {
		t.Errorf("databases finds %v, want e1#1 %s", hits, cs[1].id)
	}
	if hits := lexicalHits(t, s, p, "s1", "A"); len(hits) != 5 {
		t.Errorf("the session's title is in %d chunks' lexical column, want 5", len(hits))
	}
	var lang string
	if err := s.pool.QueryRow(ctx, `SELECT lexical_language FROM projects WHERE id = $1`, p).Scan(&lang); err != nil || lang != "english" {
		t.Errorf("the project's lexical language %q (%v), want english decided by the first chunks", lang, err)
	}

	// The same events again, alone and beside a new one, and an id with
	// other text (a conflict): no chunk of theirs is written.
	e4 := ev("e4", "s1", "agent.response", "gamma", 3*time.Second)
	other := ev("e1", "s1", "chat.message", "delta epsilon", 0)
	res, err = s.AppendSession(ctx, p, []ragd.Event{e1, e2, e4, other}, testdb.ChunksOf(e1, e2, e4, other))
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 1 || res.Duplicates != 2 || len(res.Conflicts) != 1 || res.Chunks != 1 || res.SessionsCreated != 0 {
		t.Fatalf("second append: %+v", res)
	}
	if cs := sessionChunks(t, s, p); len(cs) != 6 || cs[5].content != "gamma" {
		t.Errorf("chunks after the second append: %+v", cs)
	}

	// A chunk whose id is stored already is skipped, not an error.
	e5 := ev("e5", "s1", "chat.message", "zeta eta", 4*time.Second)
	pre := testdb.WordChunks(e5)[0]
	if _, err := s.pool.Exec(ctx, `INSERT INTO chunks (id, project_id, scope, session_id, event_id, owner, title, position, content, content_hash)
		VALUES ($1, $2, 'session', 's1', 'e5', 'alice', 's1', 0, 'zeta', $3)`, pre.ID(p, ragd.ScopeSession), p, pre.ContentHash); err != nil {
		t.Fatal(err)
	}
	res, err = s.AppendSession(ctx, p, []ragd.Event{e5}, testdb.ChunksOf(e5))
	if err != nil || res.Appended != 1 || res.Chunks != 1 {
		t.Errorf("append over a stored chunk: %+v, %v", res, err)
	}
	if cs := sessionChunks(t, s, p); len(cs) != 8 {
		t.Errorf("%d chunks, want 8", len(cs))
	}
}

func TestAppendSession_TitleArrivesLater(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "alpha beta", 0)
	e2 := ev("e2", "s2", "chat.message", "gamma", 0)
	if _, err := s.AppendSession(ctx, p, []ragd.Event{e1, e2}, testdb.ChunksOf(e1, e2)); err != nil {
		t.Fatal(err)
	}
	// A later event names s1 (a summary record, not itself indexed), and a
	// message in the same call is titled with it too.
	named := ev("t1", "s1", "summary", "", 5*time.Second)
	named.Title = "Choosing storage"
	e3 := ev("e3", "s1", "agent.response", "delta", 6*time.Second)
	res, err := s.AppendSession(ctx, p, []ragd.Event{named, e3}, testdb.ChunksOf(named, e3))
	if err != nil {
		t.Fatal(err)
	}
	if res.Retitled != 2 || res.Chunks != 1 {
		t.Errorf("titling append: %+v", res)
	}
	titles := map[string]string{}
	for _, c := range sessionChunks(t, s, p) {
		titles[fmt.Sprintf("%s#%d", c.event, c.position)] = c.title
	}
	for k, want := range map[string]string{"e1#0": "Choosing storage", "e1#1": "Choosing storage", "e3#0": "Choosing storage", "e2#0": "s2"} {
		if titles[k] != want {
			t.Errorf("chunk %s titled %q, want %q", k, titles[k], want)
		}
	}
	// The title's analysed words, in the title's weight: "storage" is
	// "storag" in English.
	if hits := lexicalHits(t, s, p, "storag", "A"); len(hits) != 3 {
		t.Errorf("the new title finds %d chunks, want 3", len(hits))
	}
	if hits := lexicalHits(t, s, p, "s1", "A"); len(hits) != 0 {
		t.Errorf("the old title still finds %d chunks", len(hits))
	}
	// An older event's title loses to the newer one: nothing changes.
	older := ev("t0", "s1", "summary", "", time.Second)
	older.Title = "Old name"
	if res, err := s.AppendSession(ctx, p, []ragd.Event{older}, nil); err != nil || res.Retitled != 0 {
		t.Errorf("older title: %+v, %v", res, err)
	}
}

func TestAppendSession_BadInputStoresNothing(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "alpha beta", 0)
	e2 := ev("e2", "s1", "agent.response", "gamma", time.Second)
	good := testdb.ChunksOf(e1, e2)
	// The server refuses an offset past its integer column: the second
	// event's chunk fails in the middle of the chunk writes, after the
	// events and the first chunks.
	far := [][]ragd.ChunkInput{good[0], {{SessionID: "s1", EventID: "e2", Content: "gamma", ContentHash: "h", Start: 1 << 40}}}
	// And an event id with a NUL byte fails after the first event.
	nulID := ev("e\x00", "s1", "chat.message", "x", 0)
	for name, tc := range map[string]struct {
		events []ragd.Event
		chunks [][]ragd.ChunkInput
	}{
		"fewer chunk lists than events": {[]ragd.Event{e1, e2}, good[:1]},
		"a chunk of another event":      {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{good[1], good[1]}},
		"a chunk without hash":          {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{good[0], {{SessionID: "s1", EventID: "e2", Content: "gamma"}}}},
		"a chunk with a vector": {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{good[0],
			{{SessionID: "s1", EventID: "e2", Content: "gamma", ContentHash: "h", Vector: []float32{1, 0, 0, 0}}}}},
		"a chunk twice":              {[]ragd.Event{e1, e2}, [][]ragd.ChunkInput{{good[0][0], good[0][0]}, good[1]}},
		"a chunk the server refuses": {[]ragd.Event{e1, e2}, far},
		"an id the server refuses":   {[]ragd.Event{e1, nulID}, nil},
	} {
		if _, err := s.AppendSession(ctx, p, tc.events, tc.chunks); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := s.Event(ctx, p, "e1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("event e1 stored after failed appends: %v", err)
	}
	if cs := sessionChunks(t, s, p); len(cs) != 0 {
		t.Errorf("%d chunks stored after failed appends", len(cs))
	}
	if res, err := s.AppendSession(ctx, p, []ragd.Event{e1, e2}, good); err != nil || res.Chunks != 3 {
		t.Errorf("append after failures: %+v, %v", res, err)
	}
}

// TestOwners: two daemons on one database. Each person's sessions, events
// and chunks are invisible to the other unless shared, ids are not taken
// over, and only the owner forgets or rewrites a session.
func TestOwners(t *testing.T) {
	url := testURL(t)
	testOwners(t, func(owner string, share bool) *Store {
		return openAt(t, url, Options{Owner: owner, ShareSessions: share})
	})
}

// testOwners is what each owner of one database reads and writes of the
// others' sessions, each owner's store opened by open (TestOwners: one
// role, owners by name; TestTeam_Owners: a role each, row security on).
func testOwners(t *testing.T, open func(owner string, share bool) *Store) {
	ctx := context.Background()
	alice := open("alice", false)
	bob := open("bob", false)
	p := sessProject(t, alice, "shared-repo")
	a1 := ev("a1", "sa", "chat.message", "alice private question", 0)
	a1.Title = "Alice's"
	if _, err := alice.AppendSession(ctx, p, []ragd.Event{a1}, testdb.ChunksOf(a1)); err != nil {
		t.Fatal(err)
	}

	// Bob sees nothing of it.
	if l, err := bob.ListSessions(ctx, p, ragd.SessionFilter{}); err != nil || len(l) != 0 {
		t.Errorf("bob lists %+v, %v", l, err)
	}
	if _, err := bob.Event(ctx, p, "a1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("bob reads alice's event: %v", err)
	}
	if _, err := bob.SessionEvents(ctx, p, "sa"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("bob reads alice's session: %v", err)
	}
	if _, _, err := bob.EventsAround(ctx, p, "a1", ragd.IndexedTypes, 3); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("bob reads around alice's event: %v", err)
	}
	if cs, err := bob.EventChunks(ctx, p, "a1"); err != nil || len(cs) != 0 {
		t.Errorf("bob reads alice's chunks: %d, %v", len(cs), err)
	}
	if ms, err := bob.Messages(ctx, p, ragd.IndexedTypes); err != nil || len(ms) != 0 {
		t.Errorf("bob's messages: %+v, %v", ms, err)
	}
	if st, err := bob.SessionStats(ctx, p, ragd.IndexedTypes, time.Time{}); err != nil || st != (ragd.SessionStats{}) {
		t.Errorf("bob's session stats: %+v, %v", st, err)
	}
	if _, err := bob.ForgetSession(ctx, p, "sa"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("bob forgets alice's session: %v", err)
	}
	// Nor takes over its ids: an event of alice's id, or in alice's
	// session, is a conflict, whatever its content; bob's own go in.
	res, err := bob.AppendSession(ctx, p, []ragd.Event{a1, ev("b1", "sa", "chat.message", "bob in alice's session", time.Second),
		ev("b2", "sb", "chat.message", "bob's own", 0)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Appended != 1 || res.Duplicates != 0 || len(res.Conflicts) != 2 || res.SessionsCreated != 1 ||
		!slices.Equal(res.Conflicts[0].Fields, []string{ownerField}) || res.Conflicts[1].EventID != "b1" {
		t.Errorf("bob's append: %+v", res)
	}
	// Bob's rewrite leaves alice's text alone.
	upper := ragd.Rewriter{Text: func(s string, _ bool) string { return strings.ToUpper(s) }, JSON: func(b []byte) []byte { return b }}
	if rr, err := bob.RewriteSessions(ctx, p, upper); err != nil || rr.Events != 1 || rr.Sessions != 0 || rr.Chunks != 0 {
		t.Errorf("bob's rewrite: %+v, %v", rr, err)
	}
	if e, err := alice.Event(ctx, p, "a1"); err != nil || e.Text != a1.Text || e.Title != "Alice's" {
		t.Errorf("alice's event after bob's writes: %+v, %v", e, err)
	}
	if l, err := alice.ListSessions(ctx, p, ragd.SessionFilter{}); err != nil || len(l) != 1 || l[0].ID != "sa" || l[0].Events != 1 {
		t.Errorf("alice lists %+v, %v", l, err)
	}

	// Carol shares hers: bob reads them, but they are not his to index,
	// count or forget.
	carol := open("carol", true)
	c1 := ev("c1", "sc", "chat.message", "carol shares this", 5*time.Second)
	c2 := ev("c2", "sc", "agent.response", "so does the agent", 6*time.Second)
	if _, err := carol.AppendSession(ctx, p, []ragd.Event{c1, c2}, testdb.ChunksOf(c1, c2)); err != nil {
		t.Fatal(err)
	}
	l, err := bob.ListSessions(ctx, p, ragd.SessionFilter{})
	if err != nil || len(l) != 2 || l[0].ID != "sc" || l[1].ID != "sb" {
		t.Errorf("bob lists %+v, %v, want carol's shared sc, then his sb", l, err)
	}
	if e, err := bob.Event(ctx, p, "c1"); err != nil || e.Text != c1.Text {
		t.Errorf("bob reads carol's shared event: %+v, %v", e, err)
	}
	if evs, err := bob.SessionEvents(ctx, p, "sc"); err != nil || len(evs) != 2 {
		t.Errorf("bob reads carol's shared session: %+v, %v", evs, err)
	}
	if before, _, err := bob.EventsAround(ctx, p, "c2", ragd.IndexedTypes, 3); err != nil || len(before) != 1 || before[0].ID != "c1" {
		t.Errorf("bob reads around carol's event: %+v, %v", before, err)
	}
	if cs, err := bob.EventChunks(ctx, p, "c1"); err != nil || len(cs) != 3 || cs[0].Content != "carol" {
		t.Errorf("bob reads carol's shared chunks: %+v, %v", cs, err)
	}
	if ms, err := bob.Messages(ctx, p, ragd.IndexedTypes); err != nil || len(ms) != 1 || ms[0].EventID != "b2" {
		t.Errorf("bob's messages: %+v, %v, want his b2 only", ms, err)
	}
	if _, err := bob.ForgetSession(ctx, p, "sc"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("bob forgets carol's shared session: %v", err)
	}
	for _, c := range sessionChunks(t, alice, p) {
		if want := c.owner == "carol"; c.shared != want {
			t.Errorf("chunk %s#%d of %s: shared %v", c.event, c.position, c.owner, c.shared)
		}
	}

	// Alice's daemon starts sharing: her session, and its chunks, are
	// shared once she appends to it.
	aliceShares := open("alice", true)
	a2 := ev("a2", "sa", "agent.response", "now shared", 10*time.Second)
	if _, err := aliceShares.AppendSession(ctx, p, []ragd.Event{a2}, testdb.ChunksOf(a2)); err != nil {
		t.Fatal(err)
	}
	if cs, err := bob.EventChunks(ctx, p, "a1"); err != nil || len(cs) != 3 {
		t.Errorf("bob reads alice's chunks once shared: %d, %v", len(cs), err)
	}
	if evs, err := bob.SessionEvents(ctx, p, "sa"); err != nil || len(evs) != 2 {
		t.Errorf("bob reads alice's session once shared: %d, %v", len(evs), err)
	}
}

func TestListSessionsAndEvents(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	a1 := ev("codex:a1", "codex:a", "chat.message", "How do we store vectors?", 0)
	a1.Title = "Vectors"
	a2 := ev("codex:a2", "codex:a", "agent.response", "In pgvector.", time.Minute)
	a3 := ev("codex:a3", "codex:a", "tool.call", "", 2*time.Minute)
	b1 := ev("b1", "b", "chat.message", "Later question", time.Hour)
	// Two sessions whose last event is at the same time: by id.
	c1 := ev("c1", "c", "chat.message", "same time", time.Hour)
	if _, err := s.AppendEvents(ctx, p, []ragd.Event{a3, a1, a2, c1, b1}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    ragd.SessionFilter
		want []string
	}{
		{"all, newest first", ragd.SessionFilter{}, []string{"b", "c", "codex:a"}},
		{"by prefix", ragd.SessionFilter{IDPrefix: "codex:"}, []string{"codex:a"}},
		{"since", ragd.SessionFilter{Since: t0.Add(30 * time.Minute)}, []string{"b", "c"}},
		{"since, at the last event", ragd.SessionFilter{Since: t0.Add(2 * time.Minute)}, []string{"b", "c", "codex:a"}},
		{"nothing", ragd.SessionFilter{IDPrefix: "gemini:"}, []string{}},
	} {
		got, err := s.ListSessions(ctx, p, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, si := range got {
			ids = append(ids, si.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, ids, tc.want)
		}
	}
	got, err := s.ListSessions(ctx, p, ragd.SessionFilter{IDPrefix: "codex:"})
	if err != nil {
		t.Fatal(err)
	}
	if a := got[0]; a.Title != "Vectors" || a.Events != 3 || a.Messages != 2 || !a.First.Equal(t0) || !a.Last.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("session a = %+v", a)
	}

	// Stored out of time order: read back in time order.
	evs, err := s.SessionEvents(ctx, p, "codex:a")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[0].ID != "codex:a1" || evs[2].ID != "codex:a3" || evs[2].Title != "Vectors" || evs[1].Text != "In pgvector." {
		t.Errorf("events = %+v", evs)
	}
	if _, err := s.SessionEvents(ctx, p, "nope"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("unknown session: %v, want ErrNotFound", err)
	}
}

func TestEventsAround(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	var evs []ragd.Event
	for i := range 6 {
		typ := "chat.message"
		if i == 3 {
			typ = "tool.call"
		}
		evs = append(evs, ev(fmt.Sprintf("e%d", i), "s", typ, fmt.Sprintf("message %d", i), time.Duration(i)*time.Second))
	}
	// Two events at one time: the order stored decides.
	evs = append(evs, ev("e2b", "s", "chat.message", "same time as e2", 2*time.Second))
	if _, err := s.AppendEvents(ctx, p, evs); err != nil {
		t.Fatal(err)
	}
	ids := func(es []ragd.Event) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	before, after, err := s.EventsAround(ctx, p, "e2b", ragd.IndexedTypes, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(before), []string{"e1", "e2"}) || !slices.Equal(ids(after), []string{"e4", "e5"}) {
		t.Errorf("around e2b: %v, %v", ids(before), ids(after))
	}
	if before, after, err := s.EventsAround(ctx, p, "e0", ragd.IndexedTypes, 0); err != nil || before != nil || after != nil {
		t.Errorf("n = 0: %v, %v, %v", before, after, err)
	}
	if _, _, err := s.EventsAround(ctx, p, "nope", ragd.IndexedTypes, 2); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("unknown event: %v", err)
	}
}

func TestEventAndFileChunks(t *testing.T) {
	ctx := context.Background()
	s, url := openTest(t, Options{})
	p := sessProject(t, s, "p")
	e1 := ev("e1", "s1", "chat.message", "one two three", 0)
	if _, err := s.AppendSession(ctx, p, []ragd.Event{e1}, testdb.ChunksOf(e1)); err != nil {
		t.Fatal(err)
	}
	cs, err := s.EventChunks(ctx, p, "e1")
	if err != nil || len(cs) != 3 {
		t.Fatalf("event chunks: %+v, %v", cs, err)
	}
	if c := cs[1]; c.Content != "two" || c.Position != 1 || c.Scope != ragd.ScopeSession || c.SessionID != "s1" || c.EventID != "e1" ||
		c.Title != "s1" || c.ProjectID != p || c.EmbeddingSpace != "" || c.IndexedAt.IsZero() || len(c.HeadingPath) != 0 || c.Start != 4 {
		t.Errorf("chunk e1#1: %+v", c)
	}
	// Docs are everyone's: another owner reads a file's chunks.
	for i, content := range []string{"second", "first"} {
		if _, err := s.pool.Exec(ctx, `INSERT INTO chunks (id, project_id, scope, source_path, source_commit, heading_path, title, position, content, content_hash)
			VALUES ($1, $2, 'docs', 'docs/a.md', 'abc', '["A","B"]', 'A', $3, $4, $5)`, fmt.Sprint(p, "-d", i), p, 1-i, content, "h"+content); err != nil {
			t.Fatal(err)
		}
	}
	bob := openAt(t, url, Options{Owner: "bob"})
	fc, err := bob.FileChunks(ctx, p, "docs/a.md")
	if err != nil || len(fc) != 2 || fc[0].Content != "first" || fc[1].Content != "second" || !slices.Equal(fc[0].HeadingPath, []string{"A", "B"}) ||
		fc[0].SourceCommit != "abc" {
		t.Errorf("file chunks: %+v, %v", fc, err)
	}
	if none, err := s.FileChunks(ctx, p, "docs/none.md"); err != nil || len(none) != 0 {
		t.Errorf("unknown file: %+v, %v", none, err)
	}
}

func TestSessionStats(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p := sessProject(t, s, "p")
	types := ragd.IndexedTypes
	if st, err := s.SessionStats(ctx, p, types, time.Time{}); err != nil || st != (ragd.SessionStats{}) {
		t.Fatalf("empty log: %+v, %v", st, err)
	}
	a1 := ev("a1", "s1", "chat.message", "one", 0)
	events := []ragd.Event{a1, ev("a2", "s1", "agent.response", "two", time.Second),
		ev("b1", "s2", "chat.message", "three", 0), ev("c1", "s3", "tool.call", "", 0)}
	// a1 with its chunk, the others without.
	if _, err := s.AppendSession(ctx, p, events, [][]ragd.ChunkInput{testdb.WordChunks(a1), nil, nil, nil}); err != nil {
		t.Fatal(err)
	}
	st, err := s.SessionStats(ctx, p, types, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 2 || st.SessionsIndexed != 1 || st.Messages != 3 || st.MessagesIndexed != 1 || st.UnindexedSince != 2 || st.LastAppended.IsZero() {
		t.Errorf("stats: %+v", st)
	}
	if later, err := s.SessionStats(ctx, p, types, st.LastAppended); err != nil || later.UnindexedSince != 0 || later.Messages != 3 {
		t.Errorf("appended since the last one: %+v, %v", later, err)
	}
	b2 := ev("b2", "s2", "chat.message", "four", 2*time.Second)
	if _, err := s.AppendSession(ctx, p, []ragd.Event{b2}, testdb.ChunksOf(b2)); err != nil {
		t.Fatal(err)
	}
	if st, err := s.SessionStats(ctx, p, types, time.Time{}); err != nil || st.Messages != 4 || st.MessagesIndexed != 2 ||
		st.SessionsIndexed != 2 || st.UnindexedSince != 2 {
		t.Errorf("after an indexed append: %+v, %v", st, err)
	}
}

// TestAppendSession_AsAReindexWrites: appended chunks are the chunks a
// reindex of the session scope writes (same ids, titles and lexical
// column), so the reindex keeps them, and it keeps those appended after
// it read the log.
func TestAppendSession_AsAReindexWrites(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t, Options{})
	p, q := sessProject(t, s, "appended"), sessProject(t, s, "reindexed")
	e1 := ev("e1", "s1", "chat.message", "Choosing the storage engines", 0)
	e1.Title = "Storage talk"
	in := []ragd.ChunkInput{{SessionID: "s1", EventID: "e1", HeadingPath: []string{"Q"}, Content: e1.Text, ContentHash: "h1", End: len(e1.Text)}}
	if _, err := s.AppendSession(ctx, p, []ragd.Event{e1}, [][]ragd.ChunkInput{in}); err != nil {
		t.Fatal(err)
	}
	// The reindex's cut: the chunk titled with its session's title.
	cut := in[0]
	cut.Title = "Storage talk"
	res, err := s.ReplaceScope(ctx, p, ragd.ScopeSession, []ragd.ChunkInput{cut})
	if err != nil || res.Kept != 1 || res.Inserted != 0 || res.Deleted != 0 {
		t.Errorf("reindex over the appended chunk: %+v, %v", res, err)
	}
	// The same chunk written by the reindex alone, in another project:
	// the same lexical column.
	if _, err := s.AppendEvents(ctx, q, []ragd.Event{e1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceScope(ctx, q, ragd.ScopeSession, []ragd.ChunkInput{cut}); err != nil {
		t.Fatal(err)
	}
	var appended, reindexed string
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT tsv::text FROM chunks WHERE project_id = $1), (SELECT tsv::text FROM chunks WHERE project_id = $2)`,
		p, q).Scan(&appended, &reindexed); err != nil {
		t.Fatal(err)
	}
	if appended != reindexed || appended == "" {
		t.Errorf("lexical column appended %q, reindexed %q", appended, reindexed)
	}

	// A reindex that read the log before e2 was appended keeps e2's chunk.
	e2 := ev("e2", "s1", "agent.response", "pgvector then", time.Second)
	if _, err := s.AppendSession(ctx, p, []ragd.Event{e2}, testdb.ChunksOf(e2)); err != nil {
		t.Fatal(err)
	}
	if res, err := s.ReplaceScope(ctx, p, ragd.ScopeSession, []ragd.ChunkInput{cut}); err != nil || res.Kept != 1 || res.Deleted != 0 {
		t.Errorf("reindex read before the append: %+v, %v", res, err)
	}
	if cs, err := s.ScopeChunks(ctx, p, ragd.ScopeSession); err != nil || len(cs) != 3 {
		t.Errorf("session chunks after the reindex: %d, %v", len(cs), err)
	}
}

// TestAppendSession_ConnectionLost: a connection lost in the middle of an
// append's transaction is an error that says so, and stores nothing of
// it: no event, session or chunk.
func TestAppendSession_ConnectionLost(t *testing.T) {
	ctx := context.Background()
	direct, raw := openTest(t, Options{})
	p := sessProject(t, direct, "p")
	e1 := ev("e1", "s1", "chat.message", "stored before", 0)
	if _, err := direct.AppendSession(ctx, p, []ragd.Event{e1}, testdb.ChunksOf(e1)); err != nil {
		t.Fatal(err)
	}
	px, via := viaProxy(t, raw)
	s := openAt(t, via, Options{})
	s.afterLock = func(ctx context.Context, tx pgx.Tx) error {
		px.cut()
		return nil
	}
	e2 := ev("e2", "s1", "agent.response", "lost with the connection", time.Second)
	e3 := ev("e3", "s2", "chat.message", "a new session", 0)
	if _, err := s.AppendSession(ctx, p, []ragd.Event{e2, e3}, testdb.ChunksOf(e2, e3)); !errors.Is(err, ErrConnection) {
		t.Fatalf("append over a lost connection: %v, want ErrConnection", err)
	}
	if l, err := direct.ListSessions(ctx, p, ragd.SessionFilter{}); err != nil || len(l) != 1 || l[0].Events != 1 {
		t.Errorf("sessions after a lost append: %+v, %v", l, err)
	}
	if cs := sessionChunks(t, direct, p); len(cs) != 2 {
		t.Errorf("%d chunks after a lost append, want e1's 2", len(cs))
	}
	if res, err := direct.AppendSession(ctx, p, []ragd.Event{e2, e3}, testdb.ChunksOf(e2, e3)); err != nil || res.Appended != 2 || res.SessionsCreated != 1 {
		t.Errorf("the append again, directly: %+v, %v", res, err)
	}
}

// TestOwners_Search: a search sees the appended chunks of its owner's
// sessions and the shared ones of others, never another's unshared ones.
func TestOwners_Search(t *testing.T) {
	url := testURL(t)
	testOwnersSearch(t, func(owner string, share bool) *Store {
		return openAt(t, url, Options{Owner: owner, ShareSessions: share})
	})
}

// testOwnersSearch is TestOwners_Search with each owner's store opened by
// open.
func testOwnersSearch(t *testing.T, open func(owner string, share bool) *Store) {
	ctx := context.Background()
	alice := open("alice", false)
	bob := open("bob", false)
	carol := open("carol", true)
	p := sessProject(t, alice, "p")
	for _, w := range []struct {
		s *Store
		e ragd.Event
	}{
		{alice, ev("a1", "sa", "chat.message", "alice asks about quokkas", 0)},
		{carol, ev("c1", "sc", "chat.message", "carol knows quokkas", 0)},
	} {
		if _, err := w.s.AppendSession(ctx, p, []ragd.Event{w.e}, testdb.ChunksOf(w.e)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := rules.AnalyzerFor("english")
	if err != nil {
		t.Fatal(err)
	}
	q := ragd.LexicalQuery{Language: "english", Terms: []ragd.LexicalTerm{{Word: "quokkas", Tokens: a.Analyze("quokkas")}}}
	for _, tc := range []struct {
		who  string
		s    *Store
		want []string // the events of the hits
	}{
		{"alice", alice, []string{"a1", "c1"}},
		{"bob", bob, []string{"c1"}},
		{"carol", carol, []string{"c1"}},
	} {
		sn, err := tc.s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p}, q, 10)
		if err != nil {
			sn.Close()
			t.Fatal(err)
		}
		var ids []string
		for _, c := range m.Candidates {
			ids = append(ids, c.ChunkID)
		}
		cs, err := sn.Chunks(ctx, ids)
		sn.Close()
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, c := range cs {
			events = append(events, c.EventID)
		}
		slices.Sort(events)
		if !slices.Equal(events, tc.want) {
			t.Errorf("%s finds the chunks of %v, want %v", tc.who, events, tc.want)
		}
	}
}

// TestAppendSession_Concurrent: one owner's daemons appending the same
// events at once store each once (the owner's session scope lock), the
// rest duplicates.
func TestAppendSession_Concurrent(t *testing.T) {
	ctx := context.Background()
	s, url := openTest(t, Options{})
	other := openAt(t, url, Options{})
	p := sessProject(t, s, "p")
	var evs []ragd.Event
	for i := range 20 {
		evs = append(evs, ev(fmt.Sprintf("e%d", i), fmt.Sprintf("s%d", i%3), "chat.message", fmt.Sprintf("message %d", i), time.Duration(i)*time.Second))
	}
	results := make([]ragd.AppendResult, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, st := range []*Store{s, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = st.AppendSession(ctx, p, evs, testdb.ChunksOf(evs...))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := results[0], results[1]
	if a.Appended+b.Appended != 20 || a.Duplicates+b.Duplicates != 20 || a.SessionsCreated+b.SessionsCreated != 3 ||
		a.Chunks+b.Chunks != 40 || len(a.Conflicts)+len(b.Conflicts) != 0 {
		t.Errorf("concurrent appends: %+v and %+v", a, b)
	}
	if cs := sessionChunks(t, s, p); len(cs) != 40 {
		t.Errorf("%d chunks, want 40", len(cs))
	}
}

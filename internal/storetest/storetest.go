// Package storetest is the conformance suite of ragd's store engines: every
// behaviour the daemon, the indexer and the searcher rely on, run against
// any engine through the contract every engine implements (engine.Store,
// all of it). The SQLite engine (package store)
// runs it in store/conformance_test.go; the PostgreSQL engine
// (store/postgres) runs it on a PostgreSQL server (internal/pgtest). The suite describes
// the SQLite engine's behaviour as it is: where it says "as the SQLite engine
// does", another engine must do the same.
//
// The subtests, each on a fresh store:
//
//   - replace: ReplaceScope's diff counts (inserted, kept with their id and
//     vector, deleted), and a refused replacement (bad input anywhere in the
//     list, a cancelled context) leaving the old scope whole.
//   - append: AppendSession stores events with their chunks in one call; a
//     re-append is a no-op counted as duplicates; an event id stored with
//     other content is a conflict and changes nothing.
//   - snapshot: a snapshot sees the state of its Snapshot call while a
//     reindex commits, and the next snapshot sees the reindex whole.
//   - backfill: chunks written without a vector are pending, newest first;
//     FillVectors and MarkUnembeddable take them out of the queue (stale
//     fills are skipped) and the counts follow.
//   - counts: ScopeStats, VectorCoverage and Stats agree with what was
//     written.
//   - projects: add, find by name or path, list, settings, duplicates.
//   - sessions: ListSessions (filters, order), SessionEvents, transcript
//     checkpoints, and the passages (FileChunks, EventChunks, EventsAround).
//   - runs: StartRun, FinishRun, LastRun.
//   - forget: ForgetSession removes a session's events and chunks and
//     remembers it; other sessions stay.
//   - remove: RemoveProject removes chunks, sessions, runs and the project's
//     telemetry (counted), and leaves other projects whole.
//   - telemetry: searches and votes read back; search ids are never reused,
//     not after a removal, not after a reopen.
//   - reopen: closing and opening the same database keeps its data and its
//     schema version.
//   - badinput: unknown project ids, unknown and empty ids, bad scopes and
//     bad chunks give the errors (or the empty answers) the SQLite engine
//     gives.
//   - lexical: the snapshot's lexical methods (lexical.go, one file to adapt
//     when they change).
//   - cache, profile, abandon, sessionstats: the embedding cache,
//     RandomPairCosine, AbandonRuns and SessionStats (contract.go).
//   - errors: the domain's sentinel errors, as each engine wraps them
//     (ragd.ErrBadVector, ErrSpaceMismatch, ErrSchemaTooNew).
//
// An engine's test gives the suite a fresh database per subtest, the same
// one again on a second open with the same t, and a way to make a
// database look migrated by a newer ragd. On a PostgreSQL server, with a
// database per subtest on the package's shared server (a PGlite server
// would also want WritesWaitForSnapshots: true):
//
//	func TestConformance(t *testing.T) {
//		storetest.Suite{}.OnDatabases(
//			pgtest.Fresh,
//			func(url, space string, dims int) (engine.Store, error) { … postgres.Open … },
//			func(t *testing.T, url string) { … a schema_version row past the last … },
//		).Run(t)
//	}
package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
)

// MinDims is the least vector length the suite's vectors need: it writes
// the first four basis vectors.
const MinDims = 4

// Suite is the conformance suite with what an engine's test tells it.
type Suite struct {
	// Open returns a store on a fresh, empty database for t, whose Close it
	// registers at t.Cleanup (Close may then run twice). Called a second
	// time with the same t, after the suite closed the first store, it
	// opens the same database again (the reopen subtests). The store's
	// Dims is at least MinDims. Required.
	Open func(t *testing.T) engine.Store
	// WritesWaitForSnapshots says a write waits while a snapshot is open
	// (PGlite: one backend session serves every connection, and while one
	// connection has a transaction open, every other connection's queries
	// wait; see internal/pgtest), where SQLite and a real PostgreSQL let it
	// commit. The snapshot subtests then let their writer wait for the
	// snapshot to close instead of waiting for the writer before reading
	// again.
	WritesWaitForSnapshots bool
	// OpenSpace opens t's database (the one Open opened, closed by the
	// suite) again in the embedding space space of dims dimensions, and
	// returns the engine's error as it is: the errors subtests check what
	// opening refuses. Required.
	OpenSpace func(t *testing.T, space string, dims int) (engine.Store, error)
	// SchemaAhead makes t's closed database look migrated by a newer ragd:
	// a schema version past every migration this binary knows. Required.
	SchemaAhead func(t *testing.T)
}

// Run runs every subtest, each on a store of its own.
func (su Suite) Run(t *testing.T) {
	if su.Open == nil || su.OpenSpace == nil || su.SchemaAhead == nil {
		t.Fatal("storetest.Suite needs Open, OpenSpace and SchemaAhead")
	}
	for _, g := range []struct {
		name  string
		tests []subtest
	}{
		{"replace", replaceTests},
		{"append", appendTests},
		{"snapshot", snapshotTests},
		{"backfill", backfillTests},
		{"counts", countTests},
		{"projects", projectTests},
		{"sessions", sessionTests},
		{"runs", runTests},
		{"forget", forgetTests},
		{"remove", removeTests},
		{"telemetry", telemetryTests},
		{"reopen", reopenTests},
		{"badinput", badInputTests},
		{"lexical", lexicalTests},
		{"cache", cacheTests},
		{"profile", profileTests},
		{"abandon", abandonTests},
		{"sessionstats", sessionStatsTests},
		{"errors", errorTests},
	} {
		t.Run(g.name, func(t *testing.T) {
			for _, st := range g.tests {
				t.Run(st.name, func(t *testing.T) {
					st.run(t, &env{su: su, t: t})
				})
			}
		})
	}
}

// subtest is one behaviour.
type subtest struct {
	name string
	run  func(t *testing.T, e *env)
}

// env is what a subtest works with: the suite, and its store, opened on
// first use.
type env struct {
	su Suite
	t  *testing.T
	s  engine.Store
}

// store returns the subtest's store, opening it on first use.
func (e *env) store() engine.Store {
	e.t.Helper()
	if e.s == nil {
		e.s = e.open()
	}
	return e.s
}

func (e *env) open() engine.Store {
	e.t.Helper()
	s := e.su.Open(e.t)
	if s == nil {
		e.t.Fatal("Open returned no store")
	}
	if s.Dims() < MinDims {
		e.t.Fatalf("the store's space %s has %d dims, the suite needs at least %d", s.Space(), s.Dims(), MinDims)
	}
	return s
}

// reopen closes the subtest's store and opens its database again.
func (e *env) reopen() engine.Store {
	e.t.Helper()
	if err := e.store().Close(); err != nil {
		e.t.Fatalf("close: %v", err)
	}
	e.s = e.open()
	return e.s
}

// snapshot opens a snapshot, closed at the subtest's end if not before.
// The suite makes no other call to the store while a snapshot is open
// (the snapshot subtests' writers excepted, in goroutines of their own): on
// PGlite the call would wait for the snapshot to close.
func (e *env) snapshot() ragd.Snapshot {
	e.t.Helper()
	sn, err := e.store().Snapshot(e.t.Context())
	if err != nil {
		e.t.Fatalf("snapshot: %v", err)
	}
	e.t.Cleanup(func() { sn.Close() })
	return sn
}

// project adds a project named name at /repos/name.
func (e *env) project(name string) ragd.Project {
	e.t.Helper()
	p, err := e.store().AddProject(e.t.Context(), name, "/repos/"+name)
	if err != nil {
		e.t.Fatalf("add project %s: %v", name, err)
	}
	return p
}

// replace runs ReplaceScope and fails the test on error.
func (e *env) replace(projectID int64, scope string, chunks ...ragd.ChunkInput) ragd.ReplaceResult {
	e.t.Helper()
	r, err := e.store().ReplaceScope(e.t.Context(), projectID, scope, chunks)
	if err != nil {
		e.t.Fatalf("replace %s of project %d: %v", scope, projectID, err)
	}
	return r
}

// appendSession runs AppendSession with one chunk per indexed event (its
// text) and fails the test on error.
func (e *env) appendSession(projectID int64, events ...ragd.Event) ragd.AppendResult {
	e.t.Helper()
	chunks := make([][]ragd.ChunkInput, len(events))
	for i, ev := range events {
		if ragd.Indexed(ev.Type) {
			chunks[i] = []ragd.ChunkInput{sessionChunk(ev)}
		}
	}
	r, err := e.store().AppendSession(e.t.Context(), projectID, events, chunks)
	if err != nil {
		e.t.Fatalf("append to project %d: %v", projectID, err)
	}
	return r
}

// states returns the ids and states of a project's scope.
func (e *env) states(projectID int64, scope string) map[string]ragd.ChunkState {
	e.t.Helper()
	st, err := e.store().ChunkStates(e.t.Context(), projectID, scope)
	if err != nil {
		e.t.Fatalf("chunk states of %s of project %d: %v", scope, projectID, err)
	}
	return st
}

// scopeStats returns ScopeStats and fails the test on error.
func (e *env) scopeStats(projectID int64, scope string) ragd.ScopeStats {
	e.t.Helper()
	st, err := e.store().ScopeStats(e.t.Context(), projectID, scope)
	if err != nil {
		e.t.Fatalf("scope stats of %s of project %d: %v", scope, projectID, err)
	}
	return st
}

// search records a search of project projectID whose hits are chunkIDs.
func (e *env) search(projectID int64, query string, chunkIDs ...string) int64 {
	e.t.Helper()
	rec := ragd.SearchRecord{ProjectID: projectID, Query: query, Weights: []byte(`{"vector":1}`),
		VectorAvailable: true, LatencyMs: 1.5, Actor: "person", CreatedAt: base}
	for i, id := range chunkIDs {
		rec.Hits = append(rec.Hits, ragd.TelemetryHit{ChunkID: id, Rank: i + 1, Score: 1 / float64(i+1)})
	}
	id, err := e.store().RecordSearch(e.t.Context(), rec)
	if err != nil {
		e.t.Fatalf("record search %q: %v", query, err)
	}
	return id
}

// vote records a useful vote on a chunk of a search.
func (e *env) vote(searchID int64, chunkID string) {
	e.t.Helper()
	_, err := e.store().RecordFeedback(e.t.Context(), ragd.FeedbackInput{SearchID: searchID, ChunkID: chunkID,
		Verdict: "useful", Actor: "person", CreatedAt: base})
	if err != nil {
		e.t.Fatalf("vote on %s of search %d: %v", chunkID, searchID, err)
	}
}

// base is the time the suite's events start at: whole seconds, which every
// engine stores exactly.
var base = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// at is base plus n minutes.
func at(n int) time.Time { return base.Add(time.Duration(n) * time.Minute) }

// unit returns basis vector i (mod dims) of the store's space: the suite's
// vectors are these, so distances are 0, 1 or 2 exactly.
func unit(s engine.Store, i int) []float32 {
	v := make([]float32, s.Dims())
	v[i%s.Dims()] = 1
	return v
}

// hash is a content hash.
func hash(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:8])
}

// docChunk is chunk pos of a docs or adr file.
func docChunk(path string, pos int, content string, vec []float32) ragd.ChunkInput {
	return ragd.ChunkInput{SourcePath: path, SourceCommit: "c0ffee", HeadingPath: []string{"Guide", fmt.Sprint("Part ", pos)},
		Title: "Guide", Position: pos, Start: pos * 100, End: pos*100 + len(content), Content: content,
		ContentHash: hash(content), Vector: vec}
}

// message is a chat message of a session.
func message(id, session string, minute int, text string) ragd.Event {
	return ragd.Event{ID: id, SessionID: session, Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: text, Time: at(minute)}
}

// toolCall is an event that is not conversation: stored, never a chunk.
func toolCall(id, session string, minute int) ragd.Event {
	return ragd.Event{ID: id, SessionID: session, Type: "tool.call", Actor: ragd.ActorAgent, Time: at(minute),
		Payload: []byte(`{"tool":"grep"}`)}
}

// sessionChunk is the one chunk of a short message, as a reindex cuts it.
func sessionChunk(ev ragd.Event) ragd.ChunkInput {
	return ragd.ChunkInput{SessionID: ev.SessionID, EventID: ev.ID, Title: ragd.SessionChunkTitle(ev.Title, ev.SessionID),
		Position: 0, Start: 0, End: len(ev.Text), Content: ev.Text, ContentHash: hash(ev.Text)}
}

// chunkID is the id ReplaceScope gives c in a project's scope.
func chunkID(projectID int64, scope string, c ragd.ChunkInput) string { return c.ID(projectID, scope) }

// ids returns the keys of states, for messages.
func ids(states map[string]ragd.ChunkState) map[string]bool {
	out := make(map[string]bool, len(states))
	for id := range states {
		out[id] = true
	}
	return out
}

// OnDatabases returns su with Open, OpenSpace and SchemaAhead made from an
// engine's opener: each subtest gets a database from fresh (its path or
// URL), which a second open in the same subtest opens again; Open opens it
// in the space "conformance/8", and schemaAhead gets the database's value.
func (su Suite) OnDatabases(fresh func(t *testing.T) string,
	open func(database, space string, dims int) (engine.Store, error),
	schemaAhead func(t *testing.T, database string)) Suite {
	var mu sync.Mutex
	dbs := map[*testing.T]string{}
	database := func(t *testing.T) string {
		mu.Lock()
		defer mu.Unlock()
		db, ok := dbs[t]
		if !ok {
			db = fresh(t)
			dbs[t] = db
		}
		return db
	}
	su.OpenSpace = func(t *testing.T, space string, dims int) (engine.Store, error) {
		s, err := open(database(t), space, dims)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { s.Close() })
		return s, nil
	}
	su.Open = func(t *testing.T) engine.Store {
		s, err := su.OpenSpace(t, "conformance/8", 8)
		if err != nil {
			t.Fatalf("open %s: %v", ragd.RedactDatabase(database(t)), err)
		}
		return s
	}
	su.SchemaAhead = func(t *testing.T) { schemaAhead(t, database(t)) }
	return su
}

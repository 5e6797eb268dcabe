package storetest

import (
	"maps"
	"testing"

	"github.com/ragd/ragd"
)

var reopenTests = []subtest{
	{"data and schema version kept", testReopen},
}

// testReopen: closing the store and opening its database again (the
// migrations run again, with nothing to do) keeps the schema version and
// everything written: projects and settings, chunks and vectors, sessions,
// forgotten sessions, runs, telemetry.
func testReopen(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	version, err := s.SchemaVersion(ctx)
	if err != nil || version < 1 {
		t.Fatalf("schema version: %d, %v", version, err)
	}
	p := e.project("p")
	if err := s.SetAutoReindex(ctx, p.ID, true); err != nil {
		t.Fatal(err)
	}
	doc := docChunk("docs/a.md", 0, "kept across a reopen", unit(s, 1))
	e.replace(p.ID, ragd.ScopeDocs, doc, docChunk("docs/a.md", 1, "pending across a reopen", nil))
	e.appendSession(p.ID, message("m1", "s1", 0, "kept"), message("m2", "s2", 1, "forgotten"))
	if _, err := s.ForgetSession(ctx, p.ID, "s2"); err != nil {
		t.Fatal(err)
	}
	run, err := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, run.ID, ragd.RunOK, "abc", nil); err != nil {
		t.Fatal(err)
	}
	docID := chunkID(p.ID, ragd.ScopeDocs, doc)
	searchID := e.search(p.ID, "kept", docID)
	e.vote(searchID, docID)
	before := e.states(p.ID, ragd.ScopeDocs)
	statsBefore, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	s = e.reopen()
	if v, err := s.SchemaVersion(ctx); err != nil || v != version {
		t.Errorf("schema version after a reopen: %d, %v; want %d", v, err, version)
	}
	if got, err := s.Project(ctx, "p"); err != nil || got.ID != p.ID || !got.AutoReindex {
		t.Errorf("project after a reopen: %+v, %v", got, err)
	}
	if after := e.states(p.ID, ragd.ScopeDocs); !maps.EqualFunc(after, before, statesEqual) {
		t.Errorf("docs after a reopen: %+v, want %+v", after, before)
	}
	sn := e.snapshot()
	near, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, unit(s, 1), 1)
	if err != nil || len(near) != 1 || near[0].ChunkID != docID || near[0].Distance > 1e-5 {
		t.Errorf("nearest after a reopen: %+v, %v", near, err)
	}
	sn.Close()
	if n, err := s.PendingVectorCount(ctx); err != nil || n != 2 {
		t.Errorf("pending after a reopen: %d, %v; want 2 (a doc, a message)", n, err)
	}
	if evs, err := s.SessionEvents(ctx, p.ID, "s1"); err != nil || len(evs) != 1 {
		t.Errorf("session after a reopen: %+v, %v", evs, err)
	}
	if f, err := s.ForgottenSessions(ctx, p.ID); err != nil || !maps.Equal(f, map[string]bool{"s2": true}) {
		t.Errorf("forgotten sessions after a reopen: %v, %v", f, err)
	}
	if r, err := s.LastRun(ctx, p.ID, ragd.ScopeDocs, ragd.RunOK); err != nil || r.ID != run.ID {
		t.Errorf("last run after a reopen: %+v, %v", r, err)
	}
	if votes, err := s.SearchVotes(ctx, searchID); err != nil || len(votes) != 1 || votes[0].ChunkID != docID {
		t.Errorf("votes after a reopen: %+v, %v", votes, err)
	}
	statsAfter, err := s.Stats(ctx)
	statsAfter.FileBytes, statsBefore.FileBytes = 0, 0 // the engine's own measure
	if err != nil || statsAfter.Projects != statsBefore.Projects || !maps.Equal(statsAfter.Chunks, statsBefore.Chunks) ||
		statsAfter.Vectors != statsBefore.Vectors || statsAfter.Sessions != statsBefore.Sessions ||
		statsAfter.Events != statsBefore.Events || statsAfter.Searches != statsBefore.Searches || statsAfter.Votes != statsBefore.Votes {
		t.Errorf("stats after a reopen: %+v, %v; before: %+v", statsAfter, err, statsBefore)
	}
}

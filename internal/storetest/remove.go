package storetest

import (
	"errors"
	"testing"

	"github.com/ragd/ragd"
)

var removeTests = []subtest{
	{"remove a project", testRemoveProject},
}

// testRemoveProject: RemoveProject deletes a project with its chunks,
// sessions, runs, checkpoints and telemetry (counting the searches and
// votes it deletes); another project keeps all of its own; a project added
// again under the same name starts empty.
func testRemoveProject(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p, q := e.project("p"), e.project("q")
	pDoc := docChunk("docs/a.md", 0, "p's doc", unit(s, 0))
	e.replace(p.ID, ragd.ScopeDocs, pDoc, docChunk("docs/a.md", 1, "p's pending doc", nil))
	e.replace(p.ID, ragd.ScopeADR, docChunk("docs/adr/1.md", 0, "p's adr", unit(s, 1)))
	e.appendSession(p.ID, message("m1", "s1", 0, "p's message"), toolCall("t1", "s1", 1))
	run, err := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, run.ID, ragd.RunOK, "abc", nil); err != nil {
		t.Fatal(err)
	}
	const path = "/home/dev/transcript.jsonl"
	for _, id := range []int64{p.ID, q.ID} {
		if err := s.SaveTranscriptFile(ctx, ragd.TranscriptFile{Path: path, ProjectID: id, Format: "codex", Size: 1, Checkpoint: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	pHit := chunkID(p.ID, ragd.ScopeDocs, pDoc)
	pSearch := e.search(p.ID, "doc", pHit)
	e.vote(pSearch, pHit)
	e.search(p.ID, "other")
	qDoc := docChunk("docs/a.md", 0, "q's doc", unit(s, 2))
	e.replace(q.ID, ragd.ScopeDocs, qDoc)
	e.appendSession(q.ID, message("m1", "s1", 0, "q's message"))
	qHit := chunkID(q.ID, ragd.ScopeDocs, qDoc)
	qSearch := e.search(q.ID, "doc", qHit)
	e.vote(qSearch, qHit)

	gone, err := s.RemoveProject(ctx, p.ID)
	if err != nil || gone != (ragd.RemovedTelemetry{Searches: 2, Votes: 1}) {
		t.Fatalf("remove p: %+v, %v; want 2 searches, 1 vote", gone, err)
	}

	// p is gone, with everything of its own.
	if _, err := s.Project(ctx, "p"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("project p after its removal: %v, want ErrNotFound", err)
	}
	if ps, err := s.Projects(ctx); err != nil || len(ps) != 1 || ps[0].ID != q.ID {
		t.Errorf("projects after removing p: %+v, %v", ps, err)
	}
	checkEmpty := func(id int64) {
		t.Helper()
		for _, scope := range ragd.Scopes {
			if n := len(e.states(id, scope)); n != 0 {
				t.Errorf("project %d: %d %s chunks left", id, n, scope)
			}
		}
		if chunks, err := s.FileChunks(ctx, id, "docs/a.md"); err != nil || len(chunks) != 0 {
			t.Errorf("project %d: chunks of docs/a.md: %+v, %v", id, chunks, err)
		}
		if list, err := s.ListSessions(ctx, id, ragd.SessionFilter{}); err != nil || len(list) != 0 {
			t.Errorf("project %d: sessions %+v, %v", id, list, err)
		}
		if _, err := s.Event(ctx, id, "m1"); !errors.Is(err, ragd.ErrNotFound) {
			t.Errorf("project %d: event m1: %v, want ErrNotFound", id, err)
		}
		if _, err := s.LastRun(ctx, id, ragd.ScopeDocs, ""); !errors.Is(err, ragd.ErrNotFound) {
			t.Errorf("project %d: last run: %v, want ErrNotFound", id, err)
		}
	}
	checkEmpty(p.ID)
	if _, err := s.LoadSearch(ctx, pSearch); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("p's search after its removal: %v, want ErrNotFound", err)
	}
	if votes, err := s.SearchVotes(ctx, pSearch); err != nil || len(votes) != 0 {
		t.Errorf("votes on p's search: %+v, %v", votes, err)
	}
	if tfs, err := s.TranscriptFiles(ctx, path); err != nil || len(tfs) != 1 || tfs[0].ProjectID != q.ID {
		t.Errorf("checkpoints of %s after removing p: %+v, %v; want q's", path, tfs, err)
	}
	pending, err := s.PendingVectors(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, pv := range pending {
		if pv.ProjectID == p.ID {
			t.Errorf("a pending chunk of the removed project: %+v", pv)
		}
	}
	sn := e.snapshot()
	if n, v, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: p.ID}); n != 0 || v != 0 || err != nil {
		t.Errorf("coverage of the removed project: %d, %d, %v", n, v, err)
	}
	near, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: q.ID}, unit(s, 0), 10)
	if err != nil || len(near) != 1 || near[0].ChunkID != qHit {
		t.Errorf("q's vector candidates: %+v, %v", near, err)
	}
	sn.Close()

	// q keeps everything.
	if st := e.scopeStats(q.ID, ragd.ScopeDocs); st.Chunks != 1 {
		t.Errorf("q's docs: %+v", st)
	}
	if evs, err := s.SessionEvents(ctx, q.ID, "s1"); err != nil || len(evs) != 1 {
		t.Errorf("q's session: %+v, %v", evs, err)
	}
	if rec, err := s.LoadSearch(ctx, qSearch); err != nil || rec.ProjectID != q.ID {
		t.Errorf("q's search: %+v, %v", rec, err)
	}
	if votes, err := s.SearchVotes(ctx, qSearch); err != nil || len(votes) != 1 {
		t.Errorf("q's votes: %+v, %v", votes, err)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Projects != 1 || st.Chunks[ragd.ScopeDocs] != 1 || st.Chunks[ragd.ScopeADR] != 0 ||
		st.Chunks[ragd.ScopeSession] != 1 || st.Sessions != 1 || st.Events != 1 || st.Searches != 1 || st.Votes != 1 {
		t.Errorf("stats after removing p: %+v, %v", st, err)
	}

	// A project added again under the name starts empty.
	again := e.project("p")
	checkEmpty(again.ID)
	if forgotten, err := s.ForgottenSessions(ctx, again.ID); err != nil || len(forgotten) != 0 {
		t.Errorf("forgotten sessions of the new p: %v, %v", forgotten, err)
	}
}

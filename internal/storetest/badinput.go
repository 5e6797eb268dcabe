package storetest

import (
	"errors"
	"testing"

	"github.com/ragd/ragd"
)

var badInputTests = []subtest{
	{"unknown and empty ids", testBadInput},
}

// missingProject is a project id no store has given: the suite's stores
// hold a handful of projects.
const missingProject = 999999

// testBadInput: unknown project ids, unknown and empty ids and bad scopes
// give the answers the SQLite engine gives: an error wrapping ErrNotFound
// where it names a thing that must exist, an empty answer where a list of
// nothing is a true answer, and an error for input it cannot take.
func testBadInput(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "alpha", unit(s, 0)))
	e.appendSession(p.ID, message("m1", "s1", 0, "hello"))

	notFound := map[string]error{
		"ReplaceScope of an unknown project": func() error {
			_, err := s.ReplaceScope(ctx, missingProject, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "x", nil)})
			return err
		}(),
		"AppendSession to an unknown project": func() error {
			_, err := s.AppendSession(ctx, missingProject, []ragd.Event{message("x1", "s1", 0, "x")}, nil)
			return err
		}(),
		"SetAutoReindex of an unknown project": s.SetAutoReindex(ctx, missingProject, true),
		"SetLayout of an unknown project":      s.SetLayout(ctx, missingProject, ragd.Layout{NoRootFiles: true}),
		"RemoveProject of an unknown project": func() error {
			_, err := s.RemoveProject(ctx, missingProject)
			return err
		}(),
		"SetLanguage of an unknown project": func() error {
			_, err := s.SetLanguage(ctx, missingProject, "english")
			return err
		}(),
		"Project of an unknown name": func() error { _, err := s.Project(ctx, "nope"); return err }(),
		"Project of an empty name":   func() error { _, err := s.Project(ctx, ""); return err }(),
		"SessionEvents of an unknown project": func() error {
			_, err := s.SessionEvents(ctx, missingProject, "s1")
			return err
		}(),
		"SessionEvents of an empty id": func() error { _, err := s.SessionEvents(ctx, p.ID, ""); return err }(),
		"ForgetSession of an unknown project": func() error {
			_, err := s.ForgetSession(ctx, missingProject, "s1")
			return err
		}(),
		"ForgetSession of an empty id": func() error { _, err := s.ForgetSession(ctx, p.ID, ""); return err }(),
		"Event of an unknown project":  func() error { _, err := s.Event(ctx, missingProject, "m1"); return err }(),
		"Event of an empty id":         func() error { _, err := s.Event(ctx, p.ID, ""); return err }(),
		"EventsAround of an unknown project": func() error {
			_, _, err := s.EventsAround(ctx, missingProject, "m1", ragd.IndexedTypes, 2)
			return err
		}(),
		"EventsAround of an empty id": func() error {
			_, _, err := s.EventsAround(ctx, p.ID, "", ragd.IndexedTypes, 2)
			return err
		}(),
		"LastRun of an unknown project": func() error {
			_, err := s.LastRun(ctx, missingProject, ragd.ScopeDocs, "")
			return err
		}(),
		"FinishRun of an unknown run": s.FinishRun(ctx, missingProject, ragd.RunOK, "", nil),
		"LoadSearch of an unknown id": func() error { _, err := s.LoadSearch(ctx, missingProject); return err }(),
		"RecordFeedback on an unknown search": func() error {
			_, err := s.RecordFeedback(ctx, ragd.FeedbackInput{SearchID: missingProject, ChunkID: "c", Verdict: "useful", Actor: "person"})
			return err
		}(),
	}
	for name, err := range notFound {
		if !errors.Is(err, ragd.ErrNotFound) {
			t.Errorf("%s: %v, want an error wrapping ErrNotFound", name, err)
		}
	}
	if _, err := s.SetLanguage(ctx, p.ID, "klingon"); !errors.Is(err, ragd.ErrInvalid) {
		t.Errorf("SetLanguage to an unknown language: %v, want an error wrapping ErrInvalid", err)
	}
	if _, err := s.AppendSession(ctx, p.ID, []ragd.Event{message("", "s1", 0, "x")}, nil); !errors.Is(err, ragd.ErrInvalidEvent) {
		t.Errorf("AppendSession of an event without id: %v, want an error wrapping ErrInvalidEvent", err)
	}

	// Refused, with an error (the SQLite engine wraps no sentinel here).
	refused := map[string]error{
		"ReplaceScope of an unknown scope": func() error {
			_, err := s.ReplaceScope(ctx, p.ID, "bogus", nil)
			return err
		}(),
		"ReplaceScope of an empty scope": func() error { _, err := s.ReplaceScope(ctx, p.ID, "", nil); return err }(),
		"ScopeStats of an unknown scope": func() error { _, err := s.ScopeStats(ctx, p.ID, "bogus"); return err }(),
		"StartRun of an unknown scope":   func() error { _, err := s.StartRun(ctx, p.ID, "bogus"); return err }(),
		"StartRun of an unknown project": func() error { _, err := s.StartRun(ctx, missingProject, ragd.ScopeDocs); return err }(),
		"FinishRun with an unknown status": func() error {
			run, err := s.StartRun(ctx, p.ID, ragd.ScopeDocs)
			if err != nil {
				return nil
			}
			return s.FinishRun(ctx, run.ID, "done", "", nil)
		}(),
		"SaveTranscriptFile of an unknown project": s.SaveTranscriptFile(ctx, ragd.TranscriptFile{Path: "/t.jsonl", ProjectID: missingProject, Checkpoint: []byte(`{}`)}),
		"RecordSearch without an actor": func() error {
			_, err := s.RecordSearch(ctx, ragd.SearchRecord{ProjectID: p.ID, Query: "q", Weights: []byte(`{}`)})
			return err
		}(),
		"RecordSearch with weights that are not JSON": func() error {
			_, err := s.RecordSearch(ctx, ragd.SearchRecord{ProjectID: p.ID, Query: "q", Actor: "person", Weights: []byte(`{`)})
			return err
		}(),
		"FillVectors with a vector of other dims": func() error {
			pending, err := s.PendingVectors(ctx, 1)
			if err != nil || len(pending) == 0 {
				return nil
			}
			_, err = s.FillVectors(ctx, []ragd.VectorFill{{Seq: pending[0].Seq, ContentHash: pending[0].ContentHash, Vector: []float32{1, 0}}})
			return err
		}(),
	}
	for name, err := range refused {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}

	// Lists of nothing: no error.
	if st, err := s.ScopeStats(ctx, missingProject, ragd.ScopeDocs); err != nil || st.Chunks != 0 {
		t.Errorf("ScopeStats of an unknown project: %+v, %v", st, err)
	}
	if st, err := s.ChunkStates(ctx, missingProject, ragd.ScopeDocs); err != nil || len(st) != 0 {
		t.Errorf("ChunkStates of an unknown project: %+v, %v", st, err)
	}
	if l, err := s.ListSessions(ctx, missingProject, ragd.SessionFilter{}); err != nil || len(l) != 0 {
		t.Errorf("ListSessions of an unknown project: %+v, %v", l, err)
	}
	if f, err := s.ForgottenSessions(ctx, missingProject); err != nil || len(f) != 0 {
		t.Errorf("ForgottenSessions of an unknown project: %+v, %v", f, err)
	}
	for _, c := range []struct{ name, path string }{{"an unknown file", "docs/none.md"}, {"an empty path", ""}} {
		if ch, err := s.FileChunks(ctx, p.ID, c.path); err != nil || len(ch) != 0 {
			t.Errorf("FileChunks of %s: %+v, %v", c.name, ch, err)
		}
	}
	if ch, err := s.FileChunks(ctx, missingProject, "docs/a.md"); err != nil || len(ch) != 0 {
		t.Errorf("FileChunks of an unknown project: %+v, %v", ch, err)
	}
	if ch, err := s.EventChunks(ctx, missingProject, "m1"); err != nil || len(ch) != 0 {
		t.Errorf("EventChunks of an unknown project: %+v, %v", ch, err)
	}
	if v, err := s.SearchVotes(ctx, missingProject); err != nil || len(v) != 0 {
		t.Errorf("SearchVotes of an unknown search: %+v, %v", v, err)
	}
	if tf, err := s.TranscriptFiles(ctx, "/never/read.jsonl"); err != nil || len(tf) != 0 {
		t.Errorf("TranscriptFiles of an unread file: %+v, %v", tf, err)
	}
	if n, err := s.FillVectors(ctx, []ragd.VectorFill{{Seq: missingProject, ContentHash: "x", Vector: unit(s, 0)}}); err != nil || n != 0 {
		t.Errorf("FillVectors of an unknown chunk: %d, %v", n, err)
	}
	if n, err := s.MarkUnembeddable(ctx, []ragd.Unembeddable{{Seq: missingProject, ContentHash: "x", Reason: "r"}}); err != nil || n != 0 {
		t.Errorf("MarkUnembeddable of an unknown chunk: %d, %v", n, err)
	}

	sn := e.snapshot()
	if _, err := sn.LexicalLanguage(ctx, missingProject); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("LexicalLanguage of an unknown project: %v, want ErrNotFound", err)
	}
	if c, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: missingProject}, unit(s, 0), 5); err != nil || len(c) != 0 {
		t.Errorf("VectorCandidates of an unknown project: %+v, %v", c, err)
	}
	if _, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, []float32{1, 0}, 5); err == nil {
		t.Error("VectorCandidates with a query of other dims: accepted")
	}
	if _, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID, Scopes: []string{"bogus"}}, unit(s, 0), 5); err == nil {
		t.Error("VectorCandidates of an unknown scope: accepted")
	}
	if n, v, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: missingProject}); err != nil || n != 0 || v != 0 {
		t.Errorf("VectorCoverage of an unknown project: %d, %d, %v", n, v, err)
	}
	if c, err := sn.Chunks(ctx, []string{"no-such-chunk", ""}); err != nil || len(c) != 0 {
		t.Errorf("Chunks of unknown and empty ids: %+v, %v", c, err)
	}
	if c, err := sn.Chunks(ctx, nil); err != nil || len(c) != 0 {
		t.Errorf("Chunks of no ids: %+v, %v", c, err)
	}
}

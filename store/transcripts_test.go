package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// TestTranscriptFiles: a checkpoint per file and project, replaced when
// saved again, gone with its project; a forgotten session's events go and
// it is remembered as forgotten.
func TestTranscriptFiles(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	a, b := mustProject(t, s, "a"), mustProject(t, s, "b")
	mtime := time.Unix(1_700_000_000, 123)
	for _, tf := range []ragd.TranscriptFile{
		{Path: "/t/x.jsonl", ProjectID: a.ID, Format: "codex", Size: 10, ModTime: mtime, Checkpoint: []byte(`{"offset":10}`)},
		{Path: "/t/x.jsonl", ProjectID: b.ID, Format: "codex", Size: 5, ModTime: mtime, Checkpoint: []byte(`{"offset":5}`)},
		{Path: "/t/x.jsonl", ProjectID: a.ID, Format: "codex", Size: 20, ModTime: mtime, Checkpoint: []byte(`{"offset":20}`)},
	} {
		if err := s.SaveTranscriptFile(ctx, tf); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.TranscriptFiles(ctx, "/t/x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ProjectID != a.ID || got[0].Size != 20 || string(got[0].Checkpoint) != `{"offset":20}` ||
		!got[0].ModTime.Equal(mtime) || got[1].ProjectID != b.ID || got[1].Size != 5 {
		t.Fatalf("checkpoints: %+v", got)
	}
	if _, err := s.RemoveProject(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.TranscriptFiles(ctx, "/t/x.jsonl"); len(got) != 1 || got[0].ProjectID != a.ID {
		t.Errorf("after removing project b: %+v", got)
	}

	if _, err := s.AppendEvents(ctx, a.ID, []ragd.Event{ev("e1", "s1", "chat.message", "hello", 0), ev("e2", "s2", "chat.message", "other", 0)}); err != nil {
		t.Fatal(err)
	}
	res, err := s.ForgetSession(ctx, a.ID, "s1")
	if err != nil || res.Events != 1 || res.Chunks != 0 {
		t.Fatalf("forget s1: %+v, %v", res, err)
	}
	if _, err := s.Event(ctx, a.ID, "e1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("forgotten event: %v", err)
	}
	if _, err := s.Event(ctx, a.ID, "e2"); err != nil {
		t.Errorf("the other session's event: %v", err)
	}
	if f, err := s.ForgottenSessions(ctx, a.ID); err != nil || len(f) != 1 || !f["s1"] {
		t.Errorf("forgotten sessions: %v, %v", f, err)
	}
	if _, err := s.ForgetSession(ctx, a.ID, "s1"); !errors.Is(err, ragd.ErrNotFound) {
		t.Errorf("forget twice: %v", err)
	}
}

package daemon_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestSessions_ListAndRead lists a project's sessions through the socket,
// filtered by format and time, and reads one whole.
func TestSessions_ListAndRead(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	d, _ := startDocs(t, newServer(t).URL)
	c := d.Client
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendFile(t, path, claudeRecord("listme", "/x", "l1", "user", "How are vectors stored?", 1)+
		claudeRecord("listme", "/x", "l2", "assistant", "In sqlite-vec tables.", 2))
	importTranscripts(t, c, api.TranscriptImportRequest{Format: "claude-code", Paths: []string{path}, Project: "demo"})
	recent := time.Now().UTC().Add(-time.Minute)
	if _, err := c.AppendEvents(ctx, "demo", []ragd.Event{
		{ID: "n1", SessionID: "notes", Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "A note", Time: recent, Title: "Notes"},
		{ID: "n2", SessionID: "notes", Type: "tool.call", Actor: ragd.ActorAgent, Time: recent.Add(time.Second), Payload: []byte(`{"name":"grep"}`)},
	}); err != nil {
		daemontest.Fatal(t, "append", err)
	}

	list, err := c.Sessions(ctx, "demo", api.SessionsQuery{})
	if err != nil {
		daemontest.Fatal(t, "list sessions", err)
	}
	if len(list.Sessions) != 2 || list.Project != "demo" {
		t.Fatalf("sessions = %+v, want 2 of demo", list)
	}
	notes, claude := list.Sessions[0], list.Sessions[1]
	if notes.ID != "notes" || notes.Format != "" || notes.Events != 2 || notes.Messages != 1 || notes.Title != "Notes" {
		t.Errorf("newest session = %+v, want notes with 2 events, 1 message", notes)
	}
	if claude.ID != "claude-code:listme" || claude.Format != "claude-code" || claude.Messages != 2 {
		t.Errorf("older session = %+v, want claude-code:listme with 2 messages", claude)
	}
	for _, tc := range []struct {
		q    api.SessionsQuery
		want []string
	}{
		{api.SessionsQuery{From: "claude-code"}, []string{"claude-code:listme"}},
		{api.SessionsQuery{From: "codex"}, nil},
		{api.SessionsQuery{Since: "1h"}, []string{"notes"}},
		{api.SessionsQuery{Since: recent.Add(time.Hour).Format(time.RFC3339)}, nil},
	} {
		got, err := c.Sessions(ctx, "demo", tc.q)
		if err != nil {
			daemontest.Fatal(t, "list sessions", err)
		}
		var ids []string
		for _, s := range got.Sessions {
			ids = append(ids, s.ID)
		}
		if len(ids) != len(tc.want) || (len(ids) > 0 && ids[0] != tc.want[0]) {
			t.Errorf("%+v: sessions %v, want %v", tc.q, ids, tc.want)
		}
	}

	conv, err := c.Conversation(ctx, "demo", "claude-code:listme")
	if err != nil {
		daemontest.Fatal(t, "conversation", err)
	}
	if len(conv.Events) != 2 || conv.Events[0].Text != "How are vectors stored?" || conv.Events[1].Actor != ragd.ActorAgent || conv.Session.Messages != 2 {
		t.Errorf("conversation = %+v", conv)
	}

	for _, tc := range []struct {
		name   string
		call   func() error
		status int
	}{
		{"bad since", func() error { _, err := c.Sessions(ctx, "demo", api.SessionsQuery{Since: "yesterday"}); return err }, http.StatusBadRequest},
		{"bad format", func() error { _, err := c.Sessions(ctx, "demo", api.SessionsQuery{From: "vim"}); return err }, http.StatusBadRequest},
		{"unknown project", func() error { _, err := c.Sessions(ctx, "nope", api.SessionsQuery{}); return err }, http.StatusNotFound},
		{"unknown session", func() error { _, err := c.Conversation(ctx, "demo", "nope"); return err }, http.StatusNotFound},
	} {
		err := tc.call()
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != tc.status {
			t.Errorf("%s: err = %v, want status %d", tc.name, err, tc.status)
		}
	}
}

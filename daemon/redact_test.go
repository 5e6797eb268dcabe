package daemon_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/secretcorpus"
	"github.com/ragd/ragd/store"
)

// TestRedactSessions: text stored before the rules knew its secrets (here
// written to the store directly, past the redaction) is rewritten in place
// by POST /v1/sessions/redact: events, payloads, titles, chunks and their
// keyword index, transcript checkpoints. The report counts by kind; the
// secrets are in no byte of the database afterwards and search finds the
// markers; a second pass changes nothing.
func TestRedactSessions(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t)
	w := daemontest.NewWorld(t)
	d := daemontest.Start(t, w, daemontest.Config(srv.URL))
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, d.Client, repo.Dir, "demo")
	d.Stop(t)

	secrets, _ := secretcorpus.Generate(7, 1)
	s, err := store.Open(ctx, w.Paths.Database, store.Options{Space: embedding.SpaceOf(daemontest.Model, daemontest.Dims).String(), Dims: daemontest.Dims})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Project(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	var events []ragd.Event
	var chunks [][]ragd.ChunkInput
	for i, sec := range secrets {
		payload, _ := json.Marshal(map[string]string{"command": sec.Text})
		e := ragd.Event{ID: "old-" + strconv.Itoa(i), SessionID: "old-session", Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson,
			Text: "pasted: " + sec.Text, Payload: payload, Time: time.Date(2025, 1, 1, 0, 0, i, 0, time.UTC)}
		if i == 0 {
			e.Title = "title " + sec.Text
		}
		sum := sha256.Sum256([]byte(e.Text))
		events = append(events, e)
		chunks = append(chunks, []ragd.ChunkInput{{SessionID: e.SessionID, EventID: e.ID, End: len(e.Text), Content: e.Text, ContentHash: hex.EncodeToString(sum[:])}})
	}
	if _, err := s.AppendSession(ctx, p.ID, events, chunks); err != nil {
		t.Fatal(err)
	}
	cp, _ := json.Marshal(map[string]any{"offset": 10, "summaries": map[string]string{"leaf": secrets[1].Text}})
	if err := s.SaveTranscriptFile(ctx, ragd.TranscriptFile{Path: "/t/old.jsonl", ProjectID: p.ID, Format: "claude-code", Size: 10, ModTime: time.Now(), Checkpoint: cp}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	d = daemontest.Start(t, w, daemontest.Config(srv.URL))
	rep, err := d.Client.RedactSessions(ctx, "demo")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range rep.Redactions {
		n += v
	}
	t.Logf("first pass: %+v, %d redactions of %d kinds", rep.Projects, n, len(rep.Redactions))
	if len(rep.Projects) != 1 || rep.Projects[0].Events != len(secrets) || rep.Projects[0].Chunks != len(secrets) ||
		rep.Projects[0].Sessions != 1 || rep.Projects[0].Checkpoints != 1 || n < 2*len(secrets) {
		t.Errorf("first pass rewrote %+v with %d redactions; want %d events and chunks, 1 title, 1 checkpoint, at least %d redactions",
			rep.Projects, n, len(secrets), 2*len(secrets))
	}
	ev, err := d.Client.Event(ctx, "demo", "old-0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ev.Text, "[REDACTED:") || !strings.Contains(ev.Title, "[REDACTED:") || !bytes.Contains(ev.Payload, []byte("[REDACTED:")) {
		t.Errorf("event after the pass: %+v", ev)
	}
	res := daemontest.Search(t, d.Client, "demo", api.SearchRequest{Query: "pasted REDACTED", Scopes: []string{"session"}})
	if len(res.Hits) == 0 {
		t.Errorf("keyword search finds no redacted chunk")
	}
	again, err := d.Client.RedactSessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range again.Projects {
		if pr.Events+pr.Sessions+pr.Chunks+pr.Checkpoints != 0 {
			t.Errorf("second pass rewrote %+v", pr)
		}
	}
	if len(again.Redactions) != 0 {
		t.Errorf("second pass found %v", again.Redactions)
	}
	d.Stop(t)
	written := readTree(t, w.Dir)
	for _, sec := range secrets {
		if bytes.Contains(written, []byte(sec.Value)) || bytes.Contains(written, []byte(jsonInner(sec.Value))) {
			t.Errorf("still stored after the pass: %v", sec)
		}
	}
}

package daemon_test

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/transcript"
)

// Issue 27 item 17: a transcript import is not cut by the write timeout,
// as reindex and the event import are not. The timeout here has passed
// before the handler starts, so any line written under it is lost: the
// stream's lines are written (and flushed) without it. (An answer that is
// not streamed is flushed after the handler returns, under a fresh
// timeout, which at 1ns no answer could meet.)
func TestTranscripts_ImportOutlivesWriteTimeout(t *testing.T) {
	daemontest.EngineIndependent(t)
	defer daemon.SetServeLimits(daemon.ServeLimits{
		ReadHeader: time.Minute, Read: time.Minute, Write: time.Nanosecond, Idle: time.Minute, MaxConns: 8,
	})()
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(newServer(t).URL))
	path := fixturePath(t, "claude-code.jsonl")
	req := api.TranscriptImportRequest{Format: string(transcript.ClaudeCode), Paths: []string{path}}
	rep, err := d.Client.ImportTranscripts(context.Background(), req, nil)
	if err != nil || rep.Files != 1 || rep.Messages == 0 {
		t.Fatalf("import (streamed) past the write timeout: %+v, %v", rep, err)
	}
}

// Issue 27 item 15: a FIFO or a device given as an import path is refused
// (400) without being opened; one that an import lists on its own (here
// Aider's $AIDER_CHAT_HISTORY_FILE) is skipped and reported, not read: a
// FIFO would block its open for ever, under the lock every later import
// and the follower wait on. The import after them still runs.
func TestTranscripts_NonRegularFilesRefused(t *testing.T) {
	daemontest.EngineIndependent(t)
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(newServer(t).URL))
	fifo := filepath.Join(t.TempDir(), transcript.AiderHistoryFile)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.Timeout)
	defer cancel()
	for _, path := range []string{fifo, "/dev/zero"} {
		_, err := d.Client.ImportTranscripts(ctx, api.TranscriptImportRequest{Format: string(transcript.ClaudeCode), Paths: []string{path}}, nil)
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || !strings.Contains(ce.Message, "not a regular file") {
			t.Errorf("import of %s: %v, want 400 not a regular file", path, err)
		}
	}

	t.Setenv("AIDER_CHAT_HISTORY_FILE", fifo)
	rep, err := d.Client.ImportTranscripts(ctx, api.TranscriptImportRequest{Format: string(transcript.Aider)}, nil)
	if err != nil || rep.Files != 0 || rep.Skipped["not a regular file"] != 1 {
		t.Fatalf("aider import of a FIFO history: %+v, %v; want it skipped as not a regular file", rep, err)
	}

	rep, err = d.Client.ImportTranscripts(ctx, api.TranscriptImportRequest{Format: string(transcript.ClaudeCode),
		Paths: []string{fixturePath(t, "claude-code.jsonl")}}, nil)
	if err != nil || rep.Files != 1 || rep.Messages == 0 {
		t.Fatalf("import after the refused ones: %+v, %v", rep, err)
	}
}

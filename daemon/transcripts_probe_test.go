package daemon_test

import (
	"context"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
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

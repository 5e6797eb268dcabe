package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/syncbuf"
)

// Issue 27 item 21: work cancelled because its client went away is no
// 500 and no ERROR line; a cancellation while the client still waits
// (the daemon's own) stays what it was.
func TestWriteError_ClientGoneIsNeither500NorError(t *testing.T) {
	var logs syncbuf.Buffer
	d := &Daemon{ctx: context.Background(), logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest(http.MethodPost, "/v1/projects/demo/reindex", nil).WithContext(ctx)
	w := httptest.NewRecorder()
	d.writeError(w, r, fmt.Errorf("reindex demo: embed: %w", context.Canceled))
	if w.Code >= 500 {
		t.Errorf("client gone: status %d, want no 5xx", w.Code)
	}
	if !strings.Contains(w.Body.String(), api.CodeClientGone) {
		t.Errorf("client gone: body %s, want code %s", w.Body, api.CodeClientGone)
	}
	if got := logs.String(); strings.Contains(got, "level=ERROR") || !strings.Contains(got, "client went away") {
		t.Errorf("client gone: log %q, want one Debug line and no ERROR", got)
	}

	// The client still there: a real failure is a 500, logged.
	r = httptest.NewRequest(http.MethodPost, "/v1/projects/demo/reindex", nil)
	w = httptest.NewRecorder()
	d.writeError(w, r, fmt.Errorf("reindex demo: %w", context.Canceled))
	if w.Code != http.StatusInternalServerError || !strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("client present: status %d, log %q; want 500 and an ERROR line", w.Code, logs.String())
	}
}

package daemon_test

import (
	"net/http"
	"testing"

	"github.com/ragd/ragd/internal/daemontest"
)

// TestAPI_BadBytesInIDsAreRefused: a NUL or invalid UTF-8 in a session or
// event id, in a path or in an appended event, is the client's mistake on
// either engine: PostgreSQL once answered 500 (invalid byte sequence for
// encoding "UTF8": 0x00) where SQLite answered 200 or 404 (issue 35 item 9).
func TestAPI_BadBytesInIDsAreRefused(t *testing.T) {
	daemontest.EngineIndependent(t)
	d, _ := startDocs(t, newServer(t).URL)
	for _, tc := range []struct {
		name, method, path, body string
	}{
		{"NUL in a session path", "GET", "/sessions/s%00", ""},
		{"invalid UTF-8 in a session path", "GET", "/sessions/s%FF", ""},
		{"NUL in a forgotten session", "DELETE", "/sessions/s%00", ""},
		{"NUL in an event path", "GET", "/events/e%00", ""},
		{"invalid UTF-8 in an event path", "GET", "/events/e%FF", ""},
		{"NUL in a passage's event", "GET", "/passage?event=e%00", ""},
		{"invalid UTF-8 in a passage's session", "GET", "/passage?event=e1&session=s%FF", ""},
		{"NUL in an event's sessionId", "POST", "/events",
			`{"id":"e1","sessionId":"s\u0000","type":"note","actor":"person","time":"2026-01-01T00:00:00Z"}`},
		{"NUL in an event's id", "POST", "/events",
			`{"id":"e\u0000","sessionId":"s1","type":"note","actor":"person","time":"2026-01-01T00:00:00Z"}`},
	} {
		var body []byte
		if tc.body != "" {
			body = []byte(tc.body)
		}
		a := daemontest.Do(t, d.Socket(), tc.method, daemontest.ProjectPath("demo", tc.path), "application/json", body)
		e := a.ErrorBody(t)
		if a.Status != http.StatusBadRequest && a.Status != http.StatusNotFound {
			t.Errorf("%s: %d %s %q, want 400 or 404", tc.name, a.Status, e.Code, e.Message)
		}
	}
}

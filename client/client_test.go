package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
)

// serve answers every request on a fresh Unix socket with handler.
func serve(t *testing.T, handler http.HandlerFunc) *client.Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	c := client.New(sock)
	t.Cleanup(c.Close)
	return c
}

func TestError_MatchesSentinels(t *testing.T) {
	tests := []struct {
		status int
		body   string
		want   error
	}{
		{404, `{"error":{"code":"not_found","message":"unknown project \"x\""}}`, ragd.ErrNotFound},
		{400, `{"error":{"code":"bad_request","message":"limit 0: want 1..20"}}`, ragd.ErrInvalid},
		{409, `{"error":{"code":"exists","message":"already registered"}}`, ragd.ErrExists},
		{409, `{"error":{"code":"already_running","message":"reindex already running"}}`, ragd.ErrAlreadyRunning},
		{409, `{"error":{"code":"event_conflict","message":"1 event conflicts"}}`, ragd.ErrEventConflict},
	}
	for _, tt := range tests {
		c := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(tt.status)
			w.Write([]byte(tt.body))
		})
		_, err := c.Project(context.Background(), "x")
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Status != tt.status {
			t.Fatalf("%s: error %v, want *client.Error with status %d", tt.body, err, tt.status)
		}
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: errors.Is(%v, %v) is false", tt.body, err, tt.want)
		}
		for _, other := range []error{ragd.ErrNotFound, ragd.ErrInvalid, ragd.ErrExists, ragd.ErrAlreadyRunning, ragd.ErrEventConflict} {
			if other != tt.want && errors.Is(err, other) {
				t.Errorf("%s: matches %v too", tt.body, other)
			}
		}
		if !strings.Contains(err.Error(), strings.Split(tt.body, `"message":"`)[1][:5]) {
			t.Errorf("error text %q is not the daemon's message", err)
		}
	}
}

func TestError_BodyNotInErrorShape(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream broke", http.StatusBadGateway)
	})
	_, err := c.Health(context.Background())
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Status != http.StatusBadGateway || ce.Message != "upstream broke" {
		t.Fatalf("error %#v", err)
	}
}

func TestNotRunning(t *testing.T) {
	c := client.New(filepath.Join(t.TempDir(), "nobody.sock"))
	_, err := c.Health(context.Background())
	if !errors.Is(err, client.ErrNotRunning) || !strings.Contains(err.Error(), "ragd serve") {
		t.Fatalf("no daemon: %v, want ErrNotRunning saying how to start one", err)
	}
}

func TestMeasureQuery_Encode(t *testing.T) {
	tests := []struct {
		q    api.MeasureQuery
		want string
	}{
		{api.MeasureQuery{}, ""},
		{api.MeasureQuery{Project: "my proj", Since: "7d", K: 3}, "?k=3&project=my+proj&since=7d"},
		{api.MeasureQuery{Until: "2026-11-29T00:00:00Z"}, "?until=2026-11-29T00%3A00%3A00Z"},
	}
	for _, tt := range tests {
		if got := tt.q.Encode(); got != tt.want {
			t.Errorf("%+v.Encode() = %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestReindexStream(t *testing.T) {
	c := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/x-ndjson" || r.URL.EscapedPath() != api.ProjectPath("p q", "/reindex") {
			http.Error(w, `{"error":{"code":"bad_request","message":"unexpected request"}}`, 400)
			return
		}
		w.Write([]byte(`{"progress":{"phase":"read","scope":"docs","done":0,"total":2}}` + "\n\n" +
			`{"progress":{"phase":"read","scope":"docs","done":2,"total":2}}` + "\n" +
			`{"report":{"project":"p q","complete":false},"error":{"code":"shutting_down","message":"ragd is shutting down"}}` + "\n"))
	})
	var steps []api.Progress
	rep, err := c.ReindexStream(context.Background(), "p q", api.ReindexRequest{}, func(p api.Progress) { steps = append(steps, p) })
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Code != api.CodeShuttingDown {
		t.Fatalf("error %v, want the stream's shutting_down", err)
	}
	if rep == nil || rep.Project != "p q" || len(steps) != 2 || steps[1].Done != 2 {
		t.Errorf("report %+v, steps %+v", rep, steps)
	}
}

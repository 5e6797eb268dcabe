package embedding

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func TestUnitVector(t *testing.T) {
	tests := []struct {
		name string
		in   []float32
		dims int
		want vectorProblem
	}{
		{"unit", []float32{0.6, 0.8}, 2, vectorOK},
		{"not normalised", []float32{3, 4}, 2, vectorOK},
		{"huge but finite", []float32{3e38, 3e38}, 2, vectorOK},
		{"tiny", []float32{1e-20, 0}, 2, vectorZero},
		{"zero", []float32{0, 0}, 2, vectorZero},
		{"NaN", []float32{float32(math.NaN()), 1}, 2, vectorNonFinite},
		{"Inf", []float32{float32(math.Inf(-1)), 1}, 2, vectorNonFinite},
		{"short", []float32{1}, 2, vectorWrongDims},
		{"long", []float32{1, 0, 0}, 2, vectorWrongDims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]float32(nil), tt.in...)
			got, problem := unitVector(in, tt.dims)
			if problem != tt.want {
				t.Fatalf("problem %v, want %v", problem, tt.want)
			}
			for i := range in { // the input is not modified
				if math.Float32bits(in[i]) != math.Float32bits(tt.in[i]) {
					t.Fatalf("input modified: %v", in)
				}
			}
			if problem != vectorOK {
				if got != nil {
					t.Fatalf("unusable vector returned: %v", got)
				}
				return
			}
			var sum float64
			for _, x := range got {
				sum += float64(x) * float64(x)
			}
			if math.Abs(math.Sqrt(sum)-1) > 1e-6 {
				t.Fatalf("norm %v, want 1 (%v)", math.Sqrt(sum), got)
			}
		})
	}
}

func TestFormatTimeoutAndClip(t *testing.T) {
	for d, want := range map[time.Duration]string{
		2 * time.Second:         "2s",
		60 * time.Second:        "60s",
		1500 * time.Millisecond: "1.5s",
		50 * time.Millisecond:   "50ms",
	} {
		if got := formatTimeout(d); got != want {
			t.Errorf("formatTimeout(%v) = %q, want %q", d, got, want)
		}
	}
	if got := clip("a\n  b\tc"); got != "a b c" {
		t.Errorf("clip collapses white space: %q", got)
	}
	long := strings.Repeat("é", 300)
	got := clip(long)
	if !strings.HasSuffix(got, "…") || len(got) > maxReasonDetail+len("…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("clip(long) = %q", got)
	}
}

func TestResponseLimit(t *testing.T) {
	const big = 3 << 20
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/declared":
			// Announces more than the limit: refused before reading.
			w.Header().Set("Content-Length", fmt.Sprint(big))
			io.WriteString(w, "{")
		case "/streamed":
			for range big / 1024 {
				if _, err := io.WriteString(w, strings.Repeat("x", 1024)); err != nil {
					return
				}
			}
		case "/exact":
			io.WriteString(w, strings.Repeat("y", 1000))
		}
	}))
	defer srv.Close()
	client := newHTTPClient(1)
	get := func(path string, limit int64) ([]byte, error) {
		ctx := withResponseLimit(t.Context(), limit)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	var tooLarge *errResponseTooLarge
	if _, err := get("/declared", 1<<20); !errors.As(err, &tooLarge) || tooLarge.limit != 1<<20 {
		t.Errorf("declared oversize: err = %v", err)
	}
	if b, err := get("/streamed", 1<<20); !errors.As(err, &tooLarge) || len(b) > 1<<20 {
		t.Errorf("streamed oversize: read %d bytes, err = %v", len(b), err)
	}
	if b, err := get("/exact", 1000); err != nil || len(b) != 1000 {
		t.Errorf("body of exactly the limit: %d bytes, %v", len(b), err)
	}
	if _, err := get("/exact", 999); !errors.As(err, &tooLarge) {
		t.Errorf("one byte over: err = %v", err)
	}
	// Without a limit in the context the default applies.
	if b, err := get("/streamed", 0); !errors.As(err, &tooLarge) || tooLarge.limit != defaultResponseLimit || len(b) > defaultResponseLimit {
		t.Errorf("default limit: read %d bytes, err = %v", len(b), err)
	}
	if want := int64(responseSlack + 32*768*bytesPerValue); responseLimit(32, 768) != want {
		t.Errorf("responseLimit(32, 768) = %d, want %d", responseLimit(32, 768), want)
	}
}

func TestClassify(t *testing.T) {
	p := &ollama{host: "http://h:1", model: "m"}
	live := t.Context()
	expired, cancel := context.WithDeadline(t.Context(), time.Unix(1, 0))
	defer cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		err   error
		want  string
		fatal bool
	}{
		{"refused", live, &url.Error{Op: "Post", URL: "http://h:1/api/embed", Err: errors.New("connect: connection refused")}, "ollama not reachable at http://h:1", true},
		{"deadline", expired, &url.Error{Op: "Post", Err: context.DeadlineExceeded}, "timeout after 2s", true},
		{"too large via url.Error", live, &url.Error{Op: "Post", Err: &errResponseTooLarge{limit: 10}}, "ollama returned an invalid answer: response larger than 10 bytes, cut", false},
		{"not pulled", live, api.StatusError{StatusCode: 404, ErrorMessage: `model "m" not found, try pulling it first`}, "model m not pulled: run `ollama pull m`", true},
		{"no such API", live, api.StatusError{StatusCode: 404, ErrorMessage: "404 page not found"}, "no ollama embed API at http://h:1 (HTTP 404: 404 page not found): is it Ollama 0.3 or later?", true},
		{"bad request", live, api.StatusError{StatusCode: 400, ErrorMessage: "the input length exceeds the context length"}, "ollama rejected the request: the input length exceeds the context length", false},
		{"proxy page", live, api.StatusError{StatusCode: 502, ErrorMessage: "<html>\n<body>Bad   Gateway</body></html>"}, "ollama failed (HTTP 502): <html> <body>Bad Gateway</body></html>", false},
		{"auth", live, api.AuthorizationError{StatusCode: 401}, "ollama at http://h:1 requires authorization (HTTP 401)", true},
		{"body cut", live, io.ErrUnexpectedEOF, "lost connection to ollama at http://h:1: unexpected EOF", false},
		{"queue full", live, api.StatusError{StatusCode: 503, ErrorMessage: "server busy, please try again.  maximum pending requests exceeded"}, "ollama is busy (HTTP 503): server busy, please try again. maximum pending requests exceeded", false},
	}
	if f := classify(p, live, 2*time.Second, false, api.StatusError{StatusCode: 400, ErrorMessage: "the input length exceeds the context length"}); !f.Rejected || !f.TooLong {
		t.Errorf("too long: %+v, want rejected and too long", f)
	}
	if f := classify(p, expired, 2*time.Second, true, context.DeadlineExceeded); !f.Busy || !f.Fatal {
		t.Errorf("a timeout after the request was sent: %+v, want busy and fatal", f)
	}
	for _, tt := range tests {
		f := classify(p, tt.ctx, 2*time.Second, false, tt.err)
		if f.Reason != tt.want || f.Fatal != tt.fatal {
			t.Errorf("%s: classify = %q fatal=%v, want %q fatal=%v", tt.name, f.Reason, f.Fatal, tt.want, tt.fatal)
		}
	}
}

// A POST lost on a reused connection that the server closed (before any
// answer) is sent again on a new one: embedding requests are idempotent.
// The same request through the bare transport fails, so the test can.
func TestTransport_RetriesPostOnAClosedReusedConnection(t *testing.T) {
	var mu sync.Mutex
	served := map[string]int{} // requests seen per client connection
	dropped := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		mu.Lock()
		served[r.RemoteAddr]++
		drop := served[r.RemoteAddr] == 2 // the connection's second request
		if drop {
			dropped++
		}
		mu.Unlock()
		if drop {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // as a server closing an idle connection would
			}
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	post := func(c *http.Client) error {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(`{"input":["a"]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return err
	}
	client := newHTTPClient(1)
	for i := range 3 {
		if err := post(client); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	if dropped == 0 {
		t.Fatal("the server dropped no request: the test tested nothing")
	}
	bare := &http.Client{Transport: client.Transport.(*limitTransport).base.(*http.Transport).Clone()}
	if err := post(bare); err != nil {
		t.Fatal(err)
	}
	if err := post(bare); err == nil {
		t.Error("the bare transport resent a POST on its own: the retry is not this package's")
	}
}

package ollamatest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/vectest"
)

// wireCase is one request and Ollama 0.17.4's recorded answer. The same table
// checks the fake here and the real server in the testkit tier.
type wireCase struct {
	name, method, path, body string
	status                   int
	want                     string // exact body; "" to skip
	vectors                  int    // for 200 embed answers: vectors expected, -1 to skip
	// shimDiffers marks what the test kit's use-lite shim answers otherwise
	// (its README lists the differences): not compared against it.
	shimDiffers bool
}

// wireCases returns the recorded behaviour for a server that has model
// (given in upper case somewhere, to check case-insensitivity) and not
// "nope".
func wireCases(model string) []wireCase {
	upper := strings.ToUpper(model)
	return []wireCase{
		{name: "unknown model", method: "POST", path: "/api/embed", body: `{"model":"nope","input":"x"}`,
			status: 404, want: `{"error":"model \"nope\" not found, try pulling it first"}`},
		{name: "unknown tag", method: "POST", path: "/api/embed", body: `{"model":"` + model + `:v2","input":"x"}`,
			status: 404, want: `{"error":"model \"` + model + `:v2\" not found, try pulling it first"}`},
		{name: "model missing", method: "POST", path: "/api/embed", body: `{"input":"x"}`,
			status: 500, want: `{"error":"unqualified name: registry.ollama.ai/library/!MISSING!:latest"}`, shimDiffers: true},
		{name: "model empty", method: "POST", path: "/api/embed", body: `{"model":"","input":"x"}`,
			status: 500, want: `{"error":"unqualified name: registry.ollama.ai/library/!MISSING!:latest"}`, shimDiffers: true},
		{name: "model with space", method: "POST", path: "/api/embed", body: `{"model":"a b","input":"x"}`,
			status: 500, want: `{"error":"unqualified name: registry.ollama.ai/library/a b:latest"}`, shimDiffers: true},
		{name: "input number", method: "POST", path: "/api/embed", body: `{"model":"` + model + `","input":5}`,
			status: 400, want: `{"error":"invalid input type"}`},
		{name: "input mixed array", method: "POST", path: "/api/embed", body: `{"model":"nope","input":["a",5]}`,
			status: 400, want: `{"error":"invalid input type"}`},
		{name: "empty body", method: "POST", path: "/api/embed", body: ``,
			status: 400, want: `{"error":"missing request body"}`},
		{name: "not JSON", method: "POST", path: "/api/embed", body: `nope`,
			status: 400, want: `{"error":"invalid character 'o' in literal null (expecting 'u')"}`, shimDiffers: true},
		{name: "model not a string", method: "POST", path: "/api/embed", body: `{"model":5,"input":"x"}`,
			status: 400, want: `{"error":"json: cannot unmarshal number into Go struct field EmbedRequest.model of type string"}`, shimDiffers: true},
		{name: "empty string input", method: "POST", path: "/api/embed", body: `{"model":"` + upper + `","input":""}`,
			status: 200, want: `{"model":"` + upper + `","embeddings":[]}`},
		{name: "empty array input", method: "POST", path: "/api/embed", body: `{"model":"` + model + `","input":[]}`,
			status: 200, want: `{"model":"` + model + `","embeddings":[]}`},
		{name: "no input", method: "POST", path: "/api/embed", body: `{"model":"` + model + `"}`,
			status: 200, want: `{"model":"` + model + `","embeddings":[]}`},
		{name: "one empty text", method: "POST", path: "/api/embed", body: `{"model":"` + model + `","input":[""]}`,
			status: 200, vectors: 1},
		{name: "batch, upper-case name", method: "POST", path: "/api/embed", body: `{"model":"` + upper + `","input":["a dog","a cat","the market"]}`,
			status: 200, vectors: 3},
		{name: "latest tag", method: "POST", path: "/api/embed", body: `{"model":"` + model + `:latest","input":"dog"}`,
			status: 200, vectors: 1},
		{name: "too long, no truncation", method: "POST", path: "/api/embed",
			body:   `{"model":"` + model + `","truncate":false,"input":["` + strings.Repeat("dog ", 9000) + `"]}`,
			status: 400, want: `{"error":"the input length exceeds the context length"}`},
		{name: "too long, truncated", method: "POST", path: "/api/embed",
			body:   `{"model":"` + model + `","input":["` + strings.Repeat("dog ", 9000) + `"]}`,
			status: 200, vectors: 1},
		{name: "show unknown", method: "POST", path: "/api/show", body: `{"model":"nope"}`,
			status: 404, want: `{"error":"model 'nope' not found"}`},
		{name: "version", method: "GET", path: "/api/version", status: 200, vectors: -1},
		{name: "root", method: "GET", path: "/", status: 200, want: "Ollama is running"},
		{name: "unknown path", method: "GET", path: "/api/nothing", status: 404, want: "404 page not found"},
		{name: "wrong method", method: "GET", path: "/api/embed", status: 405, want: "405 method not allowed", shimDiffers: true},
	}
}

// checkWire runs the cases against base.
func checkWire(t *testing.T, base string, cases []wireCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), c.method, base+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d; body %.300s", resp.StatusCode, c.status, body)
			}
			if c.want != "" && string(body) != c.want {
				t.Fatalf("body\n got %.300s\nwant %s", body, c.want)
			}
			if c.status == 200 && c.path == "/api/embed" && c.want == "" {
				checkEmbedAnswer(t, body, c.vectors)
			}
		})
	}
}

func checkEmbedAnswer(t *testing.T, body []byte, vectors int) {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatalf("answer: %v", err)
	}
	for _, f := range []string{"model", "embeddings", "total_duration", "prompt_eval_count"} {
		if _, ok := fields[f]; !ok {
			t.Errorf("answer lacks %q: %.200s", f, body)
		}
	}
	var got struct{ Embeddings [][]float32 }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("answer: %v", err)
	}
	if len(got.Embeddings) != vectors {
		t.Fatalf("%d vectors, want %d", len(got.Embeddings), vectors)
	}
	for i, v := range got.Embeddings {
		if n := vectest.Norm(v); math.Abs(n-1) > 1e-3 {
			t.Errorf("vector %d has norm %v, want 1", i, n)
		}
	}
}

func TestServerMatchesRecordedOllama(t *testing.T) {
	s := NewServer(t, Options{Models: map[string]int{"glove-100d": 100}, ContextLength: 512})
	checkWire(t, s.URL, wireCases("glove-100d"))
}

func TestServerDimensionsAndCounts(t *testing.T) {
	s := NewServer(t, Options{})
	post := func(body string) []byte {
		t.Helper()
		resp, err := http.Post(s.URL+"/api/embed", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("status %d err %v body %.200s", resp.StatusCode, err, b)
		}
		return b
	}
	var r struct {
		Embeddings      [][]float32
		PromptEvalCount int `json:"prompt_eval_count"`
	}
	json.Unmarshal(post(`{"model":"nomic-embed-text","input":["dog cat"],"dimensions":8}`), &r)
	full := Vector("dog cat", DefaultDims)
	want := normalize(append([]float32(nil), full[:8]...))
	if len(r.Embeddings) != 1 || len(r.Embeddings[0]) != 8 {
		t.Fatalf("dimensions 8: got %v", r.Embeddings)
	}
	for i := range want {
		if math.Abs(float64(r.Embeddings[0][i]-want[i])) > 1e-6 {
			t.Fatalf("dimensions 8: got %v, want %v", r.Embeddings[0], want)
		}
	}
	if r.PromptEvalCount != 4 {
		t.Errorf("prompt_eval_count %d, want 4 (2 words + 2 special tokens)", r.PromptEvalCount)
	}
	json.Unmarshal(post(`{"model":"nomic-embed-text","input":["dog"],"dimensions":5000}`), &r)
	if len(r.Embeddings[0]) != DefaultDims {
		t.Errorf("dimensions beyond the model's: %d values, want %d", len(r.Embeddings[0]), DefaultDims)
	}
	if resp, err := http.Post(s.URL+"/api/embed", "application/json", strings.NewReader(`nope`)); err != nil || resp.StatusCode != 400 {
		t.Fatalf("malformed request: %v %v", resp, err)
	} else {
		resp.Body.Close() // counted, though malformed
	}
	if got := s.Calls(); got != 3 {
		t.Errorf("Calls = %d, want 3", got)
	}
	if in := s.Inputs(); len(in) != 2 || in[0][0] != "dog cat" {
		t.Errorf("Inputs = %q", in)
	}
}

func TestVectorSimilarity(t *testing.T) {
	cos := func(a, b string) float64 {
		x, y := Vector(a, 256), Vector(b, 256)
		var s float64
		for i := range x {
			s += float64(x[i]) * float64(y[i])
		}
		return s
	}
	if near, far := cos("the dog runs in the park", "a dog in a park"), cos("the dog runs in the park", "stock market fell"); near <= far {
		t.Errorf("shared words not closer: %v <= %v", near, far)
	}
	if n := vectest.Norm(Vector("", 16)); math.Abs(n-1) > 1e-6 {
		t.Errorf(`Vector("") norm %v`, n)
	}
}

func TestHangReturnsWhenClientGivesUp(t *testing.T) {
	s := NewServer(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	s.SetFault(func(w http.ResponseWriter, r *http.Request, req Request) bool {
		cancel() // the client gives up while the server hangs
		return s.Hang()(w, r, req)
	})
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+"/api/embed", strings.NewReader(`{"model":"nomic-embed-text","input":"x"}`))
	_, err := http.DefaultClient.Do(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestClosedURL(t *testing.T) {
	_, err := http.Get(ClosedURL(t))
	if err == nil {
		t.Fatal("something answers on ClosedURL")
	}
}

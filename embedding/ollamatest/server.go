// Package ollamatest provides a fake Ollama server for tests: it speaks the
// parts of Ollama's HTTP API that ragd uses exactly as Ollama 0.17.4 does
// (status codes, error texts, empty-input answers, case-insensitive model
// names, truncation, "dimensions"), and the OpenAI embeddings API Ollama
// serves beside it at /v1 (POST /v1/embeddings, GET /v1/models, errors as
// {"error":{"message","type","param","code"}}), embeds text
// deterministically, counts requests, and can be told to fail, hang or
// answer garbage on either.
package ollamatest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Defaults for Options.
const (
	// DefaultModel and DefaultDims are the model the server has when
	// Options.Models is empty: ragd's default.
	DefaultModel = "nomic-embed-text"
	DefaultDims  = 768
	// DefaultVersion is what /api/version answers.
	DefaultVersion = "0.17.4"
	// DefaultContextLength is the model context in tokens (each word is a
	// token, plus two special tokens per text, as for a BERT model).
	DefaultContextLength = 2048
)

// Options configures a Server. The zero value serves DefaultModel.
type Options struct {
	// Models maps the names of the "pulled" models to their dims. Names are
	// as Ollama lists them: "nomic-embed-text" means its ":latest" tag.
	Models map[string]int
	// Version is the answer of /api/version. Default DefaultVersion.
	Version string
	// ContextLength in tokens. Default DefaultContextLength.
	ContextLength int
	// RefuseOverlong makes a text past the context fail its request with
	// HTTP 400 "the input length exceeds the context length" even when
	// truncation is asked for (or, at /v1, implied): what real Ollama
	// 0.17.4 does for some texts with glove-100d's tokenizer, and what
	// servers that never truncate (vLLM, llama.cpp) do.
	RefuseOverlong bool
}

// Request is what a Fault sees of one embedding request, already decoded.
type Request struct {
	Call  int // 1-based number of this embedding request, of either API
	Model string
	Input []string
	// OpenAI is set for POST /v1/embeddings: a Fault then answers in that
	// API's shape (see OpenAIError); the server converts nothing a Fault
	// writes.
	OpenAI bool
	// Dimensions is the request's "dimensions", 0 when absent.
	Dimensions int
	// Authorization is the request's Authorization header.
	Authorization string
}

// Fault decides how the server answers one well-formed /api/embed request
// for a known model. It returns false to let the server answer normally.
// A Fault runs on the server's goroutine: report problems with t.Error,
// never t.Fatal.
type Fault func(w http.ResponseWriter, r *http.Request, req Request) (handled bool)

// Server is a fake Ollama. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:41234, for Config.Host.
	URL string

	srv     *httptest.Server
	opts    Options
	models  map[string]int // model.Name.String() lower-cased → dims
	release chan struct{}  // closed at cleanup: hanging handlers return

	mu     sync.Mutex
	fault  Fault
	calls  int        // /api/embed and /v1/embeddings requests
	inputs [][]string // inputs of the /api/embed requests, in arrival order
}

// NewServer starts a fake Ollama and closes it when the test ends.
func NewServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if len(opts.Models) == 0 {
		opts.Models = map[string]int{DefaultModel: DefaultDims}
	}
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	if opts.ContextLength == 0 {
		opts.ContextLength = DefaultContextLength
	}
	s := &Server{opts: opts, models: map[string]int{}, release: make(chan struct{})}
	for name, dims := range opts.Models {
		if dims <= 0 {
			t.Fatalf("ollamatest: model %q: dims %d", name, dims)
		}
		s.models[canonical(name)] = dims
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	// Cleanups run last-in first-out: hanging handlers are released before
	// Close waits for them.
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() { close(s.release) })
	return s
}

// SetFault makes f decide the answers to /api/embed from now on; nil restores
// normal answers.
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// Calls returns the number of embedding requests received (/api/embed and
// /v1/embeddings), well-formed or not.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Inputs returns the input texts of each well-formed /api/embed request, in
// arrival order.
func (s *Server) Inputs() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]string, len(s.inputs))
	for i, in := range s.inputs {
		out[i] = slices.Clone(in)
	}
	return out
}

// Released is closed when the test ends; a Fault that blocks should also
// return when it is closed.
func (s *Server) Released() <-chan struct{} { return s.release }

// ClosedURL returns the URL of a local port where nothing listens, to play a
// stopped Ollama.
func ClosedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("ollamatest: listen: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatalf("ollamatest: close: %v", err)
	}
	return "http://" + addr
}

// canonical returns the key Ollama matches model names by: fully qualified
// and case-insensitive.
func canonical(name string) string {
	return strings.ToLower(model.ParseName(name).String())
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// Gin's router: a known path with another method is 405, an unknown
	// path 404, both in plain text.
	routes := map[string]struct {
		method string
		h      http.HandlerFunc
	}{
		"/":            {http.MethodGet, s.root},
		"/api/version": {http.MethodGet, s.version},
		"/api/embed":   {http.MethodPost, s.embed},
		"/api/show":    {http.MethodPost, s.show},
		// Ollama's OpenAI-compatible routes.
		"/v1/embeddings": {http.MethodPost, s.openAIEmbeddings},
		"/v1/models":     {http.MethodGet, s.openAIModels},
	}
	route, ok := routes[r.URL.Path]
	switch {
	case !ok:
		plain(w, http.StatusNotFound, "404 page not found")
	case r.Method == route.method || (route.method == http.MethodGet && r.Method == http.MethodHead):
		route.h(w, r)
	default:
		plain(w, http.StatusMethodNotAllowed, "405 method not allowed")
	}
}

func (s *Server) root(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "Ollama is running")
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.opts.Version})
}

func (s *Server) show(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if !decode(w, r, &req) {
		return
	}
	name := req.Model
	n := model.ParseName(name)
	if !n.IsValid() {
		writeError(w, http.StatusInternalServerError, unqualified(n))
		return
	}
	dims, ok := s.models[canonical(name)]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"details":      map[string]any{"format": "gguf", "family": "bert", "families": []string{"bert"}},
		"model_info":   map[string]any{"general.architecture": "bert", "bert.embedding_length": dims, "bert.context_length": s.opts.ContextLength},
		"capabilities": []string{"embedding"},
	})
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls++
	call := s.calls
	fault := s.fault
	s.mu.Unlock()

	var req api.EmbedRequest
	if !decode(w, r, &req) {
		return
	}
	var input []string
	switch in := req.Input.(type) {
	case nil:
	case string:
		if in != "" {
			input = []string{in}
		}
	case []any:
		for _, v := range in {
			str, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			input = append(input, str)
		}
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}

	s.mu.Lock()
	s.inputs = append(s.inputs, slices.Clone(input))
	s.mu.Unlock()

	n := model.ParseName(req.Model)
	if !n.IsValid() {
		writeError(w, http.StatusInternalServerError, unqualified(n))
		return
	}
	dims, ok := s.models[canonical(req.Model)]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if fault != nil && fault(w, r, Request{Call: call, Model: req.Model, Input: slices.Clone(input),
		Dimensions: req.Dimensions, Authorization: r.Header.Get("Authorization")}) {
		return
	}
	if len(input) == 0 {
		writeJSON(w, http.StatusOK, api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}})
		return
	}

	resp, msg := s.compute(req.Model, input, dims, req.Truncate == nil || *req.Truncate, req.Dimensions)
	if msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// compute embeds input as /api/embed does, or returns its 400 message.
func (s *Server) compute(model string, input []string, dims int, truncate bool, dimensions int) (api.EmbedResponse, string) {
	start := time.Now()
	resp := api.EmbedResponse{Model: model, Embeddings: make([][]float32, len(input))}
	for i, text := range input {
		words := Words(text)
		if len(words)+2 > s.opts.ContextLength {
			if !truncate || s.opts.RefuseOverlong {
				return api.EmbedResponse{}, "the input length exceeds the context length"
			}
			words = words[:max(s.opts.ContextLength-2, 0)]
		}
		v := vectorOf(words, dims)
		if dimensions > 0 && dimensions < dims {
			v = normalize(v[:dimensions])
		}
		resp.Embeddings[i] = v
		resp.PromptEvalCount += len(words) + 2
	}
	// Ollama reports real durations; a fixed load time keeps answers
	// comparable with its field set (zero would be omitted).
	resp.LoadDuration = time.Millisecond
	resp.TotalDuration = time.Since(start) + resp.LoadDuration
	return resp, ""
}

// decode reads a JSON request body as Ollama (gin) does, answering 400 on
// failure.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(r.Body).Decode(v)
	switch {
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "missing request body")
		return false
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

// unqualified is Ollama's error for a name it cannot parse, e.g.
// "unqualified name: registry.ollama.ai/library/a b:latest".
func unqualified(n model.Name) string {
	if n.Model == "" {
		n.Model = model.MissingPart
	}
	return "unqualified name: " + n.String()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

func plain(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

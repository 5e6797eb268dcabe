package ollamatest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Hang returns a Fault that answers nothing until the client gives up (its
// request context ends) or the test ends: a hung Ollama, for timeouts.
func (s *Server) Hang() Fault {
	return func(_ http.ResponseWriter, r *http.Request, _ Request) bool {
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		return true
	}
}

// Respond returns a Fault that answers status and body verbatim: JSON
// content type when body is valid JSON, plain text otherwise. Use it for
// error statuses and for bodies the fake would never produce, such as
// "NaN" or 1e39 in a vector.
func Respond(status int, body string) Fault {
	return func(w http.ResponseWriter, _ *http.Request, _ Request) bool {
		if json.Valid([]byte(body)) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "text/plain")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
		return true
	}
}

// WithVectors returns a Fault that answers 200 in the request's API format
// (Ollama's, or an OpenAI embedding list at /v1) with the
// embeddings vectors returns for the request, whatever their number or
// length: for count and dims mismatches and zero vectors.
func WithVectors(vectors func(req Request) [][]float32) Fault {
	return func(w http.ResponseWriter, _ *http.Request, req Request) bool {
		if req.OpenAI {
			list := openAIList{Object: "list", Model: req.Model, Data: []openAIEmbedding{}}
			for i, v := range vectors(req) {
				list.Data = append(list.Data, openAIEmbedding{Object: "embedding", Embedding: v, Index: i})
			}
			writeJSON(w, http.StatusOK, list)
			return true
		}
		writeJSON(w, http.StatusOK, api.EmbedResponse{
			Model:         req.Model,
			Embeddings:    vectors(req),
			TotalDuration: time.Millisecond,
			LoadDuration:  time.Millisecond,
		})
		return true
	}
}

// WithDims returns a Fault that embeds as usual but with dims values per
// vector: another model than the one configured.
func WithDims(dims int) Fault {
	return WithVectors(func(req Request) [][]float32 {
		out := make([][]float32, len(req.Input))
		for i, text := range req.Input {
			out[i] = Vector(text, dims)
		}
		return out
	})
}

// Oversized returns a Fault that streams a well-formed-looking answer of
// about size bytes, without Content-Length, stopping early when the client
// hangs up: a server answering far more than asked for.
func Oversized(size int64) Fault {
	return func(w http.ResponseWriter, r *http.Request, req Request) bool {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		head := `{"model":"` + req.Model + `","embeddings":[[`
		if _, err := io.WriteString(w, head); err != nil {
			return true
		}
		chunk := strings.Repeat("0.012345678,", 32<<10/12)
		for written := int64(len(head)); written < size; written += int64(len(chunk)) {
			if r.Context().Err() != nil {
				return true
			}
			if _, err := io.WriteString(w, chunk); err != nil {
				return true
			}
		}
		io.WriteString(w, "0]]}")
		return true
	}
}

// OnCall returns a Fault that applies f to the n-th /api/embed request only
// (1-based).
func OnCall(n int, f Fault) Fault {
	return func(w http.ResponseWriter, r *http.Request, req Request) bool {
		return req.Call == n && f(w, r, req)
	}
}

// WhenInput returns a Fault that applies f to requests with an input text
// containing substr: a failure tied to content, whatever the order in which
// concurrent batches arrive.
func WhenInput(substr string, f Fault) Fault {
	return func(w http.ResponseWriter, r *http.Request, req Request) bool {
		for _, text := range req.Input {
			if strings.Contains(text, substr) {
				return f(w, r, req)
			}
		}
		return false
	}
}

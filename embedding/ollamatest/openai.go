package ollamatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/ollama/ollama/types/model"
)

// The OpenAI-compatible API as Ollama 0.17.4 serves it (its
// middleware.EmbeddingsMiddleware in front of the /api/embed handler): the
// request is turned into an /api/embed request without "truncate" (so
// texts are cut to the context), the answer into an embedding list, and an
// error into {"error":{"message","type","param","code"}} with the status
// kept and type "api_error" (the middleware writes every error it relays
// with NewError(500, …)); only the middleware's own 400s carry
// "invalid_request_error".

type openAIRequest struct {
	Input          any    `json:"input"`
	Model          string `json:"model"`
	Dimensions     int    `json:"dimensions,omitempty"`
	EncodingFormat string `json:"encoding_format,omitempty"`
}

type openAIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   any     `json:"param"`
	Code    *string `json:"code"`
}

type openAIEmbedding struct {
	Object    string    `json:"object"`
	Embedding []float32 `json:"embedding"`
	Index     int       `json:"index"`
}

type openAIList struct {
	Object string            `json:"object"`
	Data   []openAIEmbedding `json:"data"`
	Model  string            `json:"model"`
	Usage  struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// writeOpenAIError writes the OpenAI error shape. typ "" derives it from
// the status as Ollama's openai.NewError does.
func writeOpenAIError(w http.ResponseWriter, status int, typ, code, msg string) {
	if typ == "" {
		switch status {
		case http.StatusBadRequest:
			typ = "invalid_request_error"
		case http.StatusNotFound:
			typ = "not_found_error"
		default:
			typ = "api_error"
		}
	}
	e := openAIError{Message: msg, Type: typ}
	if code != "" {
		e.Code = &code
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func (s *Server) openAIEmbeddings(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls++
	call := s.calls
	fault := s.fault
	s.mu.Unlock()

	var req openAIRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeOpenAIError(w, http.StatusBadRequest, "", "", err.Error())
		return
	}
	switch req.EncodingFormat {
	case "", "float", "FLOAT", "Float":
	case "base64":
		writeOpenAIError(w, http.StatusBadRequest, "", "", "ollamatest: encoding_format base64 is not faked")
		return
	default:
		writeOpenAIError(w, http.StatusBadRequest, "", "", fmt.Sprintf("Invalid value for 'encoding_format' = %s. Supported values: ['float', 'base64'].", req.EncodingFormat))
		return
	}
	var input []string
	switch in := req.Input.(type) {
	case nil:
		writeOpenAIError(w, http.StatusBadRequest, "", "", "invalid input")
		return
	case string:
		input = []string{in} // "" too: the middleware sends [""]
	case []any:
		if len(in) == 0 {
			writeOpenAIError(w, http.StatusBadRequest, "", "", "invalid input")
			return
		}
		for _, v := range in {
			str, ok := v.(string)
			if !ok {
				writeOpenAIError(w, http.StatusBadRequest, "api_error", "", "invalid input type")
				return
			}
			input = append(input, str)
		}
	default:
		writeOpenAIError(w, http.StatusBadRequest, "api_error", "", "invalid input type")
		return
	}

	s.mu.Lock()
	s.inputs = append(s.inputs, slices.Clone(input))
	s.mu.Unlock()

	n := model.ParseName(req.Model)
	if !n.IsValid() {
		writeOpenAIError(w, http.StatusInternalServerError, "api_error", "", unqualified(n))
		return
	}
	dims, ok := s.models[canonical(req.Model)]
	if !ok {
		writeOpenAIError(w, http.StatusNotFound, "api_error", "", fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if fault != nil && fault(w, r, Request{Call: call, Model: req.Model, Input: slices.Clone(input), OpenAI: true,
		Dimensions: req.Dimensions, Authorization: r.Header.Get("Authorization")}) {
		return
	}
	resp, msg := s.compute(req.Model, input, dims, true, req.Dimensions)
	if msg != "" {
		writeOpenAIError(w, http.StatusBadRequest, "api_error", "", msg)
		return
	}
	list := openAIList{Object: "list", Model: req.Model}
	for i, v := range resp.Embeddings {
		list.Data = append(list.Data, openAIEmbedding{Object: "embedding", Embedding: v, Index: i})
	}
	list.Usage.PromptTokens, list.Usage.TotalTokens = resp.PromptEvalCount, resp.PromptEvalCount
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) openAIModels(w http.ResponseWriter, _ *http.Request) {
	type entry struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	var data []entry
	for name := range s.opts.Models {
		data = append(data, entry{ID: name, Object: "model", Created: time.Unix(0, 0).Unix(), OwnedBy: "library"})
	}
	slices.SortFunc(data, func(a, b entry) int {
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// OpenAIError returns a Fault that answers status with the OpenAI error
// shape, {"error":{"message","type","param":null,"code"}}, and, when
// retryAfter is positive, a Retry-After header in whole seconds: a hosted
// API's 429, 401 or 5xx.
func OpenAIError(status int, typ, code, message string, retryAfter time.Duration) Fault {
	return func(w http.ResponseWriter, _ *http.Request, _ Request) bool {
		if retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
		}
		writeOpenAIError(w, status, typ, code, message)
		return true
	}
}

// RequireKey returns a Fault that answers 401 in the OpenAI error shape,
// as the hosted API does, unless the request carries "Bearer key".
func RequireKey(key string) Fault {
	return func(w http.ResponseWriter, _ *http.Request, req Request) bool {
		if req.Authorization == "Bearer "+key {
			return false
		}
		writeOpenAIError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key",
			"Incorrect API key provided. You can find your API key at your provider's dashboard.")
		return true
	}
}

package daemon

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/source"
)

// Handler returns the daemon's HTTP API. Every route is under /v1; the
// README shows each with a curl --unix-socket example.
func (d *Daemon) Handler() http.Handler {
	mux := http.NewServeMux()
	h := func(pattern string, fn func(http.ResponseWriter, *http.Request) error) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if err := fn(w, r); err != nil {
				d.writeError(w, r, err)
			}
		})
	}
	h("GET /v1/health", d.handleHealth)
	h("GET /v1/projects", d.handleListProjects)
	h("POST /v1/projects", d.handleAddProject)
	h("GET /v1/projects/{project}", d.handleGetProject)
	h("PATCH /v1/projects/{project}", d.handlePatchProject)
	h("DELETE /v1/projects/{project}", d.handleRemoveProject)
	h("POST /v1/projects/{project}/search", d.handleSearch)
	h("POST /v1/projects/{project}/reindex", d.handleReindex)
	h("GET /v1/projects/{project}/coverage", d.handleCoverage)
	h("POST /v1/projects/{project}/events", d.handleAppendEvents)
	h("POST /v1/projects/{project}/events/import", d.handleImportEvents)
	h("GET /v1/projects/{project}/events/{event}", d.handleGetEvent)
	h("DELETE /v1/projects/{project}/sessions/{session}", d.handleForgetSession)
	h("POST /v1/transcripts/import", d.handleTranscriptImport)
	h("GET /v1/transcripts/follow", d.handleFollowStatus)
	h("POST /v1/feedback", d.handleFeedback)
	h("GET /v1/measure", d.handleMeasure)
	return muxErrorsAsJSON(mux)
}

// muxErrorsAsJSON turns the mux's own plain-text 404 (no route) and 405
// (route exists, other method) into the JSON error shape every other answer
// has.
func muxErrorsAsJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&methodWriter{ResponseWriter: w, r: r}, r)
	})
}

type methodWriter struct {
	http.ResponseWriter
	r       *http.Request
	swallow bool
}

func (m *methodWriter) WriteHeader(status int) {
	if (status == http.StatusNotFound || status == http.StatusMethodNotAllowed) &&
		!strings.HasPrefix(m.Header().Get("Content-Type"), "application/json") {
		m.swallow = true
		detail := api.ErrorDetail{Code: api.CodeNotFound, Message: "no route " + m.r.Method + " " + m.r.URL.Path + ": see the README for the API"}
		if status == http.StatusMethodNotAllowed {
			detail = api.ErrorDetail{Code: api.CodeMethodNotAllowed,
				Message: "method " + m.r.Method + " not allowed on " + m.r.URL.Path + " (allowed: " + m.Header().Get("Allow") + ")"}
		}
		m.Header().Del("X-Content-Type-Options")
		writeJSON(m.ResponseWriter, status, api.ErrorBody{Error: detail})
		return
	}
	m.ResponseWriter.WriteHeader(status)
}

func (m *methodWriter) Write(b []byte) (int, error) {
	if m.swallow {
		return len(b), nil
	}
	return m.ResponseWriter.Write(b)
}

// Flush lets streaming handlers flush through the wrapper.
func (m *methodWriter) Flush() {
	if f, ok := m.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (m *methodWriter) Unwrap() http.ResponseWriter { return m.ResponseWriter }

// classify maps domain errors to statuses, in one place.
func (d *Daemon) classify(err error) *httpError {
	switch {
	case errors.Is(err, ragd.ErrNotFound), errors.Is(err, ragd.ErrNotFound):
		return &httpError{http.StatusNotFound, api.CodeNotFound, err.Error()}
	case errors.Is(err, ragd.ErrInvalid):
		return &httpError{http.StatusBadRequest, api.CodeBadRequest, err.Error()}
	case errors.Is(err, index.ErrAlreadyRunning):
		return &httpError{http.StatusConflict, api.CodeAlreadyRunning, err.Error()}
	case errors.Is(err, source.ErrNotRepository), errors.Is(err, source.ErrNoCommits), errors.Is(err, source.ErrNoWorkTree):
		return &httpError{http.StatusBadRequest, api.CodeBadRepository, err.Error()}
	case errors.Is(err, ragd.ErrExists):
		return &httpError{http.StatusConflict, api.CodeExists, err.Error()}
	case errors.Is(err, context.Canceled) && d.ctx.Err() != nil:
		return &httpError{http.StatusServiceUnavailable, api.CodeShuttingDown, "ragd is shutting down: " + err.Error()}
	}
	return &httpError{http.StatusInternalServerError, api.CodeInternal, err.Error()}
}

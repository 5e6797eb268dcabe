package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

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
		mux.HandleFunc(pattern, func(rw http.ResponseWriter, r *http.Request) {
			w := &answerWriter{ResponseWriter: rw, d: d, r: r}
			if err := textualRequest(r); err != nil {
				d.writeError(w, r, err)
				return
			}
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
	h("GET /v1/projects/{project}/passage", d.handlePassage)
	h("GET /v1/projects/{project}/sessions", d.handleListSessions)
	h("GET /v1/projects/{project}/sessions/{session}", d.handleGetSession)
	h("DELETE /v1/projects/{project}/sessions/{session}", d.handleForgetSession)
	h("POST /v1/transcripts/import", d.handleTranscriptImport)
	h("GET /v1/transcripts/follow", d.handleFollowStatus)
	h("POST /v1/sessions/redact", d.handleRedactSessions)
	h("POST /v1/feedback", d.handleFeedback)
	h("GET /v1/measure", d.handleMeasure)
	return muxErrorsAsJSON(mux)
}

// muxErrorsAsJSON makes every answer the JSON error shape, including those
// no handler writes: a path that is not canonical (., .., //, a trailing /)
// is refused here, where the mux would answer a redirect with an HTML body,
// and the mux's own plain-text answers (404 no route, 405 other method, any
// other) are rewritten. What net/http answers before routing (a malformed
// request line or header) stays its plain text: see api.ErrorBody.
func muxErrorsAsJSON(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.EscapedPath(); p != canonicalPath(p) {
			writeJSON(w, http.StatusBadRequest, api.ErrorBody{Error: api.ErrorDetail{Code: api.CodeBadRequest,
				Message: fmt.Sprintf("path %q is not canonical: send %q", p, canonicalPath(p))}})
			return
		}
		if r.Body == http.NoBody {
			liftReadDeadline(w) // nothing to read; the handler may compute for long
		}
		next.ServeHTTP(&methodWriter{ResponseWriter: w, r: r}, r)
	})
}

// canonicalPath is p without ., .., empty segments or a trailing slash: no
// route of the API has them.
func canonicalPath(p string) string {
	if p == "" || p == "*" {
		return "/"
	}
	return path.Clean(p)
}

type methodWriter struct {
	http.ResponseWriter
	r       *http.Request
	swallow bool
}

func (m *methodWriter) WriteHeader(status int) {
	ct := m.Header().Get("Content-Type")
	if status < 300 || strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "application/x-ndjson") {
		m.ResponseWriter.WriteHeader(status)
		return
	}
	// Not written by writeJSON: the mux's own answer.
	m.swallow = true
	var detail api.ErrorDetail
	switch {
	case status == http.StatusNotFound:
		detail = api.ErrorDetail{Code: api.CodeNotFound, Message: "no route " + m.r.Method + " " + m.r.URL.Path + ": see the README for the API"}
	case status == http.StatusMethodNotAllowed:
		detail = api.ErrorDetail{Code: api.CodeMethodNotAllowed,
			Message: "method " + m.r.Method + " not allowed on " + m.r.URL.Path + " (allowed: " + m.Header().Get("Allow") + ")"}
	case status >= 500:
		detail = api.ErrorDetail{Code: api.CodeInternal, Message: m.r.Method + " " + m.r.URL.Path + ": " + http.StatusText(status)}
	default:
		msg := m.r.Method + " " + m.r.URL.Path + ": " + http.StatusText(status)
		if loc := m.Header().Get("Location"); loc != "" {
			msg += ": send " + loc
		}
		detail = api.ErrorDetail{Code: api.CodeBadRequest, Message: msg}
	}
	m.Header().Del("X-Content-Type-Options")
	writeJSON(m.ResponseWriter, status, api.ErrorBody{Error: detail})
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
	case errors.Is(err, ragd.ErrNotFound):
		return &httpError{http.StatusNotFound, api.CodeNotFound, err.Error(), nil}
	case errors.Is(err, ragd.ErrInvalid):
		return &httpError{http.StatusBadRequest, api.CodeBadRequest, err.Error(), nil}
	case errors.Is(err, index.ErrAlreadyRunning):
		return &httpError{http.StatusConflict, api.CodeAlreadyRunning, err.Error(), nil}
	case errors.Is(err, source.ErrNotRepository), errors.Is(err, source.ErrNoCommits), errors.Is(err, source.ErrNoWorkTree):
		return &httpError{http.StatusBadRequest, api.CodeBadRepository, err.Error(), nil}
	case errors.Is(err, ragd.ErrExists):
		return &httpError{http.StatusConflict, api.CodeExists, err.Error(), nil}
	case errors.Is(err, ragd.ErrIndexCorrupt):
		return &httpError{http.StatusServiceUnavailable, api.CodeIndexCorrupt, err.Error() + ": ragd reindex rebuilds it", nil}
	case errors.Is(err, ragd.ErrUnavailable), errors.Is(err, ragd.ErrVectorsUnavailable):
		return &httpError{http.StatusServiceUnavailable, api.CodeDatabaseUnavailable, err.Error(), nil}
	case isTimeout(err):
		return &httpError{status: http.StatusRequestTimeout, code: api.CodeTimeout, msg: "request body: " + err.Error()}
	case errors.Is(err, context.Canceled) && d.ctx.Err() != nil:
		return &httpError{http.StatusServiceUnavailable, api.CodeShuttingDown, "ragd is shutting down: " + err.Error(), nil}
	}
	return &httpError{http.StatusInternalServerError, api.CodeInternal, err.Error(), nil}
}

// textualRequest refuses a path or query value holding a NUL byte or
// invalid UTF-8 (a session id "s%00", an event id "e%FF"): every name the
// API takes (a project, session, event, file or heading) is text, and
// PostgreSQL's text can hold neither, so they are refused here, alike on
// every engine, before any reaches a database.
func textualRequest(r *http.Request) error {
	bad := func(s string) bool { return !utf8.ValidString(s) || strings.ContainsRune(s, 0) }
	if bad(r.URL.Path) {
		return badRequest("the path %q holds a NUL byte or invalid UTF-8: no project, session or event is named so", r.URL.Path)
	}
	for k, vs := range r.URL.Query() {
		for _, v := range vs {
			if bad(k) || bad(v) {
				return badRequest("query parameter %q=%q holds a NUL byte or invalid UTF-8: no file, heading, session or event is named so", k, v)
			}
		}
	}
	return nil
}

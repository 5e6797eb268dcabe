package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/redact"
)

// httpError is an error with its status and code, returned by handlers.
type httpError struct {
	status int
	code   string
	msg    string
	// details, when not nil, is the answer's error.details.
	details any
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, code: api.CodeBadRequest, msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &httpError{status: http.StatusNotFound, code: api.CodeNotFound, msg: fmt.Sprintf(format, args...)}
}

func conflict(code, format string, args ...any) error {
	return &httpError{status: http.StatusConflict, code: code, msg: fmt.Sprintf(format, args...)}
}

// writeJSON writes v with status. It is, with writeError, the only code that
// writes answers. v is encoded before the status is sent: a value JSON
// cannot say (a NaN score) is answered 500 with an error body, never a
// 200 with an empty one.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		if aw, ok := w.(*answerWriter); ok {
			aw.d.logger.Error("request failed", slog.Group("request", "method", aw.r.Method, "path", aw.r.URL.Path),
				slog.Group("response", "status", http.StatusInternalServerError), "err", fmt.Errorf("encode the answer: %w", err))
		}
		status = http.StatusInternalServerError
		buf.Reset()
		enc.Encode(api.ErrorBody{Error: api.ErrorDetail{Code: api.CodeInternal,
			Message: fmt.Sprintf("encode the answer: %v", err)}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// answerWriter is the ResponseWriter every handler writes to: the daemon
// and the request, for what writeJSON logs when an answer cannot be
// encoded. Unwrap keeps http.ResponseController's Flush working.
type answerWriter struct {
	http.ResponseWriter
	d *Daemon
	r *http.Request
}

// Unwrap returns the server's ResponseWriter.
func (w *answerWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusClientGone is the status (nginx's "client closed request") of a
// request whose client went away before its answer: not the daemon's
// failure, so neither a 500 nor an ERROR line.
const statusClientGone = 499

// writeError answers err: its own status for an httpError, 500 otherwise.
// 500s are logged here, once, with the request; handlers never log. Work
// cancelled because its client went away is answered 499 (for whoever
// still reads) and logged at Debug.
func (d *Daemon) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r, err) && d.ctx.Err() == nil {
		d.logger.Debug("client went away", slog.Group("request", "method", r.Method, "path", r.URL.Path), "err", err)
		writeJSON(w, statusClientGone, api.ErrorBody{Error: api.ErrorDetail{Code: api.CodeClientGone,
			Message: "the client went away before the answer: " + err.Error()}})
		return
	}
	he := d.asHTTPError(err)
	if he.status >= 500 {
		d.logger.Error("request failed", slog.Group("request", "method", r.Method, "path", r.URL.Path),
			slog.Group("response", "status", he.status), "err", err)
	}
	writeJSON(w, he.status, api.ErrorBody{Error: he.detail()})
}

// clientGone reports whether err is the cancellation of r's context by
// its client going away.
func clientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// detail is the error shape of he.
func (he *httpError) detail() api.ErrorDetail {
	// An error may quote its input: it is redacted like what is stored.
	ed := api.ErrorDetail{Code: he.code, Message: redact.String(he.msg, nil)}
	if he.details != nil {
		// The details are the daemon's own wire types: they encode.
		ed.Details, _ = json.Marshal(he.details)
	}
	return ed
}

// decodeJSON reads a JSON request body into v: the body at most the
// configured size, its text UTF-8 (checkText), one value, and, when v is a
// struct, no unknown fields.
//
// A body that looks like JSON is parsed as JSON whatever its content type
// says: curl -d sends application/x-www-form-urlencoded, and the README's
// examples are curl -d. The content type matters only for a body that is
// not JSON, refused with 415.
func (d *Daemon) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, d.cfg.Daemon.MaxBodyBytes))
	if isTimeout(err) {
		return &httpError{status: http.StatusRequestTimeout, code: api.CodeTimeout,
			msg: fmt.Sprintf("request body: not received within %s (%d bytes came)", d.limits.Read, len(body))}
	}
	if err != nil {
		return describeDecodeError(err)
	}
	liftReadDeadline(w)
	if !declaredJSON(r) && !looksJSON(body) {
		return &httpError{status: http.StatusUnsupportedMediaType, code: api.CodeUnsupportedMediaType,
			msg: fmt.Sprintf("content type %q and a body that is not JSON: send a JSON body (Content-Type: application/json)", r.Header.Get("Content-Type"))}
	}
	if err := checkText(body); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describeDecodeError(err)
	}
	if dec.More() {
		return badRequest("request body: more than one JSON value (a JSON-lines event file goes to POST /v1/projects/{project}/events/import)")
	}
	return nil
}

// declaredJSON reports whether the request says its body is JSON, or says
// nothing.
func declaredJSON(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// looksJSON reports whether body starts as a JSON object, array or string
// does: such a body gets JSON's own error messages, whatever its type.
func looksJSON(body []byte) bool {
	body = bytes.TrimLeft(body, " \t\r\n")
	return len(body) > 0 && (body[0] == '{' || body[0] == '[' || body[0] == '"')
}

func describeDecodeError(err error) error {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return &httpError{http.StatusRequestEntityTooLarge, api.CodeTooLarge, fmt.Sprintf("request body larger than %d bytes", mbe.Limit), nil}
	case errors.Is(err, io.EOF):
		return badRequest("request body: empty, want a JSON object")
	case errors.As(err, &se):
		return badRequest("request body: malformed JSON at byte %d: %v", se.Offset, err)
	case errors.As(err, &te) && te.Field == "":
		return badRequest("request body: want a JSON object, got %s", te.Value)
	case errors.As(err, &te):
		return badRequest("request body: field %q: want %s, got %s", te.Field, te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("request body: truncated JSON")
	default:
		return badRequest("request body: %v", err)
	}
}

package daemon

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ragd/ragd/api"
)

// TestWriteJSON_EncodingFailureIsA500WithABody: a value JSON cannot say (a
// NaN score from a zero vector) once answered 200 with an empty body, which
// clients read as "decode answer: EOF" (issue 35 item 1).
func TestWriteJSON_EncodingFailureIsA500WithABody(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, map[string]float64{"score": math.NaN()})
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.Code)
	}
	var body api.ErrorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q is not the error shape: %v", rec.Body.String(), err)
	}
	if body.Error.Code != api.CodeInternal || body.Error.Message == "" {
		t.Errorf("error %+v, want code %q with a message", body.Error, api.CodeInternal)
	}
	// A value that encodes is answered whole with its status.
	rec = httptest.NewRecorder()
	writeJSON(rec, http.StatusCreated, map[string]float64{"score": 0.5})
	if rec.Code != http.StatusCreated || rec.Body.String() != "{\"score\":0.5}\n" {
		t.Errorf("answer %d %q", rec.Code, rec.Body.String())
	}
}

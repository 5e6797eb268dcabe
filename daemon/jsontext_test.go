package daemon

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzCheckText: a well-formed body checkText lets through decodes without
// a replacement character it did not already hold, and a body it refuses
// has one to hide.
func FuzzCheckText(f *testing.F) {
	for _, seed := range []string{
		`{"query": "socket"}`,
		`{"id": "\ud800"}`,
		`{"q": "\ud83d\ude00 ok"}`,
		`{"q": "\\ud800"}`,
		`["a", {"b": ["\udc00"]}]`,
		"{\"q\": \"\xff\"}",
		`"\uD83D\uDE00"`,
		`{"q": "\ufffd"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		err := checkText(body)
		if !json.Valid(body) {
			return
		}
		var v any
		if json.Unmarshal(body, &v) != nil {
			return
		}
		out, _ := json.Marshal(v)
		replaced := bytes.Contains(out, []byte("\ufffd")) &&
			!bytes.Contains(body, []byte("\ufffd")) && !strings.Contains(strings.ToLower(string(body)), `\ufffd`)
		if err == nil && replaced {
			t.Errorf("checkText let %q through, decoded with U+FFFD: %s", body, out)
		}
		if err != nil && !replaced && !bytes.Contains(out, []byte("\ufffd")) {
			t.Errorf("checkText refused %q (%v), which decodes without U+FFFD: %s", body, err, out)
		}
	})
}

func TestCheckText_SurrogatePairAccepted(t *testing.T) {
	if err := checkText([]byte(`{"query": "smile \ud83d\ude00", "scopes": ["docs"]}`)); err != nil {
		t.Errorf("a surrogate pair: %v", err)
	}
}

package transcript_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/transcript"
)

// Issue 27 item 18: one huge message (a 197 MB Gemini message cost 3 GB)
// is cut to MaxMessageText; its text says how much was cut, and the
// reading's Skipped counts it. A message within the bound is whole.
func TestRead_HugeMessageCut(t *testing.T) {
	huge := strings.Repeat("é", 3*transcript.MaxMessageText/2) // 3 MiB, two bytes a rune
	small := "Where are sessions stored?"
	doc := fmt.Sprintf(`{"sessionId": "s1", "projectHash": "PH", "startTime": "2026-01-04T08:00:00Z", "messages": [
		{"id": "g1", "timestamp": "2026-01-04T08:00:01Z", "type": "user", "content": %q},
		{"id": "g2", "timestamp": "2026-01-04T08:00:02Z", "type": "user", "content": %q}]}`, huge, small)
	jsonl := fmt.Sprintf(`{"sessionId": "c1", "cwd": "/p", "type": "user", "uuid": "u1", "timestamp": "2026-01-02T10:00:00Z", "message": {"role": "user", "content": %q}}`+"\n", huge)
	for _, tc := range []struct {
		format transcript.Format
		name   string
		text   string
	}{
		{transcript.Gemini, "/x/chats/session-1.json", doc},
		{transcript.ClaudeCode, "/x/c1.jsonl", jsonl},
	} {
		var texts []string
		st, err := transcript.Read(tc.format, strings.NewReader(tc.text), tc.name, transcript.Options{},
			func(_ *transcript.Session, e ragd.Event) error {
				texts = append(texts, e.Text)
				return nil
			})
		if err != nil || len(texts) == 0 {
			t.Fatalf("%s: %v, %d events", tc.format, err, len(texts))
		}
		got := texts[0]
		cut := len(huge) - transcript.MaxMessageText
		marker := fmt.Sprintf("[… cut by ragd: %d more bytes of this message]", cut)
		if len(got) > transcript.MaxMessageText+len(marker)+1 || !strings.HasSuffix(got, marker) ||
			!strings.HasPrefix(huge, strings.TrimSuffix(got, "\n"+marker)) {
			t.Errorf("%s: a message of %d bytes read as %d bytes ending %q; want %d bytes and the marker %q",
				tc.format, len(huge), len(got), got[max(0, len(got)-80):], transcript.MaxMessageText, marker)
		}
		if n := st.Skipped[fmt.Sprintf("message text beyond %d bytes (cut)", transcript.MaxMessageText)]; n != 1 {
			t.Errorf("%s: skipped %v, want the one message cut counted", tc.format, st.Skipped)
		}
		if tc.format == transcript.Gemini && (len(texts) != 2 || texts[1] != small) {
			t.Errorf("%s: the small message read as %q", tc.format, texts[1:])
		}
	}
}

package transcript

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// FuzzCrushParts reads any parts column as a message of a Crush-schema
// database (the database itself is SQLite's to parse): no failure, only
// valid events.
func FuzzCrushParts(f *testing.F) {
	f.Add(`[{"type":"text","data":{"text":"Why?"}},{"type":"binary","data":{"mime_type":"image/png"}}]`, "user", true)
	f.Add(`[{"type":"reasoning","data":{"thinking":"x"}},{"type":"tool_call","data":{"id":"c1","name":"grep","input":"{}"}}]`, "assistant", true)
	f.Add(`[{"type":"tool_result","data":{"tool_call_id":"c1","content":"ok","is_error":true}}]`, "tool", false)
	f.Add(`[{"type":"finish","data":{"reason":"error","message":"API Error"}}]`, "assistant", true)
	f.Add(`{"type":"text"}`, "user", true)
	f.Fuzz(func(t *testing.T, parts, role string, finished bool) {
		events := 0
		rd := newReader(Crush, "/repo/.crush/crush.db", Options{}, func(s *Session, e ragd.Event) error {
			events++
			if err := e.Validate(); err != nil {
				t.Fatalf("invalid event %+v: %v", e, err)
			}
			return nil
		})
		rd.scoped = true
		rd.setSession("s")
		if err := crushMessage(rd, crushRow{ID: "m", Session: "s", Role: role, Parts: parts, Created: 1754315290, Finished: finished}); err != nil {
			t.Fatal(err)
		}
		if rd.st.Messages+rd.st.Mechanism != events {
			t.Fatalf("stats count %d+%d events, fn saw %d", rd.st.Messages, rd.st.Mechanism, events)
		}
	})
}

// FuzzOpenCodeParts reads any message and part data as OpenCode's.
func FuzzOpenCodeParts(f *testing.F) {
	f.Add(`{"role":"user","time":{"created":1706459830000}}`, `{"type":"text","text":"Why?"}`, `{"type":"file","mime":"image/png"}`)
	f.Add(`{"role":"assistant","time":{"created":1706459831000,"completed":1706459835000}}`, `{"type":"tool","tool":"bash","state":{"status":"completed","input":{},"output":"ok"}}`, `{"type":"reasoning","text":"x"}`)
	f.Add(`{"role":"assistant","time":{"created":1}}`, `{"type":"text","synthetic":true,"text":"x"}`, `[]`)
	f.Fuzz(func(t *testing.T, msg, part1, part2 string) {
		events := 0
		rd := newReader(OpenCode, "/d/opencode.db", Options{}, func(s *Session, e ragd.Event) error {
			events++
			if err := e.Validate(); err != nil {
				t.Fatalf("invalid event %+v: %v", e, err)
			}
			return nil
		})
		rd.scoped = true
		s := rd.setSession("s")
		turn := &openCodeTurn{id: "m", session: s, raw: msg, parts: []openCodeRawPart{{"p1", part1}, {"p2", part2}}}
		if json.Unmarshal([]byte(msg), &turn.msg) != nil {
			turn.bad = true
		}
		if err := openCodeEmit(rd, turn); err != nil {
			t.Fatal(err)
		}
		if rd.st.Messages+rd.st.Mechanism != events {
			t.Fatalf("stats count %d+%d events, fn saw %d", rd.st.Messages, rd.st.Mechanism, events)
		}
	})
}

// FuzzCursorBubbles reads any bubbles as a Cursor conversation's.
func FuzzCursorBubbles(f *testing.F) {
	f.Add(`[{"type":"user","id":"b1","text":"Add a sidebar"},{"type":"ai","id":"b2","text":"Here."},{"type":"user","text":""}]`)
	f.Add(`[{"type":1,"bubbleId":"c1","text":"x"},{"type":2,"bubbleId":"c1","rawText":"y"},{"type":[3]}]`)
	f.Fuzz(func(t *testing.T, bubbles string) {
		var bs []cursorBubble
		if json.Unmarshal([]byte(bubbles), &bs) != nil {
			return
		}
		events := 0
		rd := newReader(Cursor, "/w/state.vscdb", Options{}, func(s *Session, e ragd.Event) error {
			events++
			if err := e.Validate(); err != nil {
				t.Fatalf("invalid event %+v: %v", e, err)
			}
			return nil
		})
		rd.scoped = true
		if err := rd.cursorConversation("c", "title", "", time.Unix(1731784818, 0), bs); err != nil {
			t.Fatal(err)
		}
		if rd.st.Messages+rd.st.Mechanism != events {
			t.Fatalf("stats count %d+%d events, fn saw %d", rd.st.Messages, rd.st.Mechanism, events)
		}
	})
}

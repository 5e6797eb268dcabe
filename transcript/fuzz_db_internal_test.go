package transcript

import (
	"testing"

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

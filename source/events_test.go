package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/ragd/ragd"
)

const good = `{"id":"e1","sessionId":"s1","type":"chat.message","actor":"person","text":"hello","time":"2026-11-29T12:00:00Z"}`

// line builds one event line from fields, for tests that vary one field.
func line(fields map[string]any) string {
	base := map[string]any{
		"id": "e1", "sessionId": "s1", "type": "chat.message", "actor": "person",
		"text": "hello", "time": "2026-11-29T12:00:00Z",
	}
	for k, v := range fields {
		if v == nil {
			delete(base, k)
		} else {
			base[k] = v
		}
	}
	b, err := json.Marshal(base)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// readAll runs ReadEvents on input and returns the events handed to fn.
func readAll(t *testing.T, input string) ([]ragd.Event, Stats) {
	t.Helper()
	var got []ragd.Event
	st, err := ReadEvents(strings.NewReader(input), func(e ragd.Event) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadEvents: %v", err)
	}
	if st.Lines != st.Blank+st.OK+st.Bad || st.OK != len(got) {
		t.Errorf("inconsistent stats %+v for %d events", st, len(got))
	}
	return got, st
}

func TestReadEventsGoodLines(t *testing.T) {
	input := good + "\n" +
		`{"id":"e2","sessionId":"s1","type":"agent.response","actor":"agent","text":"hi there","time":"2026-11-29T12:00:05.25+01:00","title":"Greeting","payload":{"model":"m", "tokens": [1, 2]},"extra":"ignored"}` + "\n" +
		`{"id":"e3","sessionId":"s1","type":"tool.call","actor":"tool","time":"2026-11-29T12:00:06Z","payload":null}` + "\n"
	got, st := readAll(t, input)
	if st.Lines != 3 || st.OK != 3 || st.Bad != 0 || st.Blank != 0 || st.Duplicates != 0 || st.Errors != nil {
		t.Errorf("stats %+v", st)
	}
	want := []ragd.Event{
		{ID: "e1", SessionID: "s1", Type: "chat.message", Actor: "person", Text: "hello",
			Time: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)},
		{ID: "e2", SessionID: "s1", Type: "agent.response", Actor: "agent", Text: "hi there",
			Time:    time.Date(2026, 11, 29, 11, 0, 5, 250e6, time.UTC),
			Title:   "Greeting",
			Payload: json.RawMessage(`{"model":"m", "tokens": [1, 2]}`)},
		{ID: "e3", SessionID: "s1", Type: "tool.call", Actor: "tool",
			Time: time.Date(2026, 11, 29, 12, 0, 6, 0, time.UTC)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if !eventsEqual(got[i], want[i]) {
			t.Errorf("event %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, off := got[1].Time.Zone(); off != 3600 {
		t.Errorf("time zone offset %d, want the file's +01:00 kept", off)
	}
}

func eventsEqual(a, b ragd.Event) bool {
	return a.ID == b.ID && a.SessionID == b.SessionID && a.Type == b.Type && a.Actor == b.Actor &&
		a.Text == b.Text && a.Time.Equal(b.Time) && a.Title == b.Title && bytes.Equal(a.Payload, b.Payload)
}

func TestReadEventsMalformedLines(t *testing.T) {
	for _, tc := range []struct {
		name, line, reason string
	}{
		{"not JSON", `{"id":"e1",`, "invalid JSON"},
		{"garbage", `hello`, "not a JSON object"},
		{"array", `[1,2]`, "not a JSON object"},
		{"null", `null`, "not a JSON object"},
		{"string", `"x"`, "not a JSON object"},
		{"trailing data", good + ` {}`, "invalid JSON"},
		{"missing id", line(map[string]any{"id": nil}), "missing id"},
		{"blank id", line(map[string]any{"id": "  "}), "missing id"},
		{"null id", line(map[string]any{"id": json.RawMessage("null")}), "missing id"},
		{"missing sessionId", line(map[string]any{"sessionId": nil}), "missing sessionId"},
		{"missing type", line(map[string]any{"type": nil}), "missing type"},
		{"missing actor", line(map[string]any{"actor": ""}), "missing actor"},
		{"missing time", line(map[string]any{"time": nil}), "missing time"},
		{"missing text", line(map[string]any{"text": nil}), "missing text for type chat.message"},
		{"blank text", line(map[string]any{"type": "agent.response", "text": " \n"}), "missing text for type agent.response"},
		{"bad time", line(map[string]any{"time": "yesterday"}), `bad time "yesterday"`},
		{"time without zone", line(map[string]any{"time": "2026-11-29T12:00:00"}), "bad time"},
		{"date only", line(map[string]any{"time": "2026-11-29"}), "bad time"},
		{"zero time", line(map[string]any{"time": "0001-01-01T00:00:00Z"}), "the zero time"},
		{"time as number", line(map[string]any{"time": 1764417600}), "field time: expected string, got number"},
		{"text as number", line(map[string]any{"text": 5}), "field text: expected string, got number"},
		{"invalid UTF-8", `{"id":"e1","sessionId":"s1","type":"chat.message","actor":"person","text":"caf` + "\xe9" + `","time":"2026-11-29T12:00:00Z"}`, "invalid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := good + "\n" + tc.line + "\n" + strings.Replace(good, "e1", "e9", 1) + "\n"
			got, st := readAll(t, input)
			if st.OK != 2 || st.Bad != 1 || len(got) != 2 || got[1].ID != "e9" {
				t.Errorf("stats %+v, events %v: want the bad line skipped and the rest read", st, got)
			}
			if len(st.Errors) != 1 || st.Errors[0].Line != 2 || !strings.Contains(st.Errors[0].Reason, tc.reason) {
				t.Errorf("errors %+v, want line 2: %q", st.Errors, tc.reason)
			}
			if _, err := ParseEvent([]byte(tc.line)); !errors.Is(err, ragd.ErrInvalidEvent) {
				t.Errorf("ParseEvent error %v, want ragd.ErrInvalidEvent", err)
			}
		})
	}
}

func TestReadEventsLineHandling(t *testing.T) {
	second := strings.Replace(good, "e1", "e2", 1)
	for _, tc := range []struct {
		name, input  string
		lines, blank int
	}{
		{"empty input", "", 0, 0},
		{"blank lines", "\n" + good + "\n\n  \t \n" + second + "\n\n", 6, 4},
		{"CRLF", good + "\r\n\r\n" + second + "\r\n", 3, 1},
		{"no final newline", good + "\n" + second, 2, 0},
		{"final CR without LF", good + "\n" + second + "\r", 2, 0},
		{"byte order mark", "\ufeff" + good + "\n" + second + "\n", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, st := readAll(t, tc.input)
			wantOK := 2
			if tc.input == "" {
				wantOK = 0
			}
			if st.Lines != tc.lines || st.Blank != tc.blank || st.OK != wantOK || st.Bad != 0 {
				t.Errorf("stats %+v; want %d lines, %d blank, %d ok", st, tc.lines, tc.blank, wantOK)
			}
			for _, e := range got {
				if strings.ContainsAny(e.Text, "\r\n") {
					t.Errorf("line ending leaked into %+v", e)
				}
			}
		})
	}
}

func TestReadEventsLongLines(t *testing.T) {
	// A valid event padded to exactly MaxLineBytes is accepted; one byte
	// more is not, and the line after it is still read.
	pad := func(n int) string {
		l := line(map[string]any{"text": ""})
		l = line(map[string]any{"text": strings.Repeat("x", n-len(l))})
		if len(l) != n {
			t.Fatalf("padded line is %d bytes, want %d", len(l), n)
		}
		return l
	}
	exact := pad(MaxLineBytes)
	tooLong := strings.Replace(pad(MaxLineBytes+1), `"e1"`, `"e2"`, 1)
	huge := strings.Repeat("y", 5*MaxLineBytes)
	last := strings.Replace(good, "e1", "e3", 1)
	input := exact + "\r\n" + tooLong + "\n" + huge + "\n" + last

	got, st := readAll(t, input)
	if st.Lines != 4 || st.OK != 2 || st.Bad != 2 || len(got) != 2 || got[0].ID != "e1" || got[1].ID != "e3" {
		t.Fatalf("stats %+v, %d events", st, len(got))
	}
	for i, e := range st.Errors {
		if e.Line != i+2 || !strings.Contains(e.Reason, "line too long") {
			t.Errorf("error %d = %+v, want line %d too long", i, e, i+2)
		}
	}
}

func TestReadEventsDuplicates(t *testing.T) {
	same := `{"id":"e1","sessionId":"s1","type":"chat.message","actor":"person","text":"hello","time":"2026-11-29T13:00:00+01:00","payload":{"a": 1}}`
	first := strings.Replace(same, `"payload":{"a": 1}`, `"payload":{"a":1}`, 1)
	first = strings.Replace(first, "13:00:00+01:00", "12:00:00Z", 1)
	different := strings.Replace(same, "hello", "changed", 1)
	otherPayload := strings.Replace(same, `{"a": 1}`, `{"a": 2}`, 1)
	input := first + "\n" + same + "\n" + different + "\n" + otherPayload + "\n" + strings.Replace(good, "e1", "e2", 1)

	got, st := readAll(t, input)
	if st.OK != 3 || st.Duplicates != 1 || st.Bad != 2 || len(got) != 3 {
		t.Fatalf("stats %+v, %d events", st, len(got))
	}
	for i, e := range st.Errors {
		if e.Line != i+3 || !strings.Contains(e.Reason, `duplicate id "e1" with different content (first on line 1)`) {
			t.Errorf("error %+v", e)
		}
	}
}

func TestReadEventsUnknownType(t *testing.T) {
	got, st := readAll(t, line(map[string]any{"type": "session.renamed", "text": nil, "title": "New name"}))
	if st.OK != 1 || got[0].Type != "session.renamed" || got[0].Title != "New name" {
		t.Errorf("stats %+v events %+v", st, got)
	}
	for typ, want := range map[string]bool{
		ragd.TypeChatMessage: true, ragd.TypeAgentResponse: true, "session.renamed": false,
		"tool.call": false, "": false, "Chat.Message": false,
	} {
		if ragd.Indexed(typ) != want {
			t.Errorf("ragd.Indexed(%q) = %v", typ, !want)
		}
	}
}

func TestReadEventsErrors(t *testing.T) {
	input := good + "\n" + strings.Replace(good, "e1", "e2", 1) + "\n"

	stop := errors.New("storage full")
	st, err := ReadEvents(strings.NewReader(input), func(e ragd.Event) error {
		if e.ID == "e2" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !strings.Contains(err.Error(), "line 2") || st.OK != 2 {
		t.Errorf("fn error: %v, stats %+v", err, st)
	}

	broken := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(good+"\n"), iotest.ErrReader(broken))
	st, err = ReadEvents(r, nil)
	if !errors.Is(err, broken) || st.OK != 1 {
		t.Errorf("reader error: %v, stats %+v", err, st)
	}

	// A nil fn validates only.
	st, err = ReadEvents(iotest.OneByteReader(strings.NewReader(input+"junk\n")), nil)
	if err != nil || st.OK != 2 || st.Bad != 1 {
		t.Errorf("validate only: %v, %+v", err, st)
	}
}

func TestReadEventsCapsErrors(t *testing.T) {
	input := strings.Repeat("junk\n", MaxLineErrors+5)
	_, st := readAll(t, input)
	if st.Bad != MaxLineErrors+5 || len(st.Errors) != MaxLineErrors || st.Errors[MaxLineErrors-1].Line != MaxLineErrors {
		t.Errorf("bad %d, %d errors kept", st.Bad, len(st.Errors))
	}
}

func TestValidate(t *testing.T) {
	ok := ragd.Event{ID: "e1", SessionID: "s1", Type: ragd.TypeChatMessage, Actor: "person", Text: "hi",
		Time: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid event: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*ragd.Event)
		reason string
	}{
		{"no id", func(e *ragd.Event) { e.ID = "" }, "missing id"},
		{"no session", func(e *ragd.Event) { e.SessionID = " " }, "missing sessionId"},
		{"no type", func(e *ragd.Event) { e.Type = "" }, "missing type"},
		{"no actor", func(e *ragd.Event) { e.Actor = "" }, "missing actor"},
		{"no time", func(e *ragd.Event) { e.Time = time.Time{} }, "missing time"},
		{"no text", func(e *ragd.Event) { e.Text = "" }, "missing text"},
		{"bad UTF-8 text", func(e *ragd.Event) { e.Text = "caf\xe9" }, "invalid UTF-8 in text"},
		{"bad UTF-8 title", func(e *ragd.Event) { e.Title = "\xff" }, "invalid UTF-8 in title"},
		{"bad payload", func(e *ragd.Event) { e.Payload = json.RawMessage(`{`) }, "payload is not valid JSON"},
	} {
		e := ok
		tc.change(&e)
		err := e.Validate()
		if !errors.Is(err, ragd.ErrInvalidEvent) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: Validate() = %v, want %q", tc.name, err, tc.reason)
		}
	}
	other := ok
	other.Type, other.Text = "tool.call", ""
	if err := other.Validate(); err != nil {
		t.Errorf("unindexed type without text: %v", err)
	}
}

// TestEventRoundTrip checks that encoding/json's rendering of ragd.Event is the
// file format.
func TestEventRoundTrip(t *testing.T) {
	in := ragd.Event{ID: "e1", SessionID: "s1", Type: ragd.TypeAgentResponse, Actor: "agent", Text: "a\nb \"q\"",
		Time:    time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.FixedZone("", -5*3600)),
		Title:   "T",
		Payload: json.RawMessage(`{"k":[1,2]}`)}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ParseEvent(b)
	if err != nil {
		t.Fatalf("ParseEvent(%s): %v", b, err)
	}
	if !eventsEqual(in, out) {
		t.Errorf("round trip: %+v, want %+v", out, in)
	}
	if !strings.Contains(string(b), `"sessionId":"s1"`) {
		t.Errorf("encoding %s lacks sessionId", b)
	}
}

func TestLineError(t *testing.T) {
	if got := (ragd.LineError{Line: 7, Reason: "missing id"}).Error(); got != "line 7: missing id" {
		t.Errorf("Error() = %q", got)
	}
}

func FuzzReadEvents(f *testing.F) {
	for _, s := range []string{
		"",
		good,
		good + "\r\n\n" + good + "\n",
		"\ufeff" + good,
		`{"id":"e1"}`,
		"{\"id\":\"e1\",\"text\":\"\xff\"}\n",
		line(map[string]any{"type": "x", "payload": []int{1}}),
		line(map[string]any{"time": "2026-11-29T12:00:00.5-07:00"}) + "\n" + good,
		"null\n[]\n{}\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		st, err := ReadEvents(bytes.NewReader(data), func(e ragd.Event) error {
			n++
			if err := e.Validate(); err != nil {
				t.Errorf("handed an invalid event: %v", err)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("ReadEvents: %v", err)
		}
		if st.Lines != st.Blank+st.OK+st.Bad || st.OK != n || st.Duplicates > st.OK {
			t.Errorf("inconsistent stats %+v with %d events", st, n)
		}
		if want := min(st.Bad, MaxLineErrors); len(st.Errors) != want {
			t.Errorf("%d errors kept, want %d", len(st.Errors), want)
		}
		prev := 0
		for _, e := range st.Errors {
			if e.Line <= prev || e.Line > st.Lines || e.Reason == "" {
				t.Errorf("bad line error %+v after line %d of %d", e, prev, st.Lines)
			}
			prev = e.Line
		}
		if maxLines := bytes.Count(data, []byte("\n")) + 1; st.Lines > maxLines {
			t.Errorf("%d lines counted in input with at most %d", st.Lines, maxLines)
		}
	})
}

package source

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/ragd/ragd"
)

// MaxLineBytes is the longest line ReadEvents accepts, line ending excluded.
const MaxLineBytes = 1 << 20

// MaxLineErrors is how many LineErrors Stats keeps; Stats.Bad counts them
// all. The cap keeps a file of garbage from costing memory in proportion.
const MaxLineErrors = 1000

// Stats counts what ReadEvents saw. When it returns no error,
// Lines == Blank + OK + Bad.
type Stats struct {
	Lines int // lines read, blank ones included
	Blank int // blank lines, ignored
	OK    int // valid events, all handed to fn
	Bad   int // malformed lines, skipped
	// Duplicates counts valid events repeating an earlier id with the same
	// content; they are included in OK and handed to fn, since appending
	// is idempotent.
	Duplicates int
	// Errors are the first MaxLineErrors malformed lines, in order.
	Errors []ragd.LineError
}

// ReadEvents reads a session event file from r, calling fn (if not nil)
// with each valid event in order. A malformed line is recorded in
// Stats.Errors and skipped, and reading goes on. ReadEvents stops at the
// first error from r, which it returns wrapped, or from fn, which it
// returns wrapped with the line number.
//
// # Session event file format
//
// A session event file is UTF-8 text holding one JSON object per line
// (JSON Lines). Lines end in LF or CRLF; blank lines are ignored; a UTF-8
// byte order mark at the start is ignored. Example:
//
//	{"id":"e1","sessionId":"s1","type":"chat.message","actor":"person","text":"Why SQLite?","time":"2026-11-29T12:00:00Z","title":"Storage"}
//	{"id":"e2","sessionId":"s1","type":"agent.response","actor":"agent","text":"Because ...","time":"2026-11-29T12:00:05.25+01:00"}
//	{"id":"e3","sessionId":"s1","type":"tool.call","actor":"tool","time":"2026-11-29T12:00:06Z","payload":{"name":"grep","args":["-r","x"]}}
//
// Fields:
//   - id (string, required): the event's id.
//   - sessionId (string, required): the session it belongs to.
//   - type (string, required): "chat.message" and "agent.response" are
//     indexed for search; any other type is accepted and stored, not
//     indexed.
//   - actor (string, required): who produced it, free-form: "person",
//     "agent", "tool", ...
//   - time (string, required): RFC 3339 with a zone, such as
//     2026-11-29T12:00:00Z; fractional seconds allowed.
//   - text (string): required for chat.message and agent.response.
//   - title (string, optional): the session's title.
//   - payload (any JSON, optional): kept verbatim.
//
// Required strings must not be blank. Unknown fields are ignored, so newer
// writers can add some. A line is malformed, reported with its number and
// skipped, if it is longer than 1 MiB, is not valid UTF-8 (rejected rather
// than repaired, so what is stored is what the file says), is not one JSON
// object, has a field of the wrong type, lacks a required field, or has a
// bad time. An id seen earlier in the same file with the same content is a
// harmless repeat; with different content (other than JSON whitespace in
// payload, or another zone for the same instant) the later line is
// malformed.
func ReadEvents(r io.Reader, fn func(ragd.Event) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 64<<10)
	seen := make(map[string]seenEvent)
	var buf []byte
	for {
		line, tooLong, err := readLine(br, buf[:0])
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, fmt.Errorf("source: reading events after line %d: %w", st.Lines, err)
		}
		buf = line
		st.Lines++
		n := st.Lines
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if tooLong {
			st.bad(n, "line too long: more than "+strconv.Itoa(MaxLineBytes)+" bytes")
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			st.Blank++
			continue
		}
		e, reason := parseEvent(line)
		if reason != "" {
			st.bad(n, reason)
			continue
		}
		sum := fingerprint(e)
		if prev, ok := seen[e.ID]; ok {
			if prev.sum != sum {
				st.bad(n, fmt.Sprintf("duplicate id %q with different content (first on line %d)", e.ID, prev.line))
				continue
			}
			st.Duplicates++
		} else {
			seen[e.ID] = seenEvent{line: n, sum: sum}
		}
		st.OK++
		if fn != nil {
			if err := fn(e); err != nil {
				return st, fmt.Errorf("source: event %q on line %d: %w", e.ID, n, err)
			}
		}
	}
}

func (st *Stats) bad(line int, reason string) {
	st.Bad++
	if len(st.Errors) < MaxLineErrors {
		st.Errors = append(st.Errors, ragd.LineError{Line: line, Reason: reason})
	}
}

// readLine is ragd.ReadLine at MaxLineBytes: one line reader for every
// line-by-line file.
func readLine(br *bufio.Reader, buf []byte) (line []byte, tooLong bool, err error) {
	line, _, tooLong, _, err = ragd.ReadLine(br, buf, MaxLineBytes)
	return line, tooLong, err
}

type seenEvent struct {
	line int
	sum  [sha256.Size]byte
}

// fingerprint hashes the content of e, so that the duplicate check holds
// 32 bytes per event rather than the event. Time is compared as an
// instant and payload as compacted JSON.
func fingerprint(e ragd.Event) [sha256.Size]byte {
	h := sha256.New()
	field := func(b []byte) {
		// Length-prefixed, so no content can imitate a field boundary.
		h.Write(binary.AppendUvarint(nil, uint64(len(b))))
		h.Write(b)
	}
	for _, s := range []string{e.ID, e.SessionID, e.Type, e.Actor, e.Text, e.Title} {
		field([]byte(s))
	}
	field([]byte(e.Time.UTC().Format(time.RFC3339Nano)))
	var payload bytes.Buffer
	if err := json.Compact(&payload, e.Payload); err != nil {
		payload.Reset()
		payload.Write(e.Payload)
	}
	field(payload.Bytes())
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

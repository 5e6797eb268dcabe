package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
)

// Set is a set of judged queries and what was noticed reading them.
type Set struct {
	// Name says where the queries come from: a file name, a BEIR folder, or
	// "telemetry".
	Name    string
	Queries []*Query
	// Warnings are problems that do not stop the evaluation: citations of
	// files that exist but are not indexed, unknown ids in qrels…
	Warnings []string
}

// Judged returns the queries with at least one relevant citation: the
// ones every mean is taken over.
func (s *Set) Judged() []*Query {
	var out []*Query
	for _, q := range s.Queries {
		if len(q.Relevant) > 0 {
			out = append(out, q)
		}
	}
	return out
}

// Counts summarises a set.
type Counts struct {
	Queries int `json:"queries"`
	// Judged queries have at least one relevant citation; NoRelevant have
	// none (none given, or all unresolvable) and are left out of the means.
	Judged     int `json:"judged"`
	NoRelevant int `json:"noRelevant"`
	// Relevant counts the relevant citations of judged queries;
	// Unresolvable the citations naming nothing that exists.
	Relevant     int `json:"relevant"`
	Unresolvable int `json:"unresolvable"`
}

// Counts counts s's queries and citations.
func (s *Set) Counts() Counts {
	var c Counts
	for _, q := range s.Queries {
		c.Queries++
		if len(q.Relevant) > 0 {
			c.Judged++
		} else {
			c.NoRelevant++
		}
		c.Relevant += len(q.Relevant)
		c.Unresolvable += len(q.Unresolvable)
	}
	return c
}

// Merge appends o's queries and warnings to s. Query ids must stay unique:
// o's are prefixed with prefix when they clash.
func (s *Set) Merge(o *Set, prefix string) {
	ids := map[string]bool{}
	for _, q := range s.Queries {
		ids[q.ID] = true
	}
	for _, q := range o.Queries {
		if ids[q.ID] {
			q.ID = prefix + q.ID
		}
		ids[q.ID] = true
		s.Queries = append(s.Queries, q)
	}
	s.Warnings = append(s.Warnings, o.Warnings...)
	if s.Name == "" {
		s.Name = o.Name
	} else if o.Name != "" {
		s.Name += " + " + o.Name
	}
}

// maxLineErrors bounds the errors one read reports.
const maxLineErrors = 20

// lineErrors collects file:line errors.
type lineErrors struct {
	name string
	errs []error
	more int
}

func (le *lineErrors) add(line int, format string, args ...any) {
	if len(le.errs) == maxLineErrors {
		le.more++
		return
	}
	le.errs = append(le.errs, fmt.Errorf("%s:%d: %s", le.name, line, fmt.Sprintf(format, args...)))
}

func (le *lineErrors) err() error {
	if len(le.errs) == 0 {
		return nil
	}
	if le.more > 0 {
		le.errs = append(le.errs, fmt.Errorf("%s: … and %d more errors", le.name, le.more))
	}
	return errors.Join(le.errs...)
}

// goldenLine is one line of a golden set.
type goldenLine struct {
	ID       json.RawMessage  `json:"id"`
	Query    *string          `json:"query"`
	Scopes   []string         `json:"scopes"`
	Relevant []goldenCitation `json:"relevant"`
}

type goldenCitation struct {
	SourcePath  string   `json:"sourcePath"`
	HeadingPath []string `json:"headingPath"`
	SessionID   string   `json:"sessionId"`
	EventID     string   `json:"eventId"`
	Grade       *int     `json:"grade"`
}

// maxGoldenLine is the longest golden-set line read.
const maxGoldenLine = 1 << 20

// ReadGoldenFile reads a golden set from a file; see ParseGolden.
func ReadGoldenFile(name string) (*Set, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("golden set: %w", err)
	}
	defer f.Close()
	return ParseGolden(f, name)
}

// ParseGolden reads a golden set: JSON lines
//
//	{"id"?: "q1", "query": "...", "scopes"?: ["adr"],
//	 "relevant": [{"sourcePath": "docs/adr/0002-x.md", "headingPath"?: ["Decision"], "grade"?: 2},
//	              {"sessionId": "s1", "eventId"?: "e5"}]}
//
// Blank lines are skipped. id is a string or a number, and defaults to the
// query text; grade defaults to 1, and a citation of grade 0 (judged not
// relevant) is dropped. Every problem is reported, each as name:line: a
// line that is not one JSON object, an unknown field, a missing or invalid
// query, a citation that is neither a file nor a session (or both), a
// negative grade, an unknown scope, a repeated id. A query without
// relevant citations is kept (it is counted apart) with a warning.
func ParseGolden(r io.Reader, name string) (*Set, error) {
	set := &Set{Name: path.Base(name)}
	le := &lineErrors{name: name}
	firstLine := map[string]int{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		raw, tooLong, err := readLine(br, maxGoldenLine)
		if tooLong {
			le.add(n, "line longer than %d bytes", maxGoldenLine)
		} else if line := bytes.TrimSpace(raw); len(line) > 0 {
			if q := parseGoldenLine(line, n, name, le); q != nil {
				if first, ok := firstLine[q.ID]; ok {
					le.add(n, "duplicate query id %q (first on line %d)", q.ID, first)
				} else {
					firstLine[q.ID] = n
					set.Queries = append(set.Queries, q)
					if len(q.Relevant) == 0 {
						set.Warnings = append(set.Warnings, fmt.Sprintf("%s:%d: query %q has no relevant citation: counted apart", name, n, q.ID))
					}
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("golden set %s: line %d: %w", name, n, err)
		}
	}
	if err := le.err(); err != nil {
		return nil, err
	}
	if len(set.Queries) == 0 {
		return nil, fmt.Errorf("golden set %s: no query", name)
	}
	return set, nil
}

// readLine is ragd.ReadLine at limit: one line reader for every
// line-by-line file.
func readLine(br *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	line, _, tooLong, _, err = ragd.ReadLine(br, nil, limit)
	return line, tooLong, err
}

// parseGoldenLine parses one non-blank line, reporting problems to le.
func parseGoldenLine(line []byte, n int, name string, le *lineErrors) *Query {
	var g goldenLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		le.add(n, "not a golden-set JSON object: %v", err)
		return nil
	}
	if dec.More() {
		le.add(n, "more than one JSON value on the line")
		return nil
	}
	bad := len(le.errs) + le.more
	if g.Query == nil || strings.TrimSpace(*g.Query) == "" {
		le.add(n, `missing "query"`)
		return nil
	}
	q := &Query{Text: strings.TrimSpace(*g.Query), Origin: fmt.Sprintf("%s:%d", name, n), Unit: UnitSection}
	if _, err := search.ParseQuery(q.Text); err != nil {
		le.add(n, "query: %v", err)
	}
	q.ID = q.Text
	if len(g.ID) > 0 && string(g.ID) != "null" {
		var s string
		var num json.Number
		switch {
		case json.Unmarshal(g.ID, &s) == nil && strings.TrimSpace(s) != "":
			q.ID = strings.TrimSpace(s)
		case json.Unmarshal(g.ID, &num) == nil:
			q.ID = num.String()
		default:
			le.add(n, "id %s: want a non-empty string or a number", g.ID)
		}
	}
	for _, sc := range g.Scopes {
		if !ragd.ValidScope(sc) {
			le.add(n, "unknown scope %q, want %s", sc, strings.Join(ragd.Scopes, ", "))
		}
	}
	q.Scopes = g.Scopes
	for i, gc := range g.Relevant {
		c, problem := goldenToCitation(gc)
		if problem != "" {
			le.add(n, "relevant[%d]: %s", i, problem)
			continue
		}
		if c.Grade > 0 {
			q.Relevant = append(q.Relevant, c)
		}
	}
	if len(le.errs)+le.more > bad {
		return nil
	}
	return q
}

// goldenToCitation checks one citation of a golden line.
func goldenToCitation(gc goldenCitation) (Citation, string) {
	c := Citation{SourcePath: strings.TrimPrefix(strings.TrimSpace(gc.SourcePath), "./"), HeadingPath: gc.HeadingPath,
		SessionID: strings.TrimSpace(gc.SessionID), EventID: strings.TrimSpace(gc.EventID), Grade: 1}
	if gc.Grade != nil {
		c.Grade = *gc.Grade
	}
	switch {
	case c.Grade < 0:
		return c, fmt.Sprintf("grade %d: want ≥ 0", c.Grade)
	case c.SourcePath == "" && c.SessionID == "":
		if c.EventID != "" {
			return c, `eventId without "sessionId"`
		}
		return c, `want "sourcePath" (a file) or "sessionId" (a session)`
	case c.SourcePath != "" && c.SessionID != "":
		return c, `both "sourcePath" and "sessionId": one citation names a file or a session`
	case c.SessionID != "" && len(c.HeadingPath) > 0:
		return c, `"headingPath" belongs to a file citation, not a session`
	case c.SourcePath != "" && c.EventID != "":
		return c, `"eventId" belongs to a session citation, not a file`
	case c.SourcePath != "" && (path.IsAbs(c.SourcePath) || strings.Contains(c.SourcePath, "\\")):
		return c, fmt.Sprintf("sourcePath %q: want a slash-separated path relative to the repository root", c.SourcePath)
	case c.SourcePath != "" && path.Clean(c.SourcePath) != c.SourcePath:
		return c, fmt.Sprintf("sourcePath %q: want a clean path (%q)", c.SourcePath, path.Clean(c.SourcePath))
	}
	return c, ""
}

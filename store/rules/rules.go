// Package rules holds what every store engine decides the same way and
// without SQL: what a chunk, an appended chunk, a vector and a search
// record must be, how two versions of an event differ, which scopes a
// filter names, the lexical analysis a project's chunks get, and the
// format of stored times. The engines (package store, store/postgres)
// call it and keep only their SQL, so that a rule changes in one place
// and the engines cannot drift apart.
//
// It imports the domain and package lexical only: no SQL, no HTTP.
package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
)

// ValidateChunk checks the fields a chunk of scope needs: a session chunk
// its session and event, a file's chunk its path; a position of 0 or more
// and a content hash.
func ValidateChunk(c *ragd.ChunkInput, scope string) error {
	if scope == ragd.ScopeSession {
		if c.SessionID == "" || c.EventID == "" {
			return fmt.Errorf("session chunk %d: session and event id required", c.Position)
		}
	} else if c.SourcePath == "" {
		return fmt.Errorf("%s chunk %d: source path required", scope, c.Position)
	}
	if c.Position < 0 {
		return fmt.Errorf("chunk %s#%d: negative position", c.Source(scope), c.Position)
	}
	if c.ContentHash == "" {
		return fmt.Errorf("chunk %s#%d: content hash required", c.Source(scope), c.Position)
	}
	return nil
}

// AppendedChunk is a session chunk AppendSession writes, checked.
type AppendedChunk struct {
	In    *ragd.ChunkInput
	Event int // index of its event
	ID    string
	// Heading is the heading path as the engine stores it (headingJSON).
	Heading string
}

// PrepareAppended checks the events of AppendSession (an error the caller
// names the project in) and their chunks (chunks is nil, or one list per
// event, each chunk of its event, valid, without a vector, no id twice),
// and lists the chunks with their ids and their headings as headingJSON
// renders them.
func PrepareAppended(projectID int64, events []ragd.Event, chunks [][]ragd.ChunkInput,
	headingJSON func([]string) (string, error)) ([]AppendedChunk, error) {
	for i := range events {
		if err := events[i].Validate(); err != nil {
			return nil, fmt.Errorf("event %d (id %q): %w", i, events[i].ID, err)
		}
	}
	items, err := prepareChunks(projectID, events, chunks, headingJSON)
	if err != nil {
		return nil, fmt.Errorf("append events to project %d: %w", projectID, err)
	}
	return items, nil
}

// prepareChunks is PrepareAppended's check of the chunks.
func prepareChunks(projectID int64, events []ragd.Event, chunks [][]ragd.ChunkInput,
	headingJSON func([]string) (string, error)) ([]AppendedChunk, error) {
	if chunks == nil {
		return nil, nil
	}
	if len(chunks) != len(events) {
		return nil, fmt.Errorf("%d chunk lists for %d events", len(chunks), len(events))
	}
	var items []AppendedChunk
	for i := range chunks {
		seen := map[string]bool{}
		for j := range chunks[i] {
			c := &chunks[i][j]
			if err := ValidateChunk(c, ragd.ScopeSession); err != nil {
				return nil, fmt.Errorf("event %d: %w", i, err)
			}
			if c.SessionID != events[i].SessionID || c.EventID != events[i].ID {
				return nil, fmt.Errorf("event %d (%q of session %q): chunk %d names event %q of session %q",
					i, events[i].ID, events[i].SessionID, j, c.EventID, c.SessionID)
			}
			if c.Vector != nil {
				return nil, fmt.Errorf("event %q: chunk %d has a vector: appended chunks take theirs from the background fill", c.EventID, c.Position)
			}
			id := c.ID(projectID, ragd.ScopeSession)
			if seen[id] {
				return nil, fmt.Errorf("event %q: duplicate chunk %d", c.EventID, c.Position)
			}
			seen[id] = true
			heading, err := headingJSON(c.HeadingPath)
			if err != nil {
				return nil, fmt.Errorf("event %q: chunk %d: %w", c.EventID, c.Position, err)
			}
			items = append(items, AppendedChunk{In: c, Event: i, ID: id, Heading: heading})
		}
	}
	return items, nil
}

// EventDiff names the fields in which a and b differ, by the rules of
// AppendEvents: time compared as stored (FormatTime), payload as
// compacted JSON.
func EventDiff(a, b ragd.Event) []string {
	var diff []string
	for _, f := range []struct {
		name string
		x, y string
	}{
		{"sessionId", a.SessionID, b.SessionID},
		{"type", a.Type, b.Type},
		{"actor", a.Actor, b.Actor},
		{"text", a.Text, b.Text},
		{"time", FormatTime(a.Time), FormatTime(b.Time)},
	} {
		if f.x != f.y {
			diff = append(diff, f.name)
		}
	}
	if !bytes.Equal(CompactJSON(a.Payload), CompactJSON(b.Payload)) {
		diff = append(diff, "payload")
	}
	return diff
}

// CompactJSON returns b without insignificant white space, or b itself if
// it is not JSON.
func CompactJSON(b []byte) []byte {
	if b == nil {
		return nil
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}

// FilterScopes returns f's scopes, checked, deduplicated and sorted; nil
// for every scope (no filter).
func FilterScopes(f ragd.Filter) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, sc := range f.Scopes {
		if !ragd.ValidScope(sc) {
			return nil, fmt.Errorf("unknown scope %q", sc)
		}
		if !seen[sc] {
			seen[sc] = true
			out = append(out, sc)
		}
	}
	if len(out) == len(ragd.Scopes) {
		return nil, nil // every scope: no filter
	}
	sort.Strings(out)
	return out, nil
}

// UnitVector checks v against a space of dims dimensions (named space, for
// the error) and returns it normalised to unit length, as every engine
// stores vectors; an error wrapping ragd.ErrBadVector for another length,
// a NaN or an infinity, or a zero norm.
func UnitVector(v []float32, dims int, space string) ([]float32, error) {
	if len(v) != dims {
		return nil, fmt.Errorf("%w: %d dims, the store's space %s has %d", ragd.ErrBadVector, len(v), space, dims)
	}
	var sum float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%w: value %d is %v", ragd.ErrBadVector, i, x)
		}
		sum += f * f
	}
	if sum == 0 {
		return nil, fmt.Errorf("%w: zero norm", ragd.ErrBadVector)
	}
	inv := 1 / math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}

// TimeLayout is how an engine stores a time as text: RFC 3339 in UTC with
// fixed-width nanoseconds, so that text order is time order and the value
// compares exactly.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// FormatTime is t as stored (TimeLayout).
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a stored time (TimeLayout, else RFC 3339); the zero time
// when it is neither.
func ParseTime(s string) time.Time {
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t
}

// HeadingText joins a stored heading path (a JSON array) with spaces, so
// that JSON escapes never become tokens.
func HeadingText(headingJSON string) string {
	var hp []string
	if err := json.Unmarshal([]byte(headingJSON), &hp); err != nil {
		return headingJSON
	}
	return strings.Join(hp, " ")
}

// InForce is the language a project's lexical index is (or, before its
// first chunk, will start) analysed with, when no text decides it: the
// one it was built with, else the project's setting, else the default.
func InForce(setting, built string) string {
	switch {
	case built != "":
		return built
	case setting != "":
		return setting
	}
	return string(lexical.DefaultLanguage)
}

// AnalyzerFor returns the analyser of a language name as stored ("" is
// the default language), or an error wrapping lexical.ErrUnknownLanguage.
func AnalyzerFor(lang string) (*lexical.Analyzer, error) {
	l, err := lexical.ParseLanguage(lang)
	if err != nil {
		return nil, err
	}
	return lexical.New(l)
}

// TitleText returns a's analysis of a title, each title analysed once:
// appending a session's messages writes its title on every chunk.
func TitleText(a *lexical.Analyzer) func(title string) string {
	done := map[string]string{}
	return func(title string) string {
		if text, ok := done[title]; ok {
			return text
		}
		text := a.Text(title)
		done[title] = text
		return text
	}
}

// SearchRow is what a search record's row holds beside the record's own
// fields: its scopes and hits as JSON arrays (empty, never null), and its
// project (nil for a search of every project).
type SearchRow struct {
	Scopes, Hits string
	Project      any
}

// PrepareSearch checks a search record before it is written, fills its
// defaults (the search purpose; now() for a zero CreatedAt) and renders
// what its row holds beside its fields.
func PrepareSearch(rec *ragd.SearchRecord, now func() time.Time) (SearchRow, error) {
	if rec.Purpose == "" {
		rec.Purpose = ragd.PurposeSearch
	}
	if rec.Actor == "" {
		return SearchRow{}, fmt.Errorf("record search %q: actor required", rec.Query)
	}
	if !json.Valid(rec.Weights) {
		return SearchRow{}, fmt.Errorf("record search %q: weights %q are not JSON", rec.Query, rec.Weights)
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = now()
	}
	scopes := rec.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	scopesJSON, err := json.Marshal(scopes)
	if err != nil {
		return SearchRow{}, fmt.Errorf("record search %q: scopes: %w", rec.Query, err)
	}
	hits := rec.Hits
	if hits == nil {
		hits = []ragd.TelemetryHit{}
	}
	hitsJSON, err := json.Marshal(hits)
	if err != nil {
		return SearchRow{}, fmt.Errorf("record search %q: hits: %w", rec.Query, err)
	}
	row := SearchRow{Scopes: string(scopesJSON), Hits: string(hitsJSON)}
	if rec.ProjectID != 0 {
		row.Project = rec.ProjectID
	}
	return row, nil
}

// NewRun is the run StartRun records: of scope (checked), running since
// started, with an empty report.
func NewRun(projectID int64, scope string, started time.Time) (ragd.Run, error) {
	if !ragd.ValidScope(scope) {
		return ragd.Run{}, fmt.Errorf("start index run: unknown scope %q", scope)
	}
	return ragd.Run{ProjectID: projectID, Scope: scope, Status: ragd.RunRunning, StartedAt: started, Report: json.RawMessage("{}")}, nil
}

// ParseHeading reads a chunk's stored heading path (a JSON array), naming
// the chunk id in the error.
func ParseHeading(chunkID, heading string) ([]string, error) {
	var hp []string
	if err := json.Unmarshal([]byte(heading), &hp); err != nil {
		return nil, fmt.Errorf("chunk %s: heading path %q: %w", chunkID, heading, err)
	}
	return hp, nil
}

// Rows is what ReadTexts reads: database/sql's and pgx's rows alike. The
// caller closes them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// StoredText is a chunk's text as stored, to analyse again: its seq, title,
// heading path (JSON) and content.
type StoredText struct {
	Seq                     int64
	Title, Heading, Content string
}

// ReadTexts reads rows of (seq, title, heading_path, content).
func ReadTexts(rows Rows) ([]StoredText, error) {
	var out []StoredText
	for rows.Next() {
		var t StoredText
		if err := rows.Scan(&t.Seq, &t.Title, &t.Heading, &t.Content); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// PendingColumns are the columns ReadPending reads, in its order.
const PendingColumns = "seq, project_id, scope, title, heading_path, content, content_hash"

// ReadPending reads rows of PendingColumns: the fill's queue, each with
// the title and heading path it is embedded with (ragd.EmbeddingText).
func ReadPending(rows Rows) ([]ragd.PendingVector, error) {
	var out []ragd.PendingVector
	for rows.Next() {
		var p ragd.PendingVector
		var heading string
		if err := rows.Scan(&p.Seq, &p.ProjectID, &p.Scope, &p.Title, &heading, &p.Content, &p.ContentHash); err != nil {
			return nil, err
		}
		hp, err := ParseHeading(strconv.FormatInt(p.Seq, 10), heading)
		if err != nil {
			return nil, err
		}
		p.HeadingPath = hp
		out = append(out, p)
	}
	return out, rows.Err()
}

// CheckFinish checks what FinishRun records of run runID: a final status
// (ragd.RunOK or ragd.RunFailed) and a JSON report, nil meaning "{}",
// which it returns.
func CheckFinish(runID int64, status string, report []byte) ([]byte, error) {
	if status != ragd.RunOK && status != ragd.RunFailed {
		return nil, fmt.Errorf("finish index run %d: status %q, want %q or %q", runID, status, ragd.RunOK, ragd.RunFailed)
	}
	if report == nil {
		report = []byte("{}")
	}
	if !json.Valid(report) {
		return nil, fmt.Errorf("finish index run %d: report is not valid JSON", runID)
	}
	return report, nil
}

// DecodeSearch fills a search record's scopes and hits from its row's JSON
// (SearchRow's).
func DecodeSearch(rec *ragd.SearchRecord, scopes, hits string) error {
	if err := json.Unmarshal([]byte(scopes), &rec.Scopes); err != nil {
		return fmt.Errorf("scopes %q: %w", scopes, err)
	}
	if err := json.Unmarshal([]byte(hits), &rec.Hits); err != nil {
		return fmt.Errorf("hits: %w", err)
	}
	return nil
}

// DetectSampleBytes is how much of a project's text language detection
// reads: a few pages decide as well as a whole project.
const DetectSampleBytes = 256 << 10

// ReadSample joins the texts of rows (one column each), one a line, until
// DetectSampleBytes are read: the sample a project's language is detected
// from.
func ReadSample(rows Rows) (string, error) {
	var b strings.Builder
	for b.Len() < DetectSampleBytes && rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return "", err
		}
		b.WriteString(t)
		b.WriteByte('\n')
	}
	return b.String(), rows.Err()
}

// FirstLanguage is the language a project's first indexed chunks decide:
// the setting, or else the one the start of their text is detected as.
func FirstLanguage(setting string, chunks []ragd.ChunkInput) string {
	if setting != "" {
		return setting
	}
	var b strings.Builder
	for i := range chunks {
		if b.Len() >= DetectSampleBytes {
			break
		}
		b.WriteString(chunks[i].Title)
		b.WriteByte(' ')
		b.WriteString(chunks[i].Content)
		b.WriteByte('\n')
	}
	return string(lexical.Detect(b.String()).Language)
}

// Scanner is one row: database/sql's and pgx's alike.
type Scanner interface {
	Scan(dest ...any) error
}

// ScanProject reads a project from a row of (id, name, path,
// auto_reindex, created_at, language, lexical_language, layout), its
// layout settings decoded (EncodeLayout's); created is where the engine
// reads created_at into (its type is the engine's), for the caller to set
// CreatedAt from.
func ScanProject(r Scanner, created any) (ragd.Project, error) {
	var p ragd.Project
	var layout string
	if err := r.Scan(&p.ID, &p.Name, &p.Path, &p.AutoReindex, created, &p.Language, &p.LexicalLanguage, &layout); err != nil {
		return p, err
	}
	if layout != "" {
		if err := json.Unmarshal([]byte(layout), &p.Layout); err != nil {
			return p, fmt.Errorf("project %s: layout settings: %w", p.Name, err)
		}
	}
	return p, nil
}

// EncodeLayout is a project's layout settings as an engine stores them:
// JSON, or "" for none (the zero settings).
func EncodeLayout(projectID int64, l ragd.Layout) (string, error) {
	if l.IsZero() {
		return "", nil
	}
	b, err := json.Marshal(l)
	if err != nil {
		return "", fmt.Errorf("set layout of project %d: %w", projectID, err)
	}
	return string(b), nil
}

// ScanChunk reads a chunk from a row of (id, project_id, scope,
// source_path, source_commit, session_id, event_id, heading_path, title,
// position, start_offset, end_offset, content, content_hash,
// embedding_space, indexed_at), every text column coalesced to "", and
// its heading path parsed; indexed is where the engine reads indexed_at
// into (its type is the engine's), for the caller to set IndexedAt from.
func ScanChunk(r Scanner, indexed any) (ragd.Chunk, error) {
	var c ragd.Chunk
	var heading string
	err := r.Scan(&c.ID, &c.ProjectID, &c.Scope, &c.SourcePath, &c.SourceCommit, &c.SessionID, &c.EventID,
		&heading, &c.Title, &c.Position, &c.Start, &c.End, &c.Content, &c.ContentHash, &c.EmbeddingSpace, indexed)
	if err != nil {
		return c, err
	}
	c.HeadingPath, err = ParseHeading(c.ID, heading)
	return c, err
}

// ReadChunkStates reads rows of (id, has a vector, unembeddable,
// source_commit, heading_path, title, start_offset, end_offset): ChunkStates'
// answer, by chunk id.
func ReadChunkStates(rows Rows) (map[string]ragd.ChunkState, error) {
	out := map[string]ragd.ChunkState{}
	for rows.Next() {
		var id, heading string
		var st ragd.ChunkState
		if err := rows.Scan(&id, &st.Vector, &st.Unembeddable, &st.SourceCommit, &heading, &st.Title, &st.Start, &st.End); err != nil {
			return nil, err
		}
		var err error
		if st.HeadingPath, err = ParseHeading(id, heading); err != nil {
			return nil, err
		}
		out[id] = st
	}
	return out, rows.Err()
}

// Collect reads every row of rows with scan.
func Collect[T any](rows Rows, scan func(Scanner) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

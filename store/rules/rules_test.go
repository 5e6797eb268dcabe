package rules

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

func TestValidateChunk(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     ragd.ChunkInput
		scope string
		want  string // "" for valid
	}{
		{"doc", ragd.ChunkInput{SourcePath: "a.md", ContentHash: "h"}, ragd.ScopeDocs, ""},
		{"doc without path", ragd.ChunkInput{ContentHash: "h"}, ragd.ScopeDocs, "source path required"},
		{"session without event", ragd.ChunkInput{SessionID: "s", ContentHash: "h"}, ragd.ScopeSession, "session and event id required"},
		{"negative position", ragd.ChunkInput{SourcePath: "a.md", Position: -1, ContentHash: "h"}, ragd.ScopeADR, "negative position"},
		{"no hash", ragd.ChunkInput{SourcePath: "a.md"}, ragd.ScopeDocs, "content hash required"},
	} {
		err := ValidateChunk(&tc.c, tc.scope)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestPrepareAppended(t *testing.T) {
	ev := ragd.Event{ID: "e1", SessionID: "s1", Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson, Text: "hi", Time: time.Unix(1, 0)}
	chunk := ragd.ChunkInput{SessionID: "s1", EventID: "e1", Content: "hi", ContentHash: "h", HeadingPath: []string{"T"}}
	heading := func(p []string) (string, error) { return strings.Join(p, "/"), nil }
	items, err := PrepareAppended(7, []ragd.Event{ev}, [][]ragd.ChunkInput{{chunk}}, heading)
	if err != nil || len(items) != 1 || items[0].ID != chunk.ID(7, ragd.ScopeSession) || items[0].Heading != "T" || items[0].Event != 0 {
		t.Fatalf("prepare: %+v, %v", items, err)
	}
	other := chunk
	other.EventID = "e2"
	withVector := chunk
	withVector.Vector = []float32{1}
	for name, chunks := range map[string][][]ragd.ChunkInput{
		"other event":     {{other}},
		"vector":          {{withVector}},
		"duplicate":       {{chunk, chunk}},
		"lists != events": {{chunk}, {chunk}},
	} {
		if _, err := PrepareAppended(7, []ragd.Event{ev}, chunks, heading); err == nil || !strings.Contains(err.Error(), "project 7") {
			t.Errorf("%s: %v, want an error naming the project", name, err)
		}
	}
	bad := ev
	bad.ID = ""
	if _, err := PrepareAppended(7, []ragd.Event{bad}, nil, heading); !errors.Is(err, ragd.ErrInvalidEvent) {
		t.Errorf("invalid event: %v, want ragd.ErrInvalidEvent", err)
	}
}

func TestEventDiff(t *testing.T) {
	a := ragd.Event{ID: "e", SessionID: "s", Type: "t", Actor: "a", Text: "x", Time: time.Unix(5, 0), Payload: []byte(`{"a": 1}`)}
	b := a
	b.Time = time.Unix(5, 0).In(time.FixedZone("x", 3600)) // the same instant
	b.Payload = []byte(`{"a":1}`)
	if d := EventDiff(a, b); len(d) != 0 {
		t.Errorf("same event: %v", d)
	}
	b.Text, b.Time = "y", time.Unix(6, 0)
	if d := EventDiff(a, b); !slices.Equal(d, []string{"text", "time"}) {
		t.Errorf("diff: %v, want text and time", d)
	}
}

func TestUnitVector(t *testing.T) {
	v, err := UnitVector([]float32{3, 4}, 2, "m/2")
	if err != nil || math.Abs(float64(v[0])-0.6) > 1e-6 || math.Abs(float64(v[1])-0.8) > 1e-6 {
		t.Fatalf("unit of (3,4): %v, %v", v, err)
	}
	for name, bad := range map[string][]float32{"dims": {1}, "NaN": {float32(math.NaN()), 1}, "zero": {0, 0}} {
		if _, err := UnitVector(bad, 2, "m/2"); !errors.Is(err, ragd.ErrBadVector) {
			t.Errorf("%s: %v, want ragd.ErrBadVector", name, err)
		}
	}
}

func TestFilterScopes(t *testing.T) {
	got, err := FilterScopes(ragd.Filter{Scopes: []string{ragd.ScopeSession, ragd.ScopeDocs, ragd.ScopeDocs}})
	if err != nil || !slices.Equal(got, []string{ragd.ScopeDocs, ragd.ScopeSession}) {
		t.Errorf("scopes: %v, %v", got, err)
	}
	if got, err := FilterScopes(ragd.Filter{Scopes: ragd.Scopes}); err != nil || got != nil {
		t.Errorf("every scope: %v, %v; want no filter", got, err)
	}
	if _, err := FilterScopes(ragd.Filter{Scopes: []string{"code"}}); err == nil {
		t.Error("unknown scope accepted")
	}
}

func TestPrepareSearch(t *testing.T) {
	at := time.Unix(9, 0)
	rec := ragd.SearchRecord{Query: "q", Actor: "person", Weights: []byte(`{}`)}
	row, err := PrepareSearch(&rec, func() time.Time { return at })
	if err != nil || row.Scopes != "[]" || row.Hits != "[]" || row.Project != nil || rec.Purpose != ragd.PurposeSearch || !rec.CreatedAt.Equal(at) {
		t.Fatalf("prepare: %+v, %+v, %v", row, rec, err)
	}
	rec.ProjectID = 3
	if row, _ := PrepareSearch(&rec, time.Now); row.Project != int64(3) {
		t.Errorf("project: %v", row.Project)
	}
	if _, err := PrepareSearch(&ragd.SearchRecord{Query: "q", Weights: []byte(`{}`)}, time.Now); err == nil {
		t.Error("no actor accepted")
	}
	if _, err := PrepareSearch(&ragd.SearchRecord{Query: "q", Actor: "a", Weights: []byte(`{`)}, time.Now); err == nil {
		t.Error("weights that are not JSON accepted")
	}
}

func TestTimeRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 123456789, time.FixedZone("x", 3600))
	if got := ParseTime(FormatTime(at)); !got.Equal(at) {
		t.Errorf("round trip of %v: %v", at, got)
	}
	if got := ParseTime("2026-03-01T09:00:00+01:00"); !got.Equal(time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("RFC 3339: %v", got)
	}
}

// fakeRows are rows of values, as database/sql and pgx give them.
type fakeRows struct {
	rows [][]any
	i    int
}

func (r *fakeRows) Next() bool { r.i++; return r.i <= len(r.rows) }
func (r *fakeRows) Err() error { return nil }
func (r *fakeRows) Scan(dest ...any) error {
	row := r.rows[r.i-1]
	if len(dest) != len(row) {
		return errors.New("column count")
	}
	for i, d := range dest {
		switch d := d.(type) {
		case *string:
			*d = row[i].(string)
		case *int64:
			*d = row[i].(int64)
		default:
			return errors.New("unsupported destination")
		}
	}
	return nil
}

func TestReadTextsSampleCollect(t *testing.T) {
	texts, err := ReadTexts(&fakeRows{rows: [][]any{{int64(1), "T", `["A","B"]`, "body"}}})
	if err != nil || len(texts) != 1 || texts[0] != (StoredText{Seq: 1, Title: "T", Heading: `["A","B"]`, Content: "body"}) {
		t.Errorf("texts: %+v, %v", texts, err)
	}
	if HeadingText(texts[0].Heading) != "A B" {
		t.Errorf("heading text %q", HeadingText(texts[0].Heading))
	}
	sample, err := ReadSample(&fakeRows{rows: [][]any{{"one"}, {"two"}}})
	if err != nil || sample != "one\ntwo\n" {
		t.Errorf("sample %q, %v", sample, err)
	}
	got, err := Collect(&fakeRows{rows: [][]any{{"a"}, {"b"}}}, func(r Scanner) (string, error) {
		var s string
		err := r.Scan(&s)
		return s, err
	})
	if err != nil || len(got) != 2 {
		t.Errorf("collect: %v, %v", got, err)
	}
	if _, err := Collect(&fakeRows{rows: [][]any{{"a", "b"}}}, func(r Scanner) (string, error) {
		var s string
		return s, r.Scan(&s)
	}); err == nil {
		t.Error("a scan error was not returned")
	}
}

func TestCheckFinish(t *testing.T) {
	if r, err := CheckFinish(1, ragd.RunOK, nil); err != nil || string(r) != "{}" {
		t.Errorf("nil report: %q, %v", r, err)
	}
	if _, err := CheckFinish(1, ragd.RunRunning, nil); err == nil {
		t.Error("finishing as running accepted")
	}
	if _, err := CheckFinish(1, ragd.RunFailed, []byte("{")); err == nil {
		t.Error("a report that is not JSON accepted")
	}
}

func TestDecodeSearch(t *testing.T) {
	var rec ragd.SearchRecord
	if err := DecodeSearch(&rec, `["docs"]`, `[{"chunkId":"c","rank":1}]`); err != nil || len(rec.Scopes) != 1 || len(rec.Hits) != 1 {
		t.Errorf("decode: %+v, %v", rec, err)
	}
	if err := DecodeSearch(&rec, `[`, `[]`); err == nil {
		t.Error("bad scopes accepted")
	}
}

func TestFirstLanguage(t *testing.T) {
	if got := FirstLanguage("german", nil); got != "german" {
		t.Errorf("setting: %q", got)
	}
	text := strings.Repeat("Это текст на русском языке о базе данных и поиске. ", 20)
	if got := FirstLanguage("", []ragd.ChunkInput{{Title: "Заголовок", Content: text}}); got != "russian" {
		t.Errorf("detected %q, want russian", got)
	}
}

// row is a row of values, as a database driver scans them.
type row []any

func (r row) Scan(dest ...any) error {
	if len(dest) != len(r) {
		return errors.New("column count")
	}
	for i, d := range dest {
		switch d := d.(type) {
		case *int64:
			*d = r[i].(int64)
		case *string:
			*d = r[i].(string)
		case *bool:
			*d = r[i].(bool)
		default:
			return errors.New("column type")
		}
	}
	return nil
}

// TestLayoutStored: a project's layout settings read back as written, the
// zero settings stored as "", and stored settings that are not JSON an
// error naming the project.
func TestLayoutStored(t *testing.T) {
	l := ragd.Layout{Include: []string{"tests/**"}, ADRDirs: []string{"decisions"}}
	for _, want := range []ragd.Layout{{}, l} {
		text, err := EncodeLayout(1, want)
		if err != nil || want.IsZero() != (text == "") {
			t.Fatalf("encode %+v: %q, %v", want, text, err)
		}
		var created string
		p, err := ScanProject(row{int64(1), "demo", "/p", true, "2026-01-01", "en", "english", text}, &created)
		if err != nil || !slices.Equal(p.Layout.Include, want.Include) || !slices.Equal(p.Layout.ADRDirs, want.ADRDirs) ||
			p.Name != "demo" || created != "2026-01-01" || !p.AutoReindex || p.LexicalLanguage != "english" {
			t.Errorf("read %q: %+v (created %q), %v", text, p, created, err)
		}
	}
	var created string
	if _, err := ScanProject(row{int64(1), "demo", "/p", true, "", "", "", "{not json"}, &created); err == nil || !strings.Contains(err.Error(), "project demo: layout settings") {
		t.Errorf("bad layout: %v", err)
	}
}

// TestTitleText: the memoised analysis of a title is the analyser's, for
// each title, asked once or again.
func TestTitleText(t *testing.T) {
	a, err := AnalyzerFor("")
	if err != nil {
		t.Fatal(err)
	}
	text := TitleText(a)
	for _, title := range []string{"Rotating the keys", "Databases compared", "Rotating the keys", ""} {
		if got, want := text(title), a.Text(title); got != want {
			t.Errorf("title %q: %q, want %q", title, got, want)
		}
	}
}

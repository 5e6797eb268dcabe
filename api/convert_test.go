package api_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// fill sets every exported field of v (a pointer) to a non-zero value,
// through pointers, slices (one element), maps (one entry) and structs.
func fill(t *testing.T, v reflect.Value) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(t, v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.Set(reflect.ValueOf(json.RawMessage(`{"x":1}`)))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(t, s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k)
		fill(t, e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(0.5)
	default:
		t.Fatalf("fill: no value for %s", v.Type())
	}
}

// unset returns the paths of the exported fields of v left zero, but for
// those named in skip (fields the daemon adds, not the conversion).
func unset(v reflect.Value, path string, skip map[string]bool) []string {
	if skip[path] {
		return nil
	}
	if v.IsZero() {
		return []string{path}
	}
	var out []string
	switch v.Kind() {
	case reflect.Pointer:
		out = unset(v.Elem(), path, skip)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				out = append(out, unset(v.Field(i), path+"."+f.Name, skip)...)
			}
		}
	case reflect.Slice:
		out = unset(v.Index(0), path+"[0]", skip)
	}
	return out
}

// Every field of a domain answer reaches its wire form: a field added to
// one side and not copied fails here (a Go conversion of a leaf type fails
// to compile instead).
func TestFromCopiesEveryField(t *testing.T) {
	for _, tc := range []struct {
		name string
		from func(t *testing.T) any
		skip []string // fields the daemon adds itself
	}{
		{"SearchResult", func(t *testing.T) any { return api.FromSearchResult(filled[ragd.SearchResult](t)) }, nil},
		{"Vote", func(t *testing.T) any { return api.FromVote(*filled[ragd.RecordedVote](t)) }, nil},
		{"MeasureReport", func(t *testing.T) any { return api.FromMeasureReport(filled[ragd.MeasureReport](t)) }, nil},
		{"Passage", func(t *testing.T) any { return api.FromPassage(filled[ragd.Passage](t)) }, nil},
		{"IndexStats", func(t *testing.T) any { return api.FromIndexStats(*filled[ragd.IndexStats](t)) }, nil},
		{"DatabaseChecks", func(t *testing.T) any {
			return api.FromDatabaseChecks([]ragd.DatabaseCheck{*filled[ragd.DatabaseCheck](t)})
		}, nil},
		{"EmbeddingHealth", func(t *testing.T) any { return api.FromEmbeddingHealth(*filled[ragd.EmbeddingHealth](t)) }, nil},
		{"BackfillProgress", func(t *testing.T) any { return api.FromBackfillProgress(*filled[ragd.BackfillProgress](t)) }, nil},
		{"SpaceProfile", func(t *testing.T) any { return api.FromSpaceProfile(filled[ragd.SpaceProfile](t)) }, nil},
		{"IndexReport", func(t *testing.T) any { return api.FromIndexReport(filled[ragd.IndexReport](t)) }, nil},
		{"Progress", func(t *testing.T) any { return api.FromProgress(*filled[ragd.Progress](t)) }, nil},
		{"Coverage", func(t *testing.T) any { return api.FromCoverage(filled[ragd.Coverage](t)) }, []string{".Backfill", ".Space"}},
		{"LayoutReport", func(t *testing.T) any { return api.FromLayoutReport(filled[ragd.LayoutReport](t)) }, nil},
		{"AppendReport", func(t *testing.T) any { return api.FromAppendReport(*filled[ragd.AppendReport](t)) }, nil},
		{"ImportReport", func(t *testing.T) any { return api.FromImportReport(*filled[ragd.ImportReport](t)) }, nil},
		{"TranscriptReport", func(t *testing.T) any { return api.FromTranscriptReport(filled[ragd.TranscriptReport](t)) }, nil},
		{"TranscriptProgress", func(t *testing.T) any {
			return api.FromTranscriptProgress(*filled[ragd.TranscriptProgress](t))
		}, nil},
		{"RedactedProject", func(t *testing.T) any { return api.FromRedactedProject(*filled[ragd.RedactedProject](t)) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			skip := map[string]bool{}
			for _, s := range tc.skip {
				skip[s] = true
			}
			if missing := unset(reflect.ValueOf(tc.from(t)), "", skip); len(missing) > 0 {
				t.Errorf("fields not copied: %v", missing)
			}
		})
	}
}

func filled[T any](t *testing.T) *T {
	v := new(T)
	fill(t, reflect.ValueOf(v))
	return v
}

// Conversion keeps a nil list null and an empty one [] on the wire: the
// socket's answers say "never null" of lists the domain makes empty.
func TestFromKeepsNilAndEmpty(t *testing.T) {
	b, err := json.Marshal(api.FromSearchResult(&ragd.SearchResult{Hits: []ragd.Hit{},
		Explain: &ragd.Explain{Vector: []ragd.ExplainCandidate{}}}))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"hits":[]`) || !strings.Contains(s, `"vector":[]`) || !strings.Contains(s, `"lexical":null`) {
		t.Errorf("JSON %s: want hits [], vector [], lexical null", s)
	}
}

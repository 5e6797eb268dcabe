package eval

import (
	"encoding/json"
	"math"
	"testing"
)

func TestDetail(t *testing.T) {
	rs := []*Retrieval{{Query: &Query{ID: "a", Text: "found"}}, {Query: &Query{ID: "b", Text: "missed"}}, {Query: &Query{ID: "c", Text: "nothing"}}}
	lex := &ModeResult{Mode: Mode{Name: "lexical"}, Scores: []Scores{{NDCG10: 1, MRR10: 1}, {NDCG10: 0}, {NDCG10: 0, NoHit: true}}}
	vec := &ModeResult{Mode: Mode{Name: "vector"}, Scores: []Scores{{NDCG10: 0.5}, {NDCG10: 0}, {NDCG10: 0, NoHit: true}}}
	bs := DefaultBootstrap()
	bs.Resamples = 200
	rep := &Report{Modes: []*ModeResult{lex, vec}, Bootstrap: bs}
	rep.Detail(rs)
	for i, want := range []struct {
		missed, noHit bool
	}{{false, false}, {true, false}, {true, true}} {
		q := rep.Queries[i]
		if q.ID != rs[i].Query.ID || q.Text != rs[i].Query.Text || q.Missed != want.missed || q.NoHit != want.noHit {
			t.Errorf("query %d: %+v, want missed %v no hit %v", i, q, want.missed, want.noHit)
		}
	}
	if v := rep.Queries[0].NDCG10; *v[0] != 1 || *v[1] != 0.5 {
		t.Errorf("query a: %v %v", *v[0], *v[1])
	}
	// The interval of a mean of {1, 0, 0}: resampled means are multiples
	// of 1/3 between 0 and 1.
	iv := lex.Intervals[NDCG10]
	if math.Abs(iv.Mean-1.0/3) > 1e-12 || iv.Low < 0 || iv.High > 1 || iv.Low > iv.Mean || iv.High < iv.Mean || iv.Low == iv.High {
		t.Errorf("interval %+v", iv)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("JSON: %v", err)
	}

	// Undefined nDCG (no relevant grade) is null, and does not make a
	// query "missed".
	nan := &ModeResult{Mode: Mode{Name: "x"}, Scores: []Scores{{NDCG10: math.NaN(), Recall6: math.NaN(), Recall100: math.NaN()}}}
	rep = &Report{Modes: []*ModeResult{nan}, Bootstrap: bs}
	rep.Detail(rs[:1])
	if q := rep.Queries[0]; q.NDCG10[0] != nil || q.Missed {
		t.Errorf("undefined: %+v", q)
	}
	if _, ok := nan.Intervals[NDCG10]; ok {
		t.Errorf("an interval of NaN: %+v", nan.Intervals)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("JSON with undefined scores: %v", err)
	}
}

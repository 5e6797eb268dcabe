package eval

import (
	"slices"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
)

func ranking(ids ...string) []search.Fused {
	out := make([]search.Fused, len(ids))
	for i, id := range ids {
		out[i] = search.Fused{ChunkID: id}
	}
	return out
}

func chunkMap(cs ...ragd.Chunk) map[string]ragd.Chunk {
	m := map[string]ragd.Chunk{}
	for _, c := range cs {
		m[c.ID] = c
	}
	return m
}

func beirChunk(id, doc string, pos int) ragd.Chunk {
	return ragd.Chunk{ID: id, Scope: ragd.ScopeDocs, SourcePath: BEIRPath(doc), Position: pos}
}

func TestJudgeDedupesDocuments(t *testing.T) {
	// Documents d1 (3 chunks), d2, d3 (2 chunks); d1 and d3 relevant.
	chunks := chunkMap(beirChunk("a", "d1", 0), beirChunk("b", "d1", 1), beirChunk("c", "d1", 2),
		beirChunk("d", "d2", 0), beirChunk("e", "d3", 0), beirChunk("f", "d3", 1))
	q := &Query{ID: "q", Unit: UnitDocument, Relevant: []Citation{{DocID: "d1", Grade: 1}, {DocID: "d3", Grade: 2}}}
	j := newJudge(q, chunks)
	// d1 d1 d2 d1 d3 d3: units d1, d2, d3.
	got := j.gains(ranking("a", "b", "d", "c", "e", "f"))
	if want := []int{1, 0, 2}; !slices.Equal(got, want) {
		t.Fatalf("gains %v, want %v: a document counts once, at its first chunk", got, want)
	}
	s := score(got, j.ideal, j.relevant(), false)
	if s.Recall6 != 1 || s.MRR10 != 1 {
		t.Errorf("scores %+v: recall@6 1 and MRR 1 expected", s)
	}
	// An irrelevant document's repeated chunks count once too.
	if got := j.gains(ranking("d", "d", "e")); !slices.Equal(got, []int{0, 2}) {
		t.Errorf("gains %v, want [0 2]", got)
	}
}

func TestJudgeSectionsAndSessions(t *testing.T) {
	decision1 := ragd.Chunk{ID: "d1", Scope: ragd.ScopeADR, SourcePath: "docs/adr/0002-x.md", Title: "ADR 2", HeadingPath: []string{"Decision"}}
	decision2 := ragd.Chunk{ID: "d2", Scope: ragd.ScopeADR, SourcePath: "docs/adr/0002-x.md", Title: "ADR 2", HeadingPath: []string{"Decision"}, Position: 1}
	weights := ragd.Chunk{ID: "w", Scope: ragd.ScopeADR, SourcePath: "docs/adr/0002-x.md", Title: "ADR 2", HeadingPath: []string{"Decision", "Weights"}, Position: 2}
	context := ragd.Chunk{ID: "c", Scope: ragd.ScopeADR, SourcePath: "docs/adr/0002-x.md", Title: "ADR 2", HeadingPath: []string{"Context"}, Position: 3}
	other := ragd.Chunk{ID: "o", Scope: ragd.ScopeDocs, SourcePath: "docs/guide.md", HeadingPath: []string{"Decision"}}
	msg5 := ragd.Chunk{ID: "m5", Scope: ragd.ScopeSession, SessionID: "s1", EventID: "e5"}
	msg6 := ragd.Chunk{ID: "m6", Scope: ragd.ScopeSession, SessionID: "s1", EventID: "e6"}
	msg7 := ragd.Chunk{ID: "m7", Scope: ragd.ScopeSession, SessionID: "s2", EventID: "e7"}
	chunks := chunkMap(decision1, decision2, weights, context, other, msg5, msg6, msg7)

	cite := Citation{SourcePath: "docs/adr/0002-x.md", HeadingPath: []string{"Decision"}, Grade: 2}
	for _, c := range []struct {
		ch   ragd.Chunk
		want bool
	}{{decision1, true}, {weights, true}, {context, false}, {other, false}, {msg5, false}} {
		if got := cite.Matches(c.ch); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", cite, c.ch.ID, got, c.want)
		}
	}
	// The title may lead the heading path.
	if !(Citation{SourcePath: "docs/adr/0002-x.md", HeadingPath: []string{"ADR 2", "Decision"}}).Matches(weights) {
		t.Error("a heading path starting with the title does not match")
	}
	if !(Citation{SessionID: "s1"}).Matches(msg6) || (Citation{SessionID: "s1", EventID: "e5"}).Matches(msg6) {
		t.Error("session citations: a session matches its messages, an event only itself")
	}

	q := &Query{Unit: UnitSection, Relevant: []Citation{cite, {SessionID: "s1", EventID: "e5", Grade: 1}}}
	j := newJudge(q, chunks)
	// d1 and d2 are one section (counted once); w is a deeper section of a
	// citation already credited (dropped); c and o are irrelevant
	// sections; m6 is another message of s1 (irrelevant), m5 relevant.
	got := j.gains(ranking("d1", "d2", "w", "c", "o", "m6", "m5", "m7"))
	if want := []int{2, 0, 0, 0, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("gains %v, want %v", got, want)
	}
}

func TestJudgeCondensed(t *testing.T) {
	chunks := chunkMap(ragd.Chunk{ID: "a"}, ragd.Chunk{ID: "b"}, ragd.Chunk{ID: "c"}, ragd.Chunk{ID: "d"})
	q := &Query{Unit: UnitChunk, Relevant: []Citation{{ChunkID: "c", Grade: 1}}, Judged: map[string]bool{"b": true}}
	j := newJudge(q, chunks)
	// a and d were never voted on: left out; b was voted irrelevant.
	if got := j.gains(ranking("a", "b", "d", "c")); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("condensed gains %v, want [0 1]", got)
	}
}

func TestJudgeCutsAtMaxUnits(t *testing.T) {
	var cs []ragd.Chunk
	var ids []string
	for i := range 150 {
		id := string(rune(0x4e00 + i))
		cs = append(cs, ragd.Chunk{ID: id})
		ids = append(ids, id)
	}
	q := &Query{Unit: UnitChunk, Relevant: []Citation{{ChunkID: ids[120], Grade: 1}}}
	j := newJudge(q, chunkMap(cs...))
	got := j.gains(ranking(ids...))
	if len(got) != maxUnits {
		t.Fatalf("%d units judged, want %d", len(got), maxUnits)
	}
	if s := score(got, j.ideal, 1, false); s.Recall100 != 0 {
		t.Errorf("relevant at rank 121 counts in recall@100: %+v", s)
	}
}

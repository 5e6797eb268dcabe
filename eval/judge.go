package eval

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
)

// Citation is what a hit must cite to be relevant to a query. Exactly one
// kind is set:
//
//   - a file: SourcePath, and optionally HeadingPath, which the hit's
//     heading path must start with (the document's title, which ragd
//     leaves out of heading paths, may be given as its first element);
//   - a session: SessionID, and optionally EventID, which must equal the
//     hit's source event;
//   - a BEIR document: DocID, read back from the hit's source path with
//     BEIRDocID;
//   - a chunk: ChunkID (a vote recorded in telemetry).
type Citation struct {
	SourcePath  string   `json:"sourcePath,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	SessionID   string   `json:"sessionId,omitempty"`
	EventID     string   `json:"eventId,omitempty"`
	DocID       string   `json:"docId,omitempty"`
	ChunkID     string   `json:"chunkId,omitempty"`
	// Grade is the relevance grade, ≥ 1.
	Grade int `json:"grade"`
}

// Matches reports whether chunk ch satisfies c.
func (c Citation) Matches(ch ragd.Chunk) bool {
	switch {
	case c.ChunkID != "":
		return ch.ID == c.ChunkID
	case c.DocID != "":
		id, ok := BEIRDocID(ch.SourcePath)
		return ok && id == c.DocID
	case c.SessionID != "":
		return ch.SessionID == c.SessionID && (c.EventID == "" || ch.EventID == c.EventID)
	case c.SourcePath != "":
		if ch.SourcePath != c.SourcePath {
			return false
		}
		return hasPrefix(ch.HeadingPath, c.HeadingPath) ||
			len(c.HeadingPath) > 0 && c.HeadingPath[0] == ch.Title && hasPrefix(ch.HeadingPath, c.HeadingPath[1:])
	}
	return false
}

func hasPrefix(path, prefix []string) bool {
	return len(path) >= len(prefix) && slices.Equal(path[:len(prefix)], prefix)
}

// String renders c for messages.
func (c Citation) String() string {
	switch {
	case c.ChunkID != "":
		return "chunk " + c.ChunkID
	case c.DocID != "":
		return "document " + c.DocID
	case c.SessionID != "" && c.EventID != "":
		return fmt.Sprintf("session %s event %s", c.SessionID, c.EventID)
	case c.SessionID != "":
		return "session " + c.SessionID
	}
	return ragd.Origin{Kind: ragd.OriginFile, SourcePath: c.SourcePath, HeadingPath: c.HeadingPath}.String()
}

// Unit is what judgments count: a ranking of chunks is turned into a
// ranking of units before any metric (see the package documentation).
type Unit string

// Units.
const (
	// UnitDocument is a file (a BEIR document) or a session.
	UnitDocument Unit = "document"
	// UnitSection is a file's section (path and heading path) or a session
	// message: the granularity of a citation.
	UnitSection Unit = "section"
	// UnitChunk is a chunk: the granularity of a vote.
	UnitChunk Unit = "chunk"
)

// unitKey returns the unit of ch.
func unitKey(u Unit, ch ragd.Chunk) string {
	switch u {
	case UnitChunk:
		return ch.ID
	case UnitDocument:
		if ch.Scope == ragd.ScopeSession {
			return "s\x00" + ch.SessionID
		}
		return "f\x00" + ch.SourcePath
	}
	if ch.Scope == ragd.ScopeSession {
		return "s\x00" + ch.SessionID + "\x00" + ch.EventID
	}
	return "f\x00" + ch.SourcePath + "\x00" + strings.Join(ch.HeadingPath, "\x00")
}

// Unresolved is a citation that names nothing that exists: counted apart,
// never relevant.
type Unresolved struct {
	Citation Citation `json:"citation"`
	Reason   string   `json:"reason"`
}

// Query is one judged query.
type Query struct {
	// ID identifies the query (the holdout split hashes it).
	ID   string `json:"id"`
	Text string `json:"query"`
	// Origin says where the query was read, for messages: "golden.jsonl:3",
	// "queries-train.jsonl:12", "search 42".
	Origin string `json:"origin"`
	// Scopes restricts the search; empty means every scope.
	Scopes []string `json:"scopes,omitempty"`
	// Relevant are the citations that count, each with a grade ≥ 1.
	Relevant []Citation `json:"relevant"`
	// Unresolvable are citations to files, sessions or documents that do
	// not exist.
	Unresolvable []Unresolved `json:"unresolvable,omitempty"`
	// Judged, when not nil, holds the chunks judged not relevant, and the
	// ranking is condensed to judged chunks: a hit neither relevant nor in
	// Judged is left out before the metrics, as unjudged (votes judge only
	// the few hits someone looked at).
	Judged map[string]bool `json:"-"`
	// Unit is what the judgments count.
	Unit Unit `json:"unit"`
}

// judge turns rankings of one query's candidates into unit gains.
type judge struct {
	entries   map[string]judgeEntry // by chunk id
	units     int
	ideal     []int // grades of the relevant citations
	condensed bool
}

type judgeEntry struct {
	unit int
	// cites are the indices of the relevant citations the chunk matches,
	// best grade first, then the most specific.
	cites  []int
	judged bool
}

// newJudge prepares the judgment of rankings over chunks for q.
func newJudge(q *Query, chunks map[string]ragd.Chunk) *judge {
	j := &judge{entries: make(map[string]judgeEntry, len(chunks)), condensed: q.Judged != nil}
	for _, c := range q.Relevant {
		j.ideal = append(j.ideal, c.Grade)
	}
	units := map[string]int{}
	for id, ch := range chunks {
		key := unitKey(q.Unit, ch)
		u, ok := units[key]
		if !ok {
			u = len(units)
			units[key] = u
		}
		e := judgeEntry{unit: u, judged: q.Judged[id]}
		for i, c := range q.Relevant {
			if c.Matches(ch) {
				e.cites = append(e.cites, i)
			}
		}
		slices.SortStableFunc(e.cites, func(a, b int) int {
			ca, cb := q.Relevant[a], q.Relevant[b]
			return cmp.Or(cmp.Compare(cb.Grade, ca.Grade), cmp.Compare(len(cb.HeadingPath), len(ca.HeadingPath)))
		})
		j.entries[id] = e
	}
	j.units = len(units)
	return j
}

// gains returns the gains of the first maxUnits units of ranked.
func (j *judge) gains(ranked []search.Fused) []int {
	out := make([]int, 0, min(len(ranked), maxUnits))
	seen := make([]bool, j.units)
	credited := make([]bool, len(j.ideal))
	for _, f := range ranked {
		if len(out) == maxUnits {
			break
		}
		e, ok := j.entries[f.ChunkID]
		if !ok || seen[e.unit] {
			continue
		}
		if j.condensed && !e.judged && len(e.cites) == 0 {
			continue
		}
		seen[e.unit] = true
		gain, dup := 0, len(e.cites) > 0
		for _, c := range e.cites {
			if !credited[c] {
				credited[c] = true
				gain, dup = j.ideal[c], false
				break
			}
		}
		if dup {
			continue // a further hit on something already found
		}
		out = append(out, gain)
	}
	return out
}

// relevant is the number of relevant citations.
func (j *judge) relevant() int { return len(j.ideal) }

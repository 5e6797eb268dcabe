package store

// The words' tiers: in each row, the words whose bm25 frequency part is
// high there are marked, so that a question of frequent words can ask
// FTS5 for the rows where they weigh much without scoring every row that
// holds them (docs/adr/0017-lexical-top-k.md, Decision 4).
//
// A row holding word w with sat(f, D) ≥ tierSat at the reference average
// length a₀ (lexicalbounds.go) also holds the marker token "\x01w",
// colocated with its last token: the ragd tokenizer (lexicalbm25.go)
// indexes it at that token's position, so no column's size and no
// average changes, and no query but the pass's names it (analysed tokens
// hold no control byte; ftsString turns one into a space). A row where w
// is not marked adds at most idf·tierSat·max(1, a/a₀) for w, as the
// bounds argue; a marked row at most w's bound. The bounds table keeps
// the markers' row counts with the words' (the pass estimates its cost
// from them), and its row tierTerm holds tierSat: a table without it
// (from before the tiers, indexed by the ascii tokenizer) has no markers.

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// tierSat is the sat from which a word is marked in a row. bm25's sat is
// below k1 + 1 = 2.2, 1 for one instance in a row of average length; at
// 1.5 a word is marked where it occurs about three times in a row of
// average length, twice in a short one: a few percent of a frequent
// word's rows (on the Zipf corpus of the benchmarks), and the rows a
// question's best answers are in.
const tierSat = 1.5

// useTiers is false only in benchmarks, which time the pass without the
// tiers.
var useTiers = true

// tierMarkerByte starts a marker token: the ascii tokenizer separates
// at it, so no analysed token holds it.
const tierMarkerByte = "\x01"

// tierTerm is the bounds table's row that holds tierSat in a table whose
// rows are marked.
const tierTerm = tierMarkerByte

// tierMarker is word tok's marker token.
func tierMarker(tok string) string { return tierMarkerByte + tok }

// markedDoc returns d with the markers of the words of marked appended to
// the last of its columns that holds a token (sizes are its columns'
// token counts), for the ragd tokenizer to index as colocated tokens.
func markedDoc(d lexicalDoc, sizes [3]int, marked []string) lexicalDoc {
	if len(marked) == 0 {
		return d
	}
	slices.Sort(marked)
	var b strings.Builder
	for _, tok := range marked {
		b.WriteString(" ")
		b.WriteString(tierMarker(tok))
	}
	switch {
	case sizes[2] > 0:
		d.content += b.String()
	case sizes[1] > 0:
		d.heading += b.String()
	default:
		d.title += b.String()
	}
	return d
}

// wordTiers is what the pass reads of the tiers for a question.
type wordTiers struct {
	// sat bounds a word's sat in the rows where it is not marked, at
	// the present average length: tierSat·max(1, a/a₀).
	sat float64
	// marked is the number of rows where each word is marked.
	marked map[string]int64
}

// tiers reads the tiers of tokens in project id's lexical table at
// average length avgdl, nil when its rows are not marked. The caller
// has read the kept row counts (TermDocs.Kept): every row was written
// through the bounds' upkeep, which marks it.
func (sn *Snapshot) tiers(ctx context.Context, projectID int64, tokens []string, avgdl float64) (*wordTiers, error) {
	args := []any{boundsRefTerm, tierTerm}
	for _, t := range tokens {
		args = append(args, tierMarker(t))
	}
	rows, err := sn.tx.QueryContext(ctx, "SELECT term, sat, coalesce(docs, 0) FROM "+boundsTable(projectID)+" WHERE term IN ("+placeholders(len(args))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("tiers of project %d: %w", projectID, err)
	}
	defer rows.Close()
	out := &wordTiers{marked: make(map[string]int64, len(tokens))}
	ref, sat := 0.0, 0.0
	for rows.Next() {
		var term string
		var s float64
		var n int64
		if err := rows.Scan(&term, &s, &n); err != nil {
			return nil, fmt.Errorf("tiers of project %d: %w", projectID, err)
		}
		switch term {
		case boundsRefTerm:
			ref = s
		case tierTerm:
			sat = s
		default:
			out.marked[strings.TrimPrefix(term, tierMarkerByte)] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("tiers of project %d: %w", projectID, err)
	}
	if ref <= 0 || sat <= 0 {
		return nil, nil
	}
	out.sat = min(sat*max(1, avgdl/ref), bm25K1+1)
	return out, nil
}

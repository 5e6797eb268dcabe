package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ragd/ragd"
)

// CandidatesRequest asks for what both signals find for one query, before
// any fusion: the raw material that evaluation and calibration replay
// through Fuse under many configurations.
type CandidatesRequest struct {
	ProjectID int64
	// Query is the user's text, parsed as Search parses it.
	Query string
	// Scopes to search; empty means every scope.
	Scopes []string
	// Depth is the number of candidates per signal, 1..MaxCandidates: the
	// largest Config.Candidates to be replayed.
	Depth int
	// Fill also scores every candidate of the union on the signal that did
	// not list it, as Config.Fill does.
	Fill bool
}

// Retrieved is what both signals found for one query in one snapshot, at
// one depth. Replaying it with At and Rank gives what Search would answer
// under any configuration whose Candidates is at most Depth. It records
// nothing in telemetry.
type Retrieved struct {
	// Query is the parsed query.
	Query Query
	// VectorAvailable is false when the query could not be embedded; Reason
	// says why (as in ragd.SearchResult).
	VectorAvailable bool
	Reason          string
	Depth           int
	Fill            bool
	// Candidates holds both lists at Depth and, with Fill, the fill scores
	// of their union.
	Candidates Candidates
	// Chunks holds every candidate's chunk, by id.
	Chunks map[string]ragd.Chunk

	// distances and lexical hold every score known for a candidate, listed
	// or filled: the fill maps of a replay at any depth.
	distances, lexical map[string]float64
}

// Candidates retrieves the candidate lists of req's query as Search would
// with Config.Candidates = req.Depth and Config.Fill = req.Fill: the query
// is embedded first (by the Searcher's Embedder), then both lists, the fill
// scores and the candidates' chunks are read on one snapshot. Nothing is
// fused, cut or recorded. Bad input gives an error wrapping ragd.ErrInvalid.
func (s *Searcher) Candidates(ctx context.Context, req CandidatesRequest) (*Retrieved, error) {
	if s.Store == nil {
		return nil, errors.New("search candidates: no store")
	}
	cfg := s.Config
	cfg.Candidates, cfg.Fill = req.Depth, req.Fill
	r, err := s.validate(Request{ProjectID: req.ProjectID, Query: req.Query, Scopes: req.Scopes, Limit: 1, Config: &cfg})
	if err != nil {
		return nil, fmt.Errorf("search candidates %q at depth %d: %w", clip(req.Query), req.Depth, err)
	}
	vec, available, reason := s.embed(ctx, r.query)
	if vec != nil {
		r.baseline = s.baseline(ctx) // before the snapshot, as Search
	}
	out := &Retrieved{
		Query: r.query, VectorAvailable: available, Reason: reason, Depth: req.Depth, Fill: req.Fill,
		Chunks: map[string]ragd.Chunk{},
	}
	if !r.query.Empty() {
		if err := s.candidates(ctx, &r, vec, out); err != nil {
			return nil, fmt.Errorf("search candidates %q in project %d: %w", r.query.Text, r.ProjectID, err)
		}
	}
	out.index()
	return out, nil
}

// candidates reads both lists, the fill scores and the chunks on one
// snapshot, as retrieve does.
func (s *Searcher) candidates(ctx context.Context, r *request, vec []float32, out *Retrieved) error {
	sn, err := s.Store.Snapshot(ctx)
	if err != nil {
		return err
	}
	defer sn.Close()
	if err := s.analyse(ctx, sn, r); err != nil {
		return err
	}

	c := &out.Candidates
	filter := ragd.Filter{ProjectID: r.ProjectID, Scopes: r.Scopes}
	if vec != nil {
		if c.Vector, err = sn.VectorCandidates(ctx, filter, vec, r.cfg.Candidates); err != nil {
			return err
		}
		c.Baseline = r.baseline
	}
	if c.Lexical, err = lexicalCandidates(ctx, sn, filter, r, r.cfg.Candidates); err != nil {
		return err
	}
	out.Query = r.query
	if r.cfg.Fill {
		if err := fill(ctx, sn, c, r, vec); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(c.Vector)+len(c.Lexical))
	for _, v := range c.Vector {
		ids = append(ids, v.ChunkID)
	}
	for _, l := range c.Lexical {
		ids = append(ids, l.ChunkID)
	}
	loaded, err := sn.Chunks(ctx, ids)
	if err != nil {
		return err
	}
	for _, ch := range loaded {
		out.Chunks[ch.ID] = ch
	}
	return nil
}

// index gathers every known score of each candidate.
func (r *Retrieved) index() {
	c := r.Candidates
	r.distances = make(map[string]float64, len(c.Vector)+len(c.VectorFill))
	r.lexical = make(map[string]float64, len(c.Lexical)+len(c.LexicalFill))
	for id, d := range c.VectorFill {
		r.distances[id] = d
	}
	for _, v := range c.Vector {
		r.distances[v.ChunkID] = v.Distance
	}
	for id, b := range c.LexicalFill {
		r.lexical[id] = b
	}
	for _, l := range c.Lexical {
		r.lexical[l.ChunkID] = l.Score
	}
}

// At returns the candidates a search with Config.Candidates = depth would
// have retrieved: both lists cut to depth (the store orders them the same
// at any depth) and, when r was retrieved with Fill, the fill scores of
// their union, whether that chunk was filled or listed deeper. depth is
// clamped to 1..r.Depth. The lists are shared with r: do not modify them.
func (r *Retrieved) At(depth int) Candidates {
	depth = max(1, min(depth, r.Depth))
	c := Candidates{
		Vector:   r.Candidates.Vector[:min(depth, len(r.Candidates.Vector))],
		Lexical:  r.Candidates.Lexical[:min(depth, len(r.Candidates.Lexical))],
		Baseline: r.Candidates.Baseline,
	}
	if r.Fill {
		c.VectorFill, c.LexicalFill = r.distances, r.lexical
	}
	return c
}

// Rank fuses c (from At, possibly with a list removed) under cfg, which must
// be valid, and orders the result as Search orders its hits: by score, ties
// by citation (source path, position, chunk id). Unlike Search it returns
// every fused candidate, not cut to a limit; candidates whose chunk r does
// not hold are left out, as Search leaves them out.
func (r *Retrieved) Rank(c Candidates, cfg Config) []Fused {
	fused := Fuse(c, cfg)
	fused = slices.DeleteFunc(fused, func(f Fused) bool { _, ok := r.Chunks[f.ChunkID]; return !ok })
	slices.SortStableFunc(fused, func(a, b Fused) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return compareCitations(r.Chunks[a.ChunkID], r.Chunks[b.ChunkID])
	})
	return fused
}

package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/ragd/ragd"
)

// Verdict is a judgment on one hit.
type Verdict string

// Verdicts.
const (
	VerdictUseful     Verdict = "useful"
	VerdictIrrelevant Verdict = "irrelevant"
)

// FeedbackRequest is a vote on one hit of one search.
type FeedbackRequest struct {
	SearchID int64
	ChunkID  string
	Verdict  Verdict
	// Actor is who voted. Optional: ActorPerson.
	Actor Actor
	// SessionID is the session the vote came from; "" for none.
	SessionID string
}

// Feedback records a vote. The search must exist (else an error wrapping
// ragd.ErrNotFound) and the chunk must have been among its hits (else ragd.ErrInvalid):
// the rank of the judged chunk is what tells "the index is poor" from "the
// weights are wrong", and a vote without one means nothing. A vote on a chunk
// a reindex has since changed or removed wraps ragd.ErrNotFound. Voting again on
// the same chunk of the same search replaces the vote.
func (s *Searcher) Feedback(ctx context.Context, req FeedbackRequest) (*ragd.RecordedVote, error) {
	if s.Store == nil {
		return nil, errors.New("feedback: no store")
	}
	fail := func(err error) (*ragd.RecordedVote, error) {
		return nil, fmt.Errorf("vote %q on chunk %q of search %d: %w", req.Verdict, req.ChunkID, req.SearchID, err)
	}
	if req.SearchID <= 0 {
		return fail(fmt.Errorf("%w: search id %d", ragd.ErrInvalid, req.SearchID))
	}
	if req.ChunkID == "" {
		return fail(fmt.Errorf("%w: chunk id required", ragd.ErrInvalid))
	}
	if err := validID("chunk id", req.ChunkID); err != nil {
		return fail(err)
	}
	if req.Verdict != VerdictUseful && req.Verdict != VerdictIrrelevant {
		return fail(fmt.Errorf("%w: unknown verdict %q, want %q or %q", ragd.ErrInvalid, req.Verdict, VerdictUseful, VerdictIrrelevant))
	}
	actor, err := validActor(req.Actor)
	if err != nil {
		return fail(err)
	}
	if err := validID("session id", req.SessionID); err != nil {
		return fail(err)
	}
	res, err := s.Store.RecordFeedback(ctx, ragd.FeedbackInput{
		SearchID: req.SearchID, ChunkID: req.ChunkID, Verdict: string(req.Verdict),
		Actor: string(actor), SessionID: req.SessionID, CreatedAt: s.now(),
	})
	switch {
	case errors.Is(err, ragd.ErrNotFound):
		return fail(fmt.Errorf("%w: no search has id %d", ragd.ErrNotFound, req.SearchID))
	case errors.Is(err, ragd.ErrNotInHits):
		return fail(fmt.Errorf("%w: chunk %q was not among the hits of search %d", ragd.ErrInvalid, req.ChunkID, req.SearchID))
	case errors.Is(err, ragd.ErrChunkGone):
		return fail(fmt.Errorf("%w: chunk %q no longer exists: a reindex changed or removed it (%w)", ragd.ErrNotFound, req.ChunkID, err))
	case err != nil:
		return fail(err)
	}
	return &ragd.RecordedVote{SearchID: req.SearchID, ChunkID: req.ChunkID, Rank: res.Rank, Verdict: string(req.Verdict), Replaced: res.Previous}, nil
}

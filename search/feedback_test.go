package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

func TestFeedback(t *testing.T) {
	ctx := context.Background()
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	resp := c.search(t, s, Request{Query: `How are the "fusion" weights tuned?`})
	if len(resp.Hits) < 3 || resp.SearchID == nil {
		t.Fatalf("answer %+v", resp)
	}
	id, second := *resp.SearchID, resp.Hits[1]

	vote, err := s.Feedback(ctx, FeedbackRequest{SearchID: id, ChunkID: second.ChunkID, Verdict: VerdictUseful})
	if err != nil {
		t.Fatal(err)
	}
	if vote.Rank != 2 || vote.Verdict != string(VerdictUseful) || vote.Replaced != "" {
		t.Errorf("vote %+v: rank must be copied from the hits", vote)
	}
	// A re-vote replaces the first.
	vote, err = s.Feedback(ctx, FeedbackRequest{SearchID: id, ChunkID: second.ChunkID, Verdict: VerdictIrrelevant, Actor: ActorAgent, SessionID: "s1"})
	if err != nil || vote.Replaced != string(VerdictUseful) || vote.Rank != 2 {
		t.Fatalf("re-vote %+v %v", vote, err)
	}
	votes, _ := c.st.SearchVotes(ctx, id)
	if len(votes) != 1 || votes[0].Verdict != "irrelevant" || votes[0].Actor != "agent" || votes[0].SessionID != "s1" {
		t.Errorf("votes after re-vote %+v", votes)
	}

	notHit := c.ids[cETag] // in the corpus, not among this search's hits
	for _, tc := range []struct {
		name string
		req  FeedbackRequest
		want error
		msg  string
	}{
		{"unknown search", FeedbackRequest{SearchID: id + 100, ChunkID: second.ChunkID, Verdict: VerdictUseful}, ragd.ErrNotFound, "no search"},
		{"chunk not in hits", FeedbackRequest{SearchID: id, ChunkID: notHit, Verdict: VerdictUseful}, ragd.ErrInvalid, "not among the hits"},
		{"unknown chunk", FeedbackRequest{SearchID: id, ChunkID: "nope", Verdict: VerdictUseful}, ragd.ErrInvalid, "not among the hits"},
		{"bad verdict", FeedbackRequest{SearchID: id, ChunkID: second.ChunkID, Verdict: "meh"}, ragd.ErrInvalid, "unknown verdict"},
		{"no verdict", FeedbackRequest{SearchID: id, ChunkID: second.ChunkID}, ragd.ErrInvalid, "unknown verdict"},
		{"no chunk", FeedbackRequest{SearchID: id, Verdict: VerdictUseful}, ragd.ErrInvalid, "chunk id required"},
		{"no search", FeedbackRequest{ChunkID: second.ChunkID, Verdict: VerdictUseful}, ragd.ErrInvalid, "search id 0"},
		{"bad actor", FeedbackRequest{SearchID: id, ChunkID: second.ChunkID, Verdict: VerdictUseful, Actor: "bot"}, ragd.ErrInvalid, "unknown actor"},
		{"bad session", FeedbackRequest{SearchID: id, ChunkID: second.ChunkID, Verdict: VerdictUseful, SessionID: "\x00"}, ragd.ErrInvalid, "session id"},
	} {
		_, err := s.Feedback(ctx, tc.req)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v, want %v saying %q", tc.name, err, tc.want, tc.msg)
		}
	}

	// A reindex that changes the voted chunk takes its vote and refuses new
	// ones with a clear reason.
	testdb.Replace(t, c.st, c.project, second.Scope, nil)
	_, err = s.Feedback(ctx, FeedbackRequest{SearchID: id, ChunkID: second.ChunkID, Verdict: VerdictUseful})
	if !errors.Is(err, ragd.ErrNotFound) || !errors.Is(err, ragd.ErrChunkGone) || !strings.Contains(err.Error(), "reindex") {
		t.Errorf("vote on a removed chunk: %v", err)
	}
}

package search

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragd/ragd"
)

// TestActor_NamedAgent records a named agent's searches and votes as such,
// and refuses names that are empty, too long or not printable.
func TestActor_NamedAgent(t *testing.T) {
	ctx := context.Background()
	c := newCorpus(t)
	s := searcher(c.st, upEmbedder(e1))
	resp := c.search(t, s, Request{Query: "fusion weights", Actor: NamedAgent("claude-code")})
	rec, err := c.st.LoadSearch(ctx, *resp.SearchID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Actor != "agent:claude-code" || !Actor(rec.Actor).IsAgent() {
		t.Errorf("recorded actor %q, want agent:claude-code", rec.Actor)
	}
	if _, err := s.Feedback(ctx, FeedbackRequest{SearchID: *resp.SearchID, ChunkID: resp.Hits[0].ChunkID,
		Verdict: VerdictUseful, Actor: NamedAgent("codex")}); err != nil {
		t.Fatal(err)
	}
	votes, err := c.st.SearchVotes(ctx, *resp.SearchID)
	if err != nil {
		t.Fatal(err)
	}
	if len(votes) != 1 || votes[0].Actor != "agent:codex" {
		t.Errorf("votes %+v, want one by agent:codex", votes)
	}

	for _, bad := range []Actor{"agent:", "agent:" + Actor(strings.Repeat("n", MaxAgentName+1)), "agent:a\nb", "agent:\x00", "agent:\xff", "robot", "Agent:x"} {
		_, err := s.Search(ctx, Request{ProjectID: c.project, Query: "fusion", Limit: DefaultLimit, Actor: bad})
		if !errors.Is(err, ragd.ErrInvalid) {
			t.Errorf("actor %q: %v, want ErrInvalid", bad, err)
		}
	}
	for _, a := range []Actor{ActorAgent, NamedAgent("x"), NamedAgent(strings.Repeat("é", MaxAgentName))} {
		if !a.IsAgent() {
			t.Errorf("%q is an agent", a)
		}
	}
	if ActorPerson.IsAgent() {
		t.Error("a person is not an agent")
	}
}

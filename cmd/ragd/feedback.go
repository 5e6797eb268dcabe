package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ragd/ragd/api"
)

var feedbackCommand = command{
	name:    "feedback",
	summary: "vote a hit: feedback SEARCH_ID CHUNK_ID useful|irrelevant",
	usage: `Usage: ragd feedback SEARCH_ID CHUNK_ID useful|irrelevant [flags]

Vote a hit of a search: SEARCH_ID is the number the search printed, CHUNK_ID
the hit's chunk. A second vote on the same hit replaces the first. Votes
give ragd measure its precision, and ragd eval and calibrate --telemetry
their judgments.
`,
	examples: `  ragd feedback 42 3f9c2a1b7e useful
  ragd feedback 42 3f9c2a1b7e irrelevant --actor agent --session S1
`,
	run: cmdFeedback,
}

func cmdFeedback(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	session := fs.String("session", "", "the session this vote belongs to")
	actor := fs.String("actor", "person", "person or agent")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usagef("feedback takes SEARCH_ID CHUNK_ID useful|irrelevant")
	}
	searchID, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || searchID <= 0 {
		return usagef("search id %q: want the number a search printed", pos[0])
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	vote, err := c.Feedback(ctx, api.FeedbackRequest{SearchID: searchID, ChunkID: pos[1], Verdict: pos[2], Actor: *actor, SessionID: *session})
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(vote)
	}
	fmt.Fprintf(e.stdout, "recorded: %s for the hit at rank %d of search %d", vote.Verdict, vote.Rank, vote.SearchID)
	if vote.Replaced != "" {
		fmt.Fprintf(e.stdout, " (was %s)", vote.Replaced)
	}
	fmt.Fprintln(e.stdout)
	return nil
}

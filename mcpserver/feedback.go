package mcpserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/api"
)

// FeedbackInput is the feedback tool's arguments.
type FeedbackInput struct {
	SearchID int64  `json:"searchId" jsonschema:"The searchId of the search result the hit came from."`
	ChunkID  string `json:"chunkId" jsonschema:"The hit's chunkId."`
	Verdict  string `json:"verdict" jsonschema:"useful: the hit helped answer; irrelevant: it did not."`
}

// FeedbackOutput is the recorded vote.
type FeedbackOutput struct {
	SearchID int64  `json:"searchId"`
	ChunkID  string `json:"chunkId"`
	Rank     int    `json:"rank" jsonschema:"The hit's rank in that search."`
	Verdict  string `json:"verdict"`
	// Replaced is the verdict this vote replaced, if any.
	Replaced string `json:"replaced,omitempty"`
	Actor    string `json:"actor" jsonschema:"Who the vote is recorded as: this MCP client."`
}

// feedback takes no project: the search id names the search, and with it
// the project.
func (s *Server) feedback(ctx context.Context, req *mcp.CallToolRequest, in FeedbackInput) (*mcp.CallToolResult, FeedbackOutput, error) {
	who := actor(req)
	v, err := s.opts.Client.Feedback(ctx, api.FeedbackRequest{SearchID: in.SearchID, ChunkID: in.ChunkID, Verdict: in.Verdict, Actor: who})
	if err != nil {
		return nil, FeedbackOutput{}, s.toolError("", err)
	}
	out := FeedbackOutput{SearchID: v.SearchID, ChunkID: v.ChunkID, Rank: v.Rank, Verdict: v.Verdict, Replaced: v.Replaced, Actor: who}
	text := fmt.Sprintf("Recorded: %s on hit %d (chunk %s) of search %d, by %s.", v.Verdict, v.Rank, v.ChunkID, v.SearchID, who)
	if v.Replaced != "" {
		text += fmt.Sprintf(" It replaces the earlier verdict %s.", v.Replaced)
	}
	return result(text), out, nil
}

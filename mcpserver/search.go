package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// SearchInput is the search tool's arguments.
type SearchInput struct {
	Query   string   `json:"query" jsonschema:"What to look for: a question or keywords, in plain words."`
	Project string   `json:"project,omitempty"`
	Scopes  []string `json:"scopes,omitempty" jsonschema:"Optional. Where to search: docs (documentation), adr (architecture decision records), session (past conversations). Default: all three."`
	Limit   int      `json:"limit,omitempty" jsonschema:"Optional. How many hits, 1..20. Default: the daemon's configured limit (6 unless changed)."`
	Fusion  string   `json:"fusion,omitempty"`
	Full    bool     `json:"fullText,omitempty" jsonschema:"Optional. true returns each hit's whole chunk text instead of a short snippet; costs more tokens. Prefer get on the hits you need."`
	// AllProjects searches every registered project; hits are merged by rank.
	AllProjects bool `json:"allProjects,omitempty" jsonschema:"Optional. true searches every project ragd knows, not only this one (where was this solved before?); each hit then names its project and searchId. Leave project out."`
}

// SearchOutput is the search tool's structured result.
type SearchOutput struct {
	// Project is the project searched; "" when every project was
	// (AllProjects), and each hit names its own.
	Project string `json:"project"`
	// AllProjects is true when every project was searched.
	AllProjects bool `json:"allProjects,omitempty"`
	// SearchID is what feedback votes refer to; null when ragd could not
	// record the search (there is nothing to vote on then).
	SearchID        *int64 `json:"searchId" jsonschema:"Identifies this search for feedback; null when it could not be recorded."`
	Degraded        bool   `json:"degraded" jsonschema:"true when the search ran on keywords alone (no semantic signal)."`
	Reason          string `json:"reason,omitempty" jsonschema:"Why the search was degraded or found nothing to search for."`
	VectorAvailable bool   `json:"vectorAvailable"`
	// VectorShare is below 1 while the daemon fills vectors in the
	// background: the rest of the chunks are found by keywords only.
	VectorShare *float64 `json:"vectorShare,omitempty" jsonschema:"Share (0..1) of the searched chunks that have a semantic vector yet; the others are found by keywords only until the daemon fills them."`
	// Stale lists scopes whose sources moved since they were indexed.
	Stale []string `json:"stale" jsonschema:"Scopes whose sources changed since they were indexed: hits may be out of date; reindex refreshes them."`
	Hits  []Hit    `json:"hits"`
}

// Hit is one search hit: a citation, its scores and its text.
type Hit struct {
	Rank    int    `json:"rank"`
	ChunkID string `json:"chunkId" jsonschema:"Open it with get; vote on it with feedback."`
	Scope   string `json:"scope"`
	// Citation is the hit's origin in one line.
	Citation    string   `json:"citation" jsonschema:"Where the text comes from, in one line, to quote."`
	File        string   `json:"file,omitempty"`
	HeadingPath []string `json:"headingPath,omitempty"`
	Title       string   `json:"title,omitempty"`
	Commit      string   `json:"commit,omitempty"`
	SessionID   string   `json:"sessionId,omitempty"`
	EventID     string   `json:"eventId,omitempty"`
	Score       float64  `json:"score"`
	// VectorScore and LexicalScore are null when that signal did not score
	// the hit.
	VectorScore  *float64 `json:"vectorScore"`
	LexicalScore *float64 `json:"lexicalScore"`
	Snippet      string   `json:"snippet,omitempty" jsonschema:"The part of the hit's text around the query's words."`
	// Project and SearchID are the hit's own in a search of every project:
	// get and feedback on it take them.
	Project  string `json:"project,omitempty" jsonschema:"The hit's project (a search of every project): pass it to get."`
	SearchID *int64 `json:"searchId,omitempty" jsonschema:"The search id to vote on this hit with (a search of every project)."`
	Text     string `json:"text,omitempty" jsonschema:"The hit's whole chunk text (fullText only)."`
}

func (s *Server) search(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	if in.AllProjects {
		return s.searchAll(ctx, req, in)
	}
	return run(ctx, s, in.Project, func(project string) (string, SearchOutput, error) {
		sr := api.SearchRequest{Query: in.Query, Scopes: in.Scopes, Fusion: in.Fusion, Actor: actor(req)}
		if in.Limit != 0 {
			sr.Limit = &in.Limit
		}
		resp, err := s.opts.Client.Search(ctx, project, sr)
		if err != nil {
			return "", SearchOutput{}, err
		}
		out := searchOutput(resp, in)
		return searchText(in.Query, out), out, nil
	})
}

// searchAll searches every project through the client's merge.
func (s *Server) searchAll(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, SearchOutput, error) {
	if in.Project != "" {
		return nil, SearchOutput{}, fmt.Errorf("allProjects searches every project: leave project out (or allProjects, to search %s alone)", in.Project)
	}
	sr := api.SearchRequest{Query: in.Query, Scopes: in.Scopes, Fusion: in.Fusion, Actor: actor(req)}
	if in.Limit != 0 {
		sr.Limit = &in.Limit
	}
	resp, err := s.opts.Client.SearchAllProjects(ctx, sr)
	if err != nil {
		return nil, SearchOutput{}, s.toolError("", err)
	}
	out := SearchOutput{AllProjects: true, Stale: []string{}, Hits: make([]Hit, 0, len(resp.Hits)), VectorAvailable: true}
	var reasons []string
	chunks, vectors := 0, 0
	for _, p := range resp.Projects {
		switch {
		case p.Error != "":
			reasons = append(reasons, p.Project+" not searched: "+p.Error)
			continue
		case p.Degraded:
			out.Degraded = true
			reasons = append(reasons, p.Project+": "+p.Reason)
		}
		out.VectorAvailable = out.VectorAvailable && p.VectorAvailable
		for _, sc := range p.Stale {
			out.Stale = append(out.Stale, p.Project+":"+sc)
		}
		if c := p.VectorCoverage; c != nil {
			chunks, vectors = chunks+c.Chunks, vectors+c.Vectors
		}
	}
	out.Reason = strings.Join(reasons, "; ")
	if chunks > 0 {
		out.VectorShare = &api.NewVectorCoverage(chunks, vectors).Share
	}
	for _, h := range resp.Hits {
		one := searchOutput(&api.SearchResponse{SearchResult: &api.SearchResult{Hits: []api.Hit{h.Hit}}}, in).Hits[0]
		one.Rank, one.Project, one.SearchID = h.Position, h.Project, h.SearchID
		out.Hits = append(out.Hits, one)
	}
	return result(searchText(in.Query, out)), out, nil
}

func searchOutput(resp *api.SearchResponse, in SearchInput) SearchOutput {
	out := SearchOutput{Project: resp.Project, SearchID: resp.SearchID, Degraded: resp.Degraded, Reason: resp.Reason,
		VectorAvailable: resp.VectorAvailable, Stale: resp.Stale, Hits: make([]Hit, 0, len(resp.Hits))}
	if out.Stale == nil {
		out.Stale = []string{}
	}
	if c := resp.VectorCoverage; c != nil {
		out.VectorShare = &c.Share
	}
	for _, h := range resp.Hits {
		hit := Hit{Rank: h.Rank, ChunkID: h.ChunkID, Scope: h.Scope, Citation: citation(h.Origin), Score: h.Score,
			VectorScore: h.VectorScore, LexicalScore: h.LexicalScore, Title: h.Origin.Title}
		if h.Origin.Kind == ragd.OriginSession {
			hit.SessionID, hit.EventID = h.Origin.SessionID, h.Origin.EventID
		} else {
			hit.File, hit.HeadingPath, hit.Commit = h.Origin.SourcePath, h.Origin.HeadingPath, h.Origin.Commit
		}
		if in.Full {
			hit.Text = h.Content
		} else {
			hit.Snippet = api.Snippet(h.Content, in.Query, api.SnippetRunes)
		}
		out.Hits = append(out.Hits, hit)
	}
	return out
}

// searchText is the compact form of a search result: one citation line and
// one text line per hit, then what to do next.
func searchText(query string, out SearchOutput) string {
	var b strings.Builder
	id := "not recorded"
	if out.SearchID != nil {
		id = fmt.Sprint(*out.SearchID)
	}
	if out.AllProjects {
		fmt.Fprintf(&b, "%s for %q in every project, merged by rank", hitCount(len(out.Hits)), query)
	} else {
		fmt.Fprintf(&b, "%s for %q in project %s (searchId %s)", hitCount(len(out.Hits)), query, out.Project, id)
	}
	if out.Degraded {
		fmt.Fprintf(&b, "; keyword-only: %s", out.Reason)
	} else if out.Reason != "" {
		fmt.Fprintf(&b, "; %s", out.Reason)
	}
	if out.VectorShare != nil && *out.VectorShare < 1 && !out.Degraded {
		fmt.Fprintf(&b, "; %.0f%% of the searched chunks have semantic vectors yet (the rest match by keywords only)", 100**out.VectorShare)
	}
	if len(out.Stale) > 0 {
		fmt.Fprintf(&b, "; stale scopes: %s (reindex refreshes them)", strings.Join(out.Stale, ", "))
	}
	b.WriteString("\n")
	for _, h := range out.Hits {
		if out.AllProjects {
			hid := "not recorded"
			if h.SearchID != nil {
				hid = fmt.Sprint(*h.SearchID)
			}
			fmt.Fprintf(&b, "\n%d. project %s: %s [%s] score %.2f chunkId %s searchId %s\n", h.Rank, h.Project, h.Citation, h.Scope, h.Score, h.ChunkID, hid)
		} else {
			fmt.Fprintf(&b, "\n%d. %s [%s] score %.2f chunkId %s\n", h.Rank, h.Citation, h.Scope, h.Score, h.ChunkID)
		}
		text := h.Snippet
		if h.Text != "" {
			text = h.Text
		}
		fmt.Fprintf(&b, "   %s\n", strings.ReplaceAll(text, "\n", "\n   "))
	}
	if len(out.Hits) > 0 {
		b.WriteString("\nRead a hit in full: get {chunkId}. Vote: feedback {searchId, chunkId, verdict: useful|irrelevant}.")
	} else {
		b.WriteString("\nNo hit. Try other words, another scope, or check status (is the project indexed?).")
	}
	return b.String()
}

// citation is an origin in one line, to quote: the origin's citation
// (ragd.Origin.String), then the commit a section was read from, or the
// session's title: "docs/adr/0001-storage.md § Decision @1a2b3c4",
// "session s1 › message e3 (Title)".
func citation(o ragd.Origin) string {
	s := o.String()
	switch {
	case o.Kind == ragd.OriginSession && o.Title != "":
		s += " (" + o.Title + ")"
	case o.Kind != ragd.OriginSession && o.Commit != "":
		s += " @" + shortCommit(o.Commit)
	}
	return s
}

// shortCommitLen is how much of a commit hash a citation shows, as git does.
const shortCommitLen = 7

func shortCommit(c string) string {
	if len(c) > shortCommitLen {
		return c[:shortCommitLen]
	}
	return c
}

// hitCount is n with its noun, "1 hit" or "n hits" (as internal/words
// says counts, which this layer does not import: ADR 0008).
func hitCount(n int) string {
	if n == 1 {
		return "1 hit"
	}
	return fmt.Sprintf("%d hits", n)
}

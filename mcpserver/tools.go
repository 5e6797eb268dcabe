package mcpserver

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// projectDoc describes every tool's project argument, set by add.
const projectDoc = "Optional. The ragd project (its name, or a path inside its repository). " +
	"Default: the registered project whose git repository holds the working directory."

// Verdicts of the feedback tool, as the socket takes them.
const (
	verdictUseful     = "useful"
	verdictIrrelevant = "irrelevant"
)

// fusionEnum lists the search tool's fusions, as the socket takes them.
func fusionEnum() []any {
	var out []any
	for _, f := range api.Fusions() {
		out = append(out, f)
	}
	return out
}

func scopeEnum() []any {
	out := make([]any, len(ragd.Scopes))
	for i, s := range ragd.Scopes {
		out[i] = s
	}
	return out
}

// tool describes one tool and tweaks its inferred input schema: bounds and
// enums that struct tags cannot say.
type tool[In, Out any] struct {
	def     *mcp.Tool
	tweak   func(props map[string]*jsonschema.Schema)
	handler mcp.ToolHandlerFor[In, Out]
}

func add[In, Out any](srv *Server, t tool[In, Out]) error {
	s := srv.mcp
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("mcpserver: %s input schema: %w", t.def.Name, err)
	}
	names := make([]string, 0, len(in.Properties))
	for name := range in.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	srv.arguments[t.def.Name] = names
	if p, ok := in.Properties["project"]; ok {
		p.Description = projectDoc
	}
	if t.tweak != nil {
		t.tweak(in.Properties)
	}
	plain(in)
	t.def.InputSchema = in
	mcp.AddTool(s, t.def, t.handler)
	return nil
}

func ptr[T any](v T) *T { return &v }

// plain rewrites an inferred input schema into the subset of JSON Schema
// that function-calling clients built on OpenAPI 3.0 schemas accept
// (Gemini's, the MCP inspector's argument parser): one type per schema,
// never ["null", "array"] (an argument is optional by its absence, and
// null means nothing a client would send), no additionalProperties and no
// uniqueItems, which those clients refuse as unknown fields. The daemon
// still checks what the schema no longer says, and checkArguments refuses
// the arguments additionalProperties would have.
func plain(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Type == "" {
		var types []string
		for _, t := range s.Types {
			if t != "null" {
				types = append(types, t)
			}
		}
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		}
	}
	s.AdditionalProperties = nil
	s.UniqueItems = false
	plain(s.Items)
	for _, p := range s.Properties {
		plain(p)
	}
}

func (s *Server) addTools() error {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	for _, err := range []error{
		add(s, tool[SearchInput, SearchOutput]{
			def: &mcp.Tool{
				Name:  "search",
				Title: "Search project docs, ADRs and past sessions",
				Description: "Search this project's documentation, architecture decision records (ADRs) and past conversation " +
					"sessions with hybrid semantic + keyword search. Use it before answering how the project works, why a " +
					"design decision was made, or what was said in an earlier session. Returns ranked hits, each a citation " +
					"(file + section heading + commit, or session + message) with a short snippet, its chunkId, and the " +
					"searchId. Read a hit in full with get (chunkId); after using hits, vote with feedback.",
				Annotations: readOnly,
			},
			tweak: func(p map[string]*jsonschema.Schema) {
				// The bounds the daemon enforces: the schema tells a model
				// before it asks.
				p["query"].MinLength, p["query"].MaxLength = ptr(1), ptr(api.MaxQueryLength)
				p["scopes"].Items.Enum = scopeEnum()
				p["limit"].Minimum, p["limit"].Maximum = ptr(1.0), ptr(float64(api.MaxLimit))
				p["fusion"].Enum = fusionEnum()
				p["fusion"].Description = "Optional. How the semantic and keyword rankings are combined: " + api.FusionChoices() +
					". Default: the daemon's configuration."
			},
			handler: s.search,
		}),
		add(s, tool[GetInput, GetOutput]{
			def: &mcp.Tool{
				Name:  "get",
				Title: "Open a citation in full",
				Description: "Open a search hit or citation in full: the whole document section (with the headings of its " +
					"parent, previous, next and sub-sections, to read on) or the whole conversation message (with the " +
					"messages around it). Name it in one way: chunkId (from search); or file + headingPath (the section's " +
					"headings under the document title, outermost first; none for the text under the title); or eventId " +
					"(a session message, optionally with its sessionId).",
				Annotations: readOnly,
			},
			tweak: func(p map[string]*jsonschema.Schema) {
				p["around"].Minimum, p["around"].Maximum = ptr(0.0), ptr(float64(api.MaxAround))
				p["around"].Default = []byte(fmt.Sprint(api.DefaultAround))
			},
			handler: s.get,
		}),
		add(s, tool[FeedbackInput, FeedbackOutput]{
			def: &mcp.Tool{
				Name:  "feedback",
				Title: "Vote on a search hit",
				Description: "Tell ragd whether a search hit helped: verdict useful or irrelevant, for the searchId and chunkId " +
					"of a search result. Vote on hits you actually read; the votes measure and tune ranking. Voting again on " +
					"the same hit replaces the vote.",
				Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
			},
			tweak: func(p map[string]*jsonschema.Schema) {
				p["searchId"].Minimum = ptr(1.0)
				p["chunkId"].MinLength = ptr(1)
				p["verdict"].Enum = []any{verdictUseful, verdictIrrelevant}
			},
			handler: s.feedback,
		}),
		add(s, tool[StatusInput, StatusOutput]{
			def: &mcp.Tool{
				Name:  "status",
				Title: "What ragd has indexed",
				Description: "Show what ragd has indexed for the project: for each scope (docs, adr, session) the chunks, the " +
					"commit indexed, whether it is stale against the repository and why, whether a reindex is running, and " +
					"whether semantic (vector) search is available or searches are keyword-only. Also says whether the ragd " +
					"daemon runs and lists the registered projects.",
				Annotations: readOnly,
			},
			handler: s.status,
		}),
		add(s, tool[ReindexInput, ReindexOutput]{
			def: &mcp.Tool{
				Name:  "reindex",
				Title: "Refresh the project's index",
				Description: "Rebuild the project's index from its git repository (docs, ADRs at the current commit) and its " +
					"session log, so that search sees recent changes. Use it when status says a scope is stale. Unchanged " +
					"text is not embedded again; it takes seconds to minutes. Refused while a reindex of the project runs.",
				Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
			},
			tweak: func(p map[string]*jsonschema.Schema) {
				p["scopes"].Items.Enum = scopeEnum()
			},
			handler: s.reindex,
		}),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// result is a tool result whose text is the compact form; the SDK adds the
// structured output beside it.
func result(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// run is what every handler shares: resolve the project, call the daemon,
// turn a failure into a tool error.
func run[Out any](ctx context.Context, s *Server, asked string, fn func(project string) (string, Out, error)) (*mcp.CallToolResult, Out, error) {
	var zero Out
	project, err := s.resolveProject(ctx, asked)
	if err != nil {
		return nil, zero, s.toolError(asked, err)
	}
	text, out, err := fn(project)
	if err != nil {
		return nil, zero, s.toolError(project, err)
	}
	return result(text), out, nil
}

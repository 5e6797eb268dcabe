package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/words"
	"github.com/ragd/ragd/search"
)

var searchCommand = command{
	name:    "search",
	summary: `hybrid search: search "query" [--scope S] [--limit N] [--fusion F] [--explain] [--all-projects]`,
	usage: `Usage: ragd search QUERY... [flags]

Search the project's docs, ADRs and sessions by meaning (vectors) and by
words (bm25), fused into one ranking. Each hit cites its source (path §
headings, or session and message) with its score and both signals' scores.
The words after search are the query; flags may follow them. The search id
printed last is the one to vote with (ragd feedback). When the embedding
provider is unavailable the search is lexical only, and says so.

--all-projects searches every registered project, each on its own ranking
statistics, and merges the lists by rank (reciprocal rank fusion: scores
of projects are not comparable, ranks are); each hit names its project and
the search id to vote on it with.
`,
	examples: `  ragd search "how are fusion weights chosen"
  ragd search sqlite-vec telemetry --scope adr --limit 3
  ragd search "socket permissions" --explain --fusion rrf
  ragd search "retry policy" --actor agent --session S1 --json
  ragd search "where did I fix the flaky test" --all-projects
`,
	run: cmdSearch,
}

// stringList is a repeatable or comma-separated flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*s = append(*s, part)
		}
	}
	return nil
}

func cmdSearch(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	var scopes stringList
	fs.Var(&scopes, "scope", "docs, adr or session (repeatable; default all)")
	limit := fs.Int("limit", 0, "hits, 1..20 (default: the configured 6)")
	fusion := fs.String("fusion", "", api.FusionChoices()+" (default: configured)")
	explain := fs.Bool("explain", false, "show each signal's rank and raw score")
	session := fs.String("session", "", "the session this search belongs to")
	actor := fs.String("actor", "person", "person or agent")
	all := fs.Bool("all-projects", false, "search every registered project and merge the hits by rank")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef(`search needs a query: ragd search "how are weights chosen"`)
	}
	query := strings.Join(pos, " ")
	limitSet := false
	fs.Visit(func(f *flag.Flag) { limitSet = limitSet || f.Name == "limit" })
	if limitSet && (*limit < 1 || *limit > search.MaxLimit) {
		// An explicit limit is kept, never silently the default: 0 is not "all".
		return usagef("--limit %d: want 1..%d", *limit, search.MaxLimit)
	}
	req := api.SearchRequest{Query: query, Scopes: scopes, Fusion: *fusion, Explain: *explain, SessionID: *session, Actor: *actor}
	if limitSet {
		req.Limit = limit
	}
	if *all {
		projectSet := false
		fs.Visit(func(f *flag.Flag) { projectSet = projectSet || f.Name == "project" })
		if projectSet {
			return usagef("--all-projects searches every project: leave out --project")
		}
		c, err := e.client()
		if err != nil {
			return err
		}
		resp, err := c.SearchAllProjects(ctx, req)
		if err != nil {
			return err
		}
		if e.json {
			return e.printJSON(resp)
		}
		printAllHits(e.stdout, resp, query)
		return nil
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	resp, err := c.Search(ctx, id, req)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(resp)
	}
	printHits(e.stdout, resp, query)
	return nil
}

// A hit's snippet in the terminal: a few lines of a wide terminal.
const (
	cliSnippetRunes = 320
	cliSnippetWidth = 100
)

// printHits prints a search's answer for people; query places each hit's
// snippet around the first of its words the hit holds.
func printHits(w io.Writer, r *api.SearchResponse, query string) {
	if r.Degraded {
		fmt.Fprintf(w, "! lexical only (vector half unavailable): %s\n", r.Reason)
	}
	if c := r.VectorCoverage; c != nil && c.Share < 1 && !r.Degraded {
		fmt.Fprintf(w, "! %d of %d searched chunks (%.0f%%) have a vector yet; the rest are found by words only until the background fill reaches them\n",
			c.Vectors, c.Chunks, 100*c.Share)
	}
	if r.Notice != "" {
		fmt.Fprintf(w, "! %s\n", r.Notice)
	}
	if len(r.Stale) > 0 {
		fmt.Fprintf(w, "! stale since last reindex: %s (ragd reindex)\n", strings.Join(r.Stale, ", "))
	}
	if len(r.Hits) == 0 {
		reason := "no hit above the threshold"
		if r.Reason != "" && !r.Degraded {
			reason = r.Reason
		}
		fmt.Fprintf(w, "no hits: %s\n", reason)
	}
	for _, h := range r.Hits {
		fmt.Fprintf(w, "[%d] %#.4g  %s  (%s)\n", h.Rank, h.Score, h.Origin, signals(h)) // 4 digits tell RRF ranks apart
		if h.Origin.Title != "" {
			fmt.Fprintf(w, "    %s\n", h.Origin.Title)
		}
		for _, line := range wrap(api.Snippet(h.Content, query, cliSnippetRunes), cliSnippetWidth) {
			fmt.Fprintf(w, "    │ %s\n", line)
		}
		if h.Explain != nil {
			fmt.Fprintf(w, "    explain: vector rank %s distance %s · lexical rank %s score %s\n",
				optInt(h.Explain.VectorRank), optFloat(h.Explain.Distance), optInt(h.Explain.LexicalRank), optFloat(h.Explain.Lexical))
			if h.Explain.Rule != "" {
				fmt.Fprintf(w, "    read as %s by the rule: %s\n", h.Scope, h.Explain.Rule)
			}
		}
		fmt.Fprintf(w, "    chunk %s\n", h.ChunkID)
	}
	how := string(r.Fusion)
	if r.Weights.Vector != nil && r.Weights.Lexical != nil && r.Weights.Threshold != nil {
		how += fmt.Sprintf(" %.2g/%.2g threshold %.2g", *r.Weights.Vector, *r.Weights.Lexical, *r.Weights.Threshold)
	}
	id := "none (telemetry not recorded: votes impossible)"
	if r.SearchID != nil {
		id = strconv.FormatInt(*r.SearchID, 10)
	}
	fmt.Fprintf(w, "search %s · %s · %s · %.1f ms\n", id, how, r.Normalization, r.LatencyMs)
	if r.SearchID != nil && len(r.Hits) > 0 {
		fmt.Fprintf(w, "vote: ragd feedback %d %s useful|irrelevant\n", *r.SearchID, r.Hits[0].ChunkID)
	}
}

// printAllHits prints a search of every project for people: each
// project's state, then the merged hits, each with its project.
func printAllHits(w io.Writer, r *api.AllProjectsResponse, query string) {
	for _, p := range r.Projects {
		switch {
		case p.Error != "":
			fmt.Fprintf(w, "! %s: not searched: %s\n", p.Project, p.Error)
		case p.Degraded:
			fmt.Fprintf(w, "! %s: lexical only (vector half unavailable): %s\n", p.Project, p.Reason)
		}
		if len(p.Stale) > 0 {
			fmt.Fprintf(w, "! %s: stale since last reindex: %s (ragd reindex --project %s)\n", p.Project, strings.Join(p.Stale, ", "), p.Project)
		}
	}
	merged := 0
	for _, p := range r.Projects {
		if p.Error == "" {
			merged++
		}
	}
	if len(r.Hits) == 0 {
		fmt.Fprintf(w, "no hits in %s\n", words.Plural(merged, "project"))
	}
	for _, h := range r.Hits {
		fmt.Fprintf(w, "[%d] %s  %s  (rank %d there, score %#.4g; %s)\n", h.Position, h.Project, h.Origin, h.Rank, h.Score, signals(h.Hit))
		if h.Origin.Title != "" {
			fmt.Fprintf(w, "    %s\n", h.Origin.Title)
		}
		for _, line := range wrap(api.Snippet(h.Content, query, cliSnippetRunes), cliSnippetWidth) {
			fmt.Fprintf(w, "    │ %s\n", line)
		}
		id := "none"
		if h.SearchID != nil {
			id = strconv.FormatInt(*h.SearchID, 10)
		}
		fmt.Fprintf(w, "    chunk %s · search %s\n", h.ChunkID, id)
	}
	footer := fmt.Sprintf("%s merged by rank (rrf k=%d)", words.Plural(merged, "project"), r.RRFK)
	if failed := len(r.Projects) - merged; failed > 0 {
		footer += fmt.Sprintf("; %d not searched", failed)
	}
	fmt.Fprintln(w, footer)
}

func signals(h api.Hit) string {
	return "vector " + optFloat(h.VectorScore) + " · lexical " + optFloat(h.LexicalScore)
}

// optFloat prints a nullable score: "—" for null, never 0.
func optFloat(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

func optInt(v *int) string {
	if v == nil {
		return "—"
	}
	return strconv.Itoa(*v)
}

// wrap splits s, whitespace collapsed, into lines of at most width runes
// (a longer word is a line of its own).
func wrap(s string, width int) []string {
	var lines []string
	var line strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		wn := utf8.RuneCountInString(w)
		if n > 0 && n+1+wn > width {
			lines = append(lines, line.String())
			line.Reset()
			n = 0
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		line.WriteString(w)
		n += wn
	}
	if n > 0 {
		lines = append(lines, line.String())
	}
	return lines
}

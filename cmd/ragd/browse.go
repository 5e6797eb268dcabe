package main

import (
	"context"
	"flag"

	"github.com/ragd/ragd/browse"
)

var browseCommand = command{
	name:    "browse",
	summary: "full-screen view: search as you type, preview, vote, read sessions",
	usage: `Usage: ragd browse [--all-projects] [flags]

A full-screen terminal view of what ragd knows. Type to search (the
search runs when typing pauses); the first lines always say whether the
search is hybrid or degraded to words only, and what share of the chunks
has a vector. Keys on the search view:

  ↑ ↓            select a hit (also C-k, C-j)
  enter          open or close the preview of the hit: the whole section
                 with its neighbours' headings, or the message with those
                 around it (pgup, pgdn scroll it; esc closes)
  C-o            open the hit: a file in $VISUAL or $EDITOR at its
                 section's line (+LINE for vi, nano, emacs and the like),
                 a message with its neighbours in $PAGER (else less)
  C-y            copy the hit's citation: OSC 52 to the terminal (over
                 ssh too; in tmux with set-clipboard on) and wl-copy,
                 xclip, xsel or pbcopy when there is one
  C-r            re-run the search with --explain: the preview pane shows
                 what the query matched and dropped, each hit's signals
                 and the rule that read its file
  C-g / C-x      vote the hit useful / irrelevant (as a person)
  C-p            this project or every project
  M-1 M-2 M-3    the scopes docs, adr, session on or off
  tab            the sessions, most recent first: enter reads one
                 (m unfolds the tool calls, / finds in it, n the next
                 match), esc goes back
  C-s            the status: the provider, the background fill, each
                 scope's coverage and staleness (r reloads, esc goes back)
  C-c            quit (q too, off the search view)

NO_COLOR set renders without colours; the marks › and ! say the same.
`,
	examples: `  ragd browse
  ragd browse --all-projects
`,
	run: cmdBrowse,
}

func cmdBrowse(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	all := fs.Bool("all-projects", false, "start searching every registered project")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("browse takes no arguments: type the query in the view")
	}
	opts := browse.Options{}
	projectSet := false
	fs.Visit(func(f *flag.Flag) { projectSet = projectSet || f.Name == "project" })
	if *all && projectSet {
		return usagef("--all-projects searches every project: leave out --project")
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	if !*all {
		if opts.Project, err = e.projectID(ctx, c); err != nil {
			return err
		}
	}
	return browse.Run(ctx, c, opts)
}

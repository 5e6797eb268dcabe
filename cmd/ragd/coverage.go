package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/words"
)

var coverageCommand = command{
	name:    "coverage",
	summary: "what is indexed, from which commit, and what is stale",
	usage: `Usage: ragd coverage [flags]

Say what is indexed for the project, per scope: files or sessions indexed
out of all, chunks and how many are lexical only, when and from which
commit, and whether the scope is stale against HEAD (and why).
`,
	examples: `  ragd coverage
  ragd coverage --project billing --json
`,
	run: cmdCoverage,
}

func cmdCoverage(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	cov, err := c.Coverage(ctx, id)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(cov)
	}
	head := "unreadable"
	if cov.Head != nil {
		head = short(cov.Head.Commit)
		if cov.Head.Branch != "" {
			head += " (" + cov.Head.Branch + ")"
		}
	}
	fmt.Fprintf(e.stdout, "project %s, HEAD %s, language %s\n", cov.Project, head, languageLabel(cov.Language, cov.LanguageSetting))
	for _, sc := range cov.Scopes {
		last := "never indexed"
		if sc.LastIndexed != nil {
			last = "indexed " + sc.LastIndexed.Local().Format("2006-01-02 15:04")
			if sc.LastCommit != "" {
				last += " from " + short(sc.LastCommit)
			}
		}
		stale := ""
		if sc.Stale {
			stale = "  STALE: " + sc.StaleReason
		}
		fmt.Fprintf(e.stdout, "  %-8s %d/%d %s indexed, %d chunks (lexical only: %d), %s%s\n",
			sc.Scope, sc.Indexed, sc.Total, sc.Unit, sc.Chunks, sc.LexicalOnly, last, stale)
		for _, u := range sc.Unembeddable {
			fmt.Fprintf(e.stdout, "           %d chunks never get a vector (searched by keywords): %s\n", u.Chunks, u.Reason)
		}
	}
	for _, n := range cov.Notes {
		if cov.Layout == nil || !slices.Contains(cov.Layout.Notes, n) {
			fmt.Fprintf(e.stdout, "  note: %s\n", n)
		}
	}
	printLayout(e.stdout, cov.Layout, "  ")
	if cov.Backfill != nil && cov.Backfill.Pending > 0 {
		fmt.Fprintf(e.stdout, "  vectors: %s\n", backfillText(cov.Backfill))
	}
	if cov.Space != nil {
		fmt.Fprintf(e.stdout, "  space: %s\n", spaceText(cov.Space))
	}
	return nil
}

// spaceText says how flat the embedding space is, and what that means for
// the weighted default.
func spaceText(p *api.SpaceProfile) string {
	if p.WeightedUnreliable {
		return p.Advice
	}
	return fmt.Sprintf("%s: random chunk pairs score cosine %.2f on average (%d pairs): the weighted fusion in force holds", p.Space, p.RandomCosine, p.Pairs)
}

// backfillText says how far the background vector fill is.
func backfillText(b *api.BackfillProgress) string {
	if b.Pending == 0 {
		return fmt.Sprintf("every chunk has one (%d filled in the background since the daemon started)", b.Filled)
	}
	s := words.Plural(int(b.Pending), "chunk") + " (all projects) still without a vector, filled in the background"
	switch {
	case b.LastError != "":
		s += "; the provider gives none now (" + b.LastError + "), retrying"
	case b.ETASeconds != nil:
		s += fmt.Sprintf(" at %.1f/s, about %s left", b.PerSecond, (time.Duration(*b.ETASeconds) * time.Second).Round(time.Second))
	}
	return s
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}

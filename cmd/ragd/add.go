package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/source"
)

var addCommand = command{
	name:    "add",
	summary: "register a git repository: add [PATH] [--name NAME] [--auto-reindex]",
	usage: `Usage: ragd add [PATH] [flags]

Register the git repository at PATH (default: the current directory) with
the daemon, and say what ragd will read of it: which docs and ADRs, found
where and by which rule, and what it leaves out. Nothing is indexed yet:
ragd reindex indexes them from the commit at HEAD. With --auto-reindex the
daemon reindexes the project by itself when HEAD moves. The settings flags
(--adr-dir, --include, --exclude, ...) are those of ragd layout, which
changes them later.
`,
	examples: `  ragd add                                    # the repository here
  ragd add ~/src/billing --name billing       # choose its short id
  ragd add . --auto-reindex --json
`,
	run: cmdAdd,
}

func cmdAdd(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	name := fs.String("name", "", "short id (default: from the folder name)")
	auto := fs.Bool("auto-reindex", false, "reindex by itself when HEAD moves")
	lang := fs.String("language", "", "language of the keyword index: english, russian, portuguese, spanish, german, french or simple (default: detected at the first index)")
	lf := addLayoutFlags(fs)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("add takes one PATH, got %d", len(pos))
	}
	path := "."
	if len(pos) == 1 {
		path = pos[0]
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("add %s: %w", path, err)
	}
	if _, err := source.Root(abs); errors.Is(err, source.ErrNotRepository) {
		return fmt.Errorf("add %s: %s is not inside a git repository: ragd indexes what a repository commits under docs/. "+
			"Give the folder of a repository (ragd add ~/src/project), or make this one: git init, then commit its docs", path, abs)
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	req := api.AddProjectRequest{Path: abs, Name: *name, AutoReindex: *auto, Language: *lang}
	if lf.set() {
		s := lf.settings(api.LayoutSettings{})
		req.Settings = &s
	}
	p, err := c.AddProject(ctx, req)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(p)
	}
	fmt.Fprintf(e.stdout, "added project %s (%s); index it with: ragd reindex --project %s\n", p.ID, p.Path, p.ID)
	printLayout(e.stdout, p.Layout, "")
	return nil
}

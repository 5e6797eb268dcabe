package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/ragd/ragd/api"
)

var projectsCommand = command{
	name:    "projects",
	summary: "list registered projects",
	usage: `Usage: ragd projects [flags]

List the registered projects: id, repository path, whether the daemon
reindexes it by itself, and which scopes are stale (HEAD moved, or never
indexed).
`,
	examples: `  ragd projects
  ragd projects --json
`,
	run: cmdProjects,
}

func cmdProjects(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	projects, err := c.Projects(ctx)
	if err != nil {
		return err
	}
	list := api.ProjectList{Projects: projects}
	if e.json {
		return e.printJSON(list)
	}
	if len(list.Projects) == 0 {
		fmt.Fprintln(e.stdout, "no projects: register one with `ragd add PATH`")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tPATH\tAUTO-REINDEX\tLANGUAGE\tSTALE")
	for _, p := range list.Projects {
		stale := strings.Join(p.Stale, ",")
		if stale == "" {
			stale = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%s\t%s\n", p.ID, p.Path, p.AutoReindex, languageLabel(p.Language, p.LanguageSetting), stale)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range list.Projects {
		if folderGone(p.Path) {
			fmt.Fprintln(e.stdout, goneHint(p.ID, p.Path))
		}
	}
	return nil
}

// languageLabel says which language a project's keyword index uses and
// whether it was set or detected.
func languageLabel(inForce, setting string) string {
	switch {
	case inForce == "":
		return "auto"
	case setting == "":
		return inForce + " (detected)"
	}
	return inForce
}

// folderGone reports whether a project's folder no longer exists: a
// reindex cannot read it, and only ragd remove helps.
func folderGone(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, os.ErrNotExist)
}

// goneHint says what to do about a project whose folder is gone.
func goneHint(id, path string) string {
	return fmt.Sprintf("! the folder of project %s (%s) is gone, so a reindex cannot read it: `ragd remove %s` forgets the project, "+
		"or `ragd add NEWPATH` registers it where it moved", id, path, id)
}

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ragd/ragd/api"
)

func cmdAdd(ctx context.Context, e *env, args []string) error {
	fs := e.flags("add")
	name := fs.String("name", "", "short id (default: from the folder name)")
	auto := fs.Bool("auto-reindex", false, "reindex by itself when HEAD moves")
	lang := fs.String("language", "", "language of the keyword index: english, russian, portuguese, spanish, german, french or simple (default: detected at the first index)")
	pos, err := parse(fs, args)
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
	c, err := e.client()
	if err != nil {
		return err
	}
	p, err := c.AddProject(ctx, api.AddProjectRequest{Path: abs, Name: *name, AutoReindex: *auto, Language: *lang})
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(p)
	}
	fmt.Fprintf(e.stdout, "added project %s (%s); index it with: ragd reindex --project %s\n", p.ID, p.Path, p.ID)
	return nil
}

func cmdProjects(ctx context.Context, e *env, args []string) error {
	fs := e.flags("projects")
	if _, err := parse(fs, args); err != nil {
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
	return tw.Flush()
}

func cmdRemove(ctx context.Context, e *env, args []string) error {
	fs := e.flags("remove")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("remove takes one PROJECT")
	}
	e.project = pos[0]
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	out, err := c.RemoveProject(ctx, id)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(out)
	}
	fmt.Fprintf(e.stdout, "removed project %s and its index\n", id)
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

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/words"
	"github.com/ragd/ragd/source"
)

var layoutCommand = command{
	name:    "layout",
	summary: "show or set where a project's docs and ADRs are",
	usage: `Usage: ragd layout [flags]

Show what ragd reads of the project's repository, by which rule, and what
it leaves out and why; or change the project's own settings, which come
before what the project declares (.adr-dir, mkdocs.yml, ...) and what its
layout shows. A change takes effect at the next reindex.

Without settings ragd reads markdown, MDX, reStructuredText and AsciiDoc
files anywhere in the repository (plain text in documentation folders),
except vendored, generated and test material, licence files and versioned
copies of the docs. Decision records and RFC-style proposals (folders such
as doc/adr, decisions, rfcs, or numbered records where they gather) are
scope adr; the rest is scope docs.
`,
	examples: `  ragd layout
  ragd layout --adr-dir architecture/records --exclude 'docs/archive/**'
  ragd layout --include 'website/versioned_docs/version-2.x' --package-readmes=false
  ragd layout --reset --json
`,
	run: cmdLayout,
}

// layoutFlags are the settings flags shared by add and layout.
type layoutFlags struct {
	include, exclude, adrDirs stringList
	packageReadmes, rootFiles *bool
	fs                        *flag.FlagSet
}

func addLayoutFlags(fs *flag.FlagSet) *layoutFlags {
	lf := &layoutFlags{fs: fs}
	fs.Var(&lf.include, "include", "glob of paths to read even where the rules leave them out (repeat for more)")
	fs.Var(&lf.exclude, "exclude", "glob of paths never to read (repeat for more)")
	fs.Var(&lf.adrDirs, "adr-dir", "folder of the project's decision records, instead of what ragd finds (repeat for more)")
	lf.packageReadmes = fs.Bool("package-readmes", true, "read README files in sub-folders")
	lf.rootFiles = fs.Bool("root-files", true, "read prose files at the repository root")
	return lf
}

// set reports whether any settings flag was given.
func (lf *layoutFlags) set() bool {
	given := false
	lf.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "include", "exclude", "adr-dir", "package-readmes", "root-files":
			given = true
		}
	})
	return given
}

// settings merges the flags given into base: lists given replace base's.
func (lf *layoutFlags) settings(base api.LayoutSettings) api.LayoutSettings {
	s := base
	lf.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "include":
			s.Include = lf.include
		case "exclude":
			s.Exclude = lf.exclude
		case "adr-dir":
			s.ADRDirs = lf.adrDirs
		case "package-readmes":
			s.NoPackageReadmes = !*lf.packageReadmes
		case "root-files":
			s.NoRootFiles = !*lf.rootFiles
		}
	})
	return s
}

func cmdLayout(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	lf := addLayoutFlags(fs)
	reset := fs.Bool("reset", false, "drop the project's settings: the rules alone decide")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("layout takes no arguments, got %q", pos[0])
	}
	if *reset && lf.set() {
		return usagef("--reset drops every setting: give it alone")
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	var info *api.ProjectInfo
	changed := *reset || lf.set()
	if changed {
		var s api.LayoutSettings
		if !*reset {
			list, err := c.Projects(ctx)
			if err != nil {
				return err
			}
			for _, p := range list {
				if p.ID == id {
					s = p.Settings
				}
			}
			s = lf.settings(s)
		}
		if info, err = c.PatchProject(ctx, id, api.PatchProjectRequest{Settings: &s}); err != nil {
			return err
		}
	} else {
		cov, err := c.Coverage(ctx, id)
		if err != nil {
			return err
		}
		info = &api.ProjectInfo{ID: id, Layout: cov.Layout}
		if cov.Layout != nil {
			info.Settings = cov.Layout.Settings
		}
	}
	if e.json {
		return e.printJSON(info)
	}
	printLayout(e.stdout, info.Layout, "")
	if changed {
		fmt.Fprintf(e.stdout, "settings of %s changed; read by them with: ragd reindex --project %s\n", info.ID, info.ID)
	}
	return nil
}

// maxFoundLines bounds the groups printed: a large repository has a docs
// folder in every module.
const maxFoundLines = 10

// printLayout says what the rules found where and what they left out,
// each line indented by indent.
func printLayout(w io.Writer, l *api.Layout, indent string) {
	if l == nil {
		return
	}
	if s := settingsText(l.Settings); s != "" {
		fmt.Fprintf(w, "%ssettings: %s\n", indent, s)
	}
	if len(l.Found) == 0 {
		fmt.Fprintf(w, "%sfound no prose files (markdown, MDX, reStructuredText, AsciiDoc)\n", indent)
	} else {
		fmt.Fprintf(w, "%sfound:\n", indent)
	}
	rest, restFiles := 0, 0
	for i, f := range l.Found {
		if i >= maxFoundLines {
			rest++
			restFiles += f.Files
			continue
		}
		fmt.Fprintf(w, "%s  %s\n", indent, strings.TrimSpace(foundCount(f)+" "+foundWhere(f)))
	}
	if rest > 0 {
		fmt.Fprintf(w, "%s  … and %s in %d more places (ragd layout --json lists them)\n", indent, words.Plural(restFiles, "file"), rest)
	}
	if len(l.LeftOut) > 0 {
		fmt.Fprintf(w, "%sleft out:\n", indent)
		for _, lo := range l.LeftOut {
			fmt.Fprintf(w, "%s  %d %s (%s)\n", indent, lo.Count, lo.Reason, strings.Join(lo.Examples, ", "))
		}
	}
	for _, n := range l.Notes {
		fmt.Fprintf(w, "%snote: %s\n", indent, n)
	}
	if l.UncommittedCount > 0 {
		more := ""
		if n := l.UncommittedCount - len(l.Uncommitted); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(w, "%snot committed, so not read (ragd reads HEAD; `work_tree = true` under [index] in the configuration reads the working tree): %s%s\n",
			indent, strings.Join(l.Uncommitted, ", "), more)
	}
}

// foundCount is "13 ADRs", "1 doc", "12 package READMEs".
func foundCount(f api.Found) string {
	switch {
	case f.Kind == source.RulePackageReadme:
		return words.Plural(f.Files, "package README")
	case f.Kind == source.RuleRootFile:
		return words.Plural(f.Files, "root file")
	case f.Scope == "adr":
		return words.Plural(f.Files, "ADR")
	}
	return words.Plural(f.Files, "doc")
}

// foundWhere is "in doc/adr/ (from .adr-dir)", "in docs/ (docs folder)".
func foundWhere(f api.Found) string {
	switch f.Kind {
	case source.RulePackageReadme, source.RuleRootFile:
		return ""
	case source.RuleProse:
		return "elsewhere (other prose files)"
	case source.RuleConfigured:
		if f.Dir == "" {
			return "included by the project's settings"
		}
		return "in " + folder(f.Dir) + " (configured)"
	case source.RuleDeclared:
		return "in " + folder(f.Dir) + " (from " + f.From + ")"
	}
	return "in " + folder(f.Dir) + " (" + f.Kind + ")"
}

func folder(dir string) string {
	if dir == "" {
		return "the repository root"
	}
	return dir + "/"
}

// settingsText sums up a project's own settings, "" for none.
func settingsText(s api.LayoutSettings) string {
	var parts []string
	if len(s.ADRDirs) > 0 {
		parts = append(parts, "ADRs in "+strings.Join(s.ADRDirs, ", "))
	}
	if len(s.Include) > 0 {
		parts = append(parts, "include "+strings.Join(s.Include, ", "))
	}
	if len(s.Exclude) > 0 {
		parts = append(parts, "exclude "+strings.Join(s.Exclude, ", "))
	}
	if s.NoPackageReadmes {
		parts = append(parts, "no package READMEs")
	}
	if s.NoRootFiles {
		parts = append(parts, "no root files")
	}
	return strings.Join(parts, "; ")
}

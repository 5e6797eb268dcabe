package source

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/ragd/ragd"
)

// entryKind is what a listed path is.
type entryKind int

const (
	entryFile       entryKind = iota // a regular file
	entryLink                        // a symbolic link
	entrySubmodule                   // a gitlink (tree mode)
	entryNestedRepo                  // a checked-out repository inside (work-tree mode)
	entryIrregular                   // a FIFO, device or socket (work-tree mode)
	entryPruned                      // a folder not entered (see prunable)
)

// entry is a path a reader listed: a prose or declaring file, a link, a
// submodule.
type entry struct {
	path string
	kind entryKind
	hash plumbing.Hash // tree mode
}

// reader is one of the two ways of reading a repository: the tree of a
// commit or the working tree.
type reader interface {
	// list returns what the walk found.
	list() []entry
	// readDecl reads a declaring file, small and regular, or reports false.
	readDecl(e entry) ([]byte, bool)
	// read reads e as decided, or records why not in the tree's Skipped.
	read(e entry, d decision) error
}

// listed reports whether a file of this name is worth listing: a prose
// file or a declaring one.
func listed(name string) bool {
	_, prose := proseExt[strings.ToLower(path.Ext(name))]
	return prose || isDeclFile(name)
}

// prunable reports a folder the walk does not enter (unless the project
// includes paths, which may be inside one): vendored, test or versioned
// material, never prose of the project's own.
func prunable(name string) bool {
	n := strings.ToLower(name)
	return leftOutFolders[n] || versionedFolders[n]
}

// prunedReason is the LeftOut reason of a folder prunable names.
func prunedReason(name string) string {
	if versionedFolders[strings.ToLower(name)] {
		return ReasonVersionedCopy
	}
	return ReasonVendoredOrTest
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// classifyAll reads the declaring files the walk listed, then decides and
// reads every listed path into t.
func classifyAll(ctx context.Context, rd reader, t *Tree, layout ragd.Layout) error {
	entries := rd.list()
	byPath := make(map[string]entry, len(entries))
	proseDirs := map[string]bool{}
	var declPaths []string
	for _, e := range entries {
		byPath[e.path] = e
		if e.kind == entryFile && isDeclFile(path.Base(e.path)) {
			declPaths = append(declPaths, e.path)
		}
		if _, ok := proseExt[strings.ToLower(path.Ext(e.path))]; ok && e.kind == entryFile {
			for d := path.Dir(e.path); ; d = path.Dir(d) {
				if d == "." {
					proseDirs[""] = true
					break
				}
				if proseDirs[d] {
					break
				}
				proseDirs[d] = true
			}
		}
	}
	t.Declared = declarations(declPaths,
		func(p string) ([]byte, bool) { return rd.readDecl(byPath[p]) },
		func(dir string) bool { return proseDirs[dir] })

	c := &classifier{layout: layout}
	for _, d := range layout.ADRDirs {
		if dir, ok := cleanDir("", d); ok {
			c.adr = append(c.adr, dirRule{dir: dir})
		}
	}
	userADR := len(c.adr) > 0
	for _, d := range t.Declared {
		switch {
		case d.Outside:
			t.Notes = append(t.Notes, fmt.Sprintf("%s names %s, outside the repository: not used", d.File, d.Dir))
		case d.Missing:
			t.Notes = append(t.Notes, fmt.Sprintf("%s names %s, which holds no prose files: not used", d.File, dirName(d.Dir)))
		case d.Scope == ragd.ScopeADR && !userADR:
			c.adr = append(c.adr, dirRule{dir: d.Dir, from: d.File})
		case d.Scope == ragd.ScopeDocs:
			c.docs = append(c.docs, dirRule{dir: d.Dir, from: d.File})
		}
	}
	for _, d := range layout.ADRDirs {
		if dir, ok := cleanDir("", d); ok && !proseDirs[dir] {
			t.Notes = append(t.Notes, fmt.Sprintf("the configured ADR folder %s holds no prose files", dirName(dir)))
		}
	}
	// The most specific folder first: a declared docs/adr inside a
	// declared docs/ is the record folder.
	byDepth := func(a, b dirRule) int { return cmp.Compare(strings.Count(b.dir, "/"), strings.Count(a.dir, "/")) }
	slices.SortStableFunc(c.adr, byDepth)
	slices.SortStableFunc(c.docs, byDepth)

	// Skips recorded by the walk itself (a bad name, a missing object)
	// matter only where documentation is.
	kept := t.Skipped[:0]
	for _, s := range t.Skipped {
		if scope, ok := c.docsLike(s.Path); ok {
			s.Scope = scope
			kept = append(kept, s)
		}
	}
	t.Skipped = kept

	leftOut := map[string]*LeftOut{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		var d decision
		if e.kind == entryPruned {
			d.reason = prunedReason(path.Base(e.path))
			e.path += "/"
		} else {
			d = c.classify(e.path)
		}
		if d.reason != "" {
			lo := leftOut[d.reason]
			if lo == nil {
				lo = &LeftOut{Reason: d.reason}
				leftOut[d.reason] = lo
			}
			lo.Count++
			if len(lo.Examples) < maxExamples {
				lo.Examples = append(lo.Examples, e.path)
			}
			continue
		}
		if d.scope == "" {
			if e.kind == entryFile {
				continue
			}
			d.report, _ = c.docsLike(e.path)
		}
		if err := rd.read(e, d); err != nil {
			return err
		}
	}
	if !userADR && !slices.ContainsFunc(t.Declared, func(d Declaration) bool { return d.Scope == ragd.ScopeADR && !d.Missing }) {
		for _, i := range numberedRecords(t.Files) {
			f := &t.Files[i]
			dir := path.Dir(f.Path)
			if dir == "." {
				dir = ""
			}
			f.Scope, f.Rule = ragd.ScopeADR, Rule{Kind: RuleNumbered, Dir: dir}
		}
	}
	t.Notes = append(t.Notes, c.includeNotes()...)
	for _, lo := range leftOut {
		slices.Sort(lo.Examples)
		t.LeftOut = append(t.LeftOut, *lo)
	}
	slices.SortFunc(t.LeftOut, func(a, b LeftOut) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Reason, b.Reason))
	})
	return nil
}

// docsLike reports whether a path that is not a prose file (a folder, a
// link, a submodule) lies where documentation is, and in which scope: a
// link there that is not followed is worth a word, one elsewhere is not.
func (c *classifier) docsLike(p string) (string, bool) {
	d := c.classify(joinPath(parentDir(p), "index.md"))
	switch d.rule.Kind {
	case RuleConfigured, RuleDeclared, RuleADRFolder, RuleRFCFolder, RuleDocsFolder:
		return d.scope, true
	}
	return "", false
}

// parentDir is the folder of git path p, "" for the root.
func parentDir(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}

// dirName names a folder in a note: "doc/adr/", or "the root".
func dirName(dir string) string {
	if dir == "" {
		return "the repository root"
	}
	return dir + "/"
}

package index

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/source"
)

// maxUncommitted bounds ragd.LayoutReport.Uncommitted: enough to recognise.
const maxUncommitted = 20

// maxSkippedExamples bounds the paths named for one reason a file was
// skipped, as source bounds LeftOut's examples: enough to recognise.
const maxSkippedExamples = 3

// Layout reads project p's repository as the next reindex will and says
// what the rules find where, and what they leave out. The error is the
// reader's (not a repository, nothing committed).
func (ix *Indexer) Layout(ctx context.Context, p ragd.Project) (*ragd.LayoutReport, error) {
	tree, err := source.ReadDocs(ctx, p.Path, ix.sourceOptions(p))
	if err != nil {
		return nil, err
	}
	return ix.layout(ctx, p, tree), nil
}

// layout builds ragd.LayoutReport from tree. Reading HEAD, it also lists the
// working tree, for the prose files it has that HEAD has not: a newcomer's
// uncommitted docs are named, with the setting that would read them.
func (ix *Indexer) layout(ctx context.Context, p ragd.Project, tree *source.Tree) *ragd.LayoutReport {
	l := &ragd.LayoutReport{Settings: p.Layout, Found: []ragd.Found{}, LeftOut: []ragd.LeftOut{}, Declared: []ragd.Declared{},
		Notes: append([]string{}, tree.Notes...)}
	for _, scope := range []string{ragd.ScopeADR, ragd.ScopeDocs} {
		l.Found = append(l.Found, found(tree, scope)...)
	}
	for _, lo := range tree.LeftOut {
		l.LeftOut = append(l.LeftOut, ragd.LeftOut{Reason: lo.Reason, Count: lo.Count, Examples: lo.Examples})
	}
	// Files the rules chose but the reader could not read (binary, too
	// large, a Git LFS pointer, a symlink not followed): left out too,
	// for their reason.
	skipped := map[string]int{}
	for _, sk := range tree.Skipped {
		i, ok := skipped[sk.Reason]
		if !ok {
			i = len(l.LeftOut)
			skipped[sk.Reason] = i
			l.LeftOut = append(l.LeftOut, ragd.LeftOut{Reason: sk.Reason, Examples: []string{}})
		}
		l.LeftOut[i].Count++
		if len(l.LeftOut[i].Examples) < maxSkippedExamples {
			l.LeftOut[i].Examples = append(l.LeftOut[i].Examples, sk.Path)
		}
	}
	for _, d := range tree.Declared {
		l.Declared = append(l.Declared, ragd.Declared{File: d.File, Dir: d.Dir, Scope: d.Scope, Missing: d.Missing, Outside: d.Outside})
	}
	if tree.WorkTree {
		return l
	}
	opt := ix.sourceOptions(p)
	opt.WorkTree, opt.PathsOnly = true, true
	wt, err := source.ReadDocs(ctx, p.Path, opt)
	if err != nil {
		return l // a bare repository, or the disk moved: nothing to name
	}
	// Committed is committed, read or not: a binary file at HEAD is
	// left out as binary above, not "not committed".
	at := make(map[string]bool, len(tree.Files)+len(tree.Skipped))
	for _, f := range tree.Files {
		at[f.Path] = true
	}
	for _, sk := range tree.Skipped {
		at[sk.Path] = true
	}
	for _, f := range wt.Files {
		if !at[f.Path] {
			l.UncommittedCount++
			if len(l.Uncommitted) < maxUncommitted {
				l.Uncommitted = append(l.Uncommitted, f.Path)
			}
		}
	}
	return l
}

// FoundRules returns, by scope, the groups of files by rule of p's last
// successful docs and adr reindex (ragd.ScopeReport.Found).
func (ix *Indexer) FoundRules(ctx context.Context, p ragd.Project) (map[string][]ragd.Found, error) {
	out := map[string][]ragd.Found{}
	for _, scope := range []string{ragd.ScopeDocs, ragd.ScopeADR} {
		run, err := ix.lastOK(ctx, p, scope)
		if err != nil || run == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		var rep ragd.ScopeReport
		if json.Unmarshal(run.Report, &rep) == nil {
			out[scope] = rep.Found
		}
	}
	return out, nil
}

// RuleOf names the rule among found that read the file at path: the group
// of the deepest folder holding it, else the root file, package README or
// other prose group its place says; "" when none does (a file indexed by
// rules older than the groups).
func RuleOf(found []ragd.Found, path string) string {
	best, depth := "", -1
	for _, f := range found {
		if f.Dir != "" && strings.HasPrefix(path, f.Dir+"/") && strings.Count(f.Dir, "/") > depth {
			best, depth = f.Rule, strings.Count(f.Dir, "/")
		}
	}
	if best != "" {
		return best
	}
	kind := source.RuleProse
	switch base := path[strings.LastIndexByte(path, '/')+1:]; {
	case !strings.Contains(path, "/"):
		kind = source.RuleRootFile
	case strings.HasPrefix(strings.ToLower(base), "readme."):
		kind = source.RulePackageReadme
	}
	for _, f := range found {
		if f.Kind == kind && f.Dir == "" {
			return f.Rule
		}
	}
	return ""
}

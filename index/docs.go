package index

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/source"
)

// Reasons given in ragd.ScopeReport.Skipped and Replaced, beside the source
// package's Reason constants.
const (
	ReasonNothingToIndex = "nothing to index: no text (empty, or front matter only)"
	ReasonPathNotUTF8    = "path is not valid UTF-8: it could not be cited"
)

// replacedReason describes a file or message whose bad bytes were replaced.
func replacedReason(runs int) string {
	return fmt.Sprintf("%d run(s) of invalid UTF-8 or NUL bytes replaced by U+FFFD", runs)
}

// RulesVersion is the version of the rules that find a project's
// documents (package source): a scope indexed by an older version is
// stale, since the same commit may now give other files. Version 1 read
// markdown under docs/ only; version 2 reads where the project keeps its
// prose (docs/adr/0010-where-docs-are.md).
const RulesVersion = 2

// sourceOptions are the reader's options for project p: the daemon's, with
// the project's own settings over the daemon's for every project
// (Indexer.Source.Layout: its excludes add to the project's, and a rule
// off there is off for every project).
func (ix *Indexer) sourceOptions(p ragd.Project) source.Options {
	opt := ix.Source
	all := ix.Source.Layout
	opt.Layout = p.Layout
	opt.Layout.Exclude = append(slices.Clip(all.Exclude), p.Layout.Exclude...)
	opt.Layout.NoPackageReadmes = p.Layout.NoPackageReadmes || all.NoPackageReadmes
	opt.Layout.NoRootFiles = p.Layout.NoRootFiles || all.NoRootFiles
	return opt
}

// settingsDigest is a digest of the settings that say what p's reindex
// reads (sourceOptions' layout): recorded with each run of a docs or adr
// scope, and compared by coverage, so that a change of them marks the
// scopes stale.
func (ix *Indexer) settingsDigest(p ragd.Project) string {
	b, _ := json.Marshal(ix.sourceOptions(p).Layout) // strings and booleans: it always encodes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// found groups the files of scope in tree by the rule that chose them, the
// largest group first.
func found(tree *source.Tree, scope string) []ragd.Found {
	idx := map[source.Rule]int{}
	var out []ragd.Found
	for _, f := range tree.Files {
		if f.Scope != scope {
			continue
		}
		i, ok := idx[f.Rule]
		if !ok {
			i = len(out)
			idx[f.Rule] = i
			out = append(out, ragd.Found{Scope: scope, Rule: f.Rule.String(), Kind: f.Rule.Kind, Dir: f.Rule.Dir, From: f.Rule.From})
		}
		out[i].Files++
	}
	slices.SortStableFunc(out, func(a, b ragd.Found) int {
		return cmp.Or(cmp.Compare(b.Files, a.Files), strings.Compare(a.Rule, b.Rule))
	})
	return out
}

// digest identifies the documents of a scope in tree: the SHA-256 of their
// paths and contents, in tree order.
func digest(tree *source.Tree, scope string) string {
	h := sha256.New()
	for _, f := range tree.Files {
		if f.Scope == scope {
			fmt.Fprintf(h, "%d:%s%d:", len(f.Path), f.Path, len(f.Content))
			h.Write(f.Content)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readTree reads the project's documents once for docs and adr.
func (r *reindex) readTree(ctx context.Context, scope string) (*source.Tree, error) {
	if !r.treeRead {
		r.treeRead = true
		r.progress(ragd.Progress{Phase: ragd.PhaseRead, Scope: scope})
		start := time.Now()
		r.tree, r.treeErr = source.ReadDocs(ctx, r.p.Path, r.ix.sourceOptions(r.p))
		r.readTime = time.Since(start)
	}
	if r.treeErr != nil {
		return nil, fmt.Errorf("%s: %w", scope, r.treeErr) // names the path
	}
	return r.tree, nil
}

// docChunks reads (once) and chunks the files of a docs or adr scope.
func (r *reindex) docChunks(ctx context.Context, sr *ragd.ScopeReport) ([]ragd.ChunkInput, error) {
	tree, err := r.readTree(ctx, sr.Scope)
	sr.Durations.ReadMs = ms(r.readTime)
	if err != nil {
		return nil, err
	}
	sr.Commit, sr.Branch, sr.WorkTree = tree.Commit, tree.Branch, tree.WorkTree
	if tree.WorkTree {
		// Only there does coverage need it: at HEAD the commit says it all.
		sr.Digest = digest(tree, sr.Scope)
	}
	sr.Notes = append(sr.Notes, tree.Notes...)
	sr.Found, sr.Rules = found(tree, sr.Scope), RulesVersion
	sr.Settings = r.ix.settingsDigest(r.p)
	for _, s := range tree.Skipped {
		if s.Scope == sr.Scope {
			sr.Skipped = append(sr.Skipped, ragd.Input{Path: s.Path, Reason: s.Reason, Size: s.Size})
		}
	}
	// A chunk read from the working tree is not the text of any commit.
	commit := tree.Commit
	if tree.WorkTree {
		commit = ""
	}

	var files []*source.File
	for i := range tree.Files {
		if tree.Files[i].Scope == sr.Scope {
			files = append(files, &tree.Files[i])
		}
	}
	start := time.Now()
	defer func() { sr.Durations.ChunkMs = ms(time.Since(start)) }()
	sr.Files = len(files)
	// The read ends for each scope with its own files, not the tree's.
	r.progress(ragd.Progress{Phase: ragd.PhaseRead, Scope: sr.Scope, Done: len(files), Total: len(files)})
	tick := newTicker(len(files))
	r.progress(ragd.Progress{Phase: ragd.PhaseChunk, Scope: sr.Scope, Total: len(files)})
	results, stop := r.chunkAll(ctx, files)
	defer stop()
	var inputs []ragd.ChunkInput
	for n, f := range files {
		if tick.due(n) {
			r.progress(ragd.Progress{Phase: ragd.PhaseChunk, Scope: sr.Scope, Done: n, Total: len(files)})
		}
		res := &results[n]
		select {
		case <-res.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: chunking: %w", sr.Scope, ctx.Err())
		}
		sr.Bytes += int64(len(f.Content))
		doc, err := res.doc, res.err
		res.doc = chunking.Document{} // let the merged chunks be the only copy
		switch {
		case !utf8.ValidString(f.Path):
			sr.Skipped = append(sr.Skipped, ragd.Input{Path: strings.ToValidUTF8(f.Path, "\uFFFD"), Reason: ReasonPathNotUTF8})
			continue
		case err != nil:
			// Options were validated: this is the parser failing on this
			// file, which must not cost the others.
			sr.Skipped = append(sr.Skipped, ragd.Input{Path: f.Path, Reason: err.Error()})
			continue
		}
		if doc.Replaced > 0 {
			sr.Replaced = append(sr.Replaced, ragd.Input{Path: f.Path, Reason: replacedReason(doc.Replaced)})
		}
		if len(doc.Chunks) == 0 {
			sr.Skipped = append(sr.Skipped, ragd.Input{Path: f.Path, Reason: ReasonNothingToIndex})
			continue
		}
		for _, c := range doc.Chunks {
			inputs = append(inputs, ragd.ChunkInput{
				SourcePath:   f.Path,
				SourceCommit: commit,
				HeadingPath:  c.HeadingPath,
				Title:        c.Title,
				Position:     c.Position,
				Start:        c.Start,
				End:          c.End,
				Content:      c.Content,
				ContentHash:  c.Hash,
			})
		}
	}
	r.progress(ragd.Progress{Phase: ragd.PhaseChunk, Scope: sr.Scope, Done: len(files), Total: len(files)})
	return inputs, nil
}

// chunked is one file's chunking, ready when its channel is closed.
type chunked struct {
	ready chan struct{}
	doc   chunking.Document
	err   error
}

// chunkAll chunks files on GOMAXPROCS goroutines, in file order, so that
// the caller can merge them in order as they become ready. stop ends the
// work early and waits for the goroutines: call it before returning.
func (r *reindex) chunkAll(ctx context.Context, files []*source.File) (results []chunked, stop func()) {
	results = make([]chunked, len(files))
	for i := range results {
		results[i].ready = make(chan struct{})
	}
	ctx, cancel := context.WithCancel(ctx)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) || ctx.Err() != nil {
					return
				}
				if f := files[i]; utf8.ValidString(f.Path) {
					results[i].doc, results[i].err = chunking.File(f.Content, f.Path, r.opt)
				}
				close(results[i].ready)
			}
		})
	}
	return results, func() { cancel(); wg.Wait() }
}

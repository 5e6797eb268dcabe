package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/source"
)

// repoScopes are the scopes indexRepo indexes: a repository's prose.
var repoScopes = []string{ragd.ScopeDocs, ragd.ScopeADR}

// repoIndex is what indexing Options.Repo did.
type repoIndex struct {
	// root is the repository's top folder, the project's path.
	root    string
	summary *IndexSummary
	// took is the reindex's wall time, embed the share of it spent
	// embedding.
	took, embed time.Duration
}

// indexRepo indexes the docs and ADRs of opt.Repo into st through the real
// pipeline (index.Indexer with the configured embedder, caching in st), as
// a project registered under the repository's folder name when st does
// not know it yet. A second run on the same database finds the scopes
// unchanged and embeds nothing.
func indexRepo(ctx context.Context, st engine.Store, opt Options) (repoIndex, error) {
	root, err := source.Root(opt.Repo)
	if err != nil {
		return repoIndex{}, fmt.Errorf("index %s: not inside a git repository: %w", opt.Repo, err)
	}
	head, err := source.Head(ctx, root)
	if err != nil {
		return repoIndex{}, fmt.Errorf("index %s: %w", root, err)
	}
	p, err := st.Project(ctx, root)
	if errors.Is(err, ragd.ErrNotFound) {
		p, err = st.AddProject(ctx, filepath.Base(root), root)
	}
	if err != nil {
		return repoIndex{}, fmt.Errorf("index %s: %w", root, err)
	}
	emb, err := embedding.New(opt.Embedding, st)
	if err != nil {
		return repoIndex{}, fmt.Errorf("index %s: embedding configuration: %w", root, err)
	}
	ix := &index.Indexer{Store: st, Embedder: emb, Chunking: opt.Chunking, Logger: opt.Logger}
	start := time.Now()
	rep, err := ix.Reindex(ctx, p, repoScopes, opt.Progress)
	took := time.Since(start)
	if err != nil {
		return repoIndex{}, fmt.Errorf("index %s: %w", root, err)
	}
	ri := repoIndex{root: root, took: took,
		summary: &IndexSummary{Work: root, Commit: head.Commit, Complete: rep.Complete, Reused: true}}
	for _, sr := range rep.Scopes {
		s := ri.summary
		s.Docs += sr.Files
		s.Chunks += sr.Chunks.Total
		s.LexicalOnly += sr.LexicalOnly
		s.Embedded += sr.Embedding.Embedded
		s.Cached += sr.Embedding.Cached
		s.Reused = s.Reused && sr.Unchanged
		if sr.Embedding.Reason != "" {
			s.Reason = sr.Embedding.Reason
		}
		ri.embed += time.Duration(sr.Durations.EmbedMs) * time.Millisecond
	}
	return ri, nil
}

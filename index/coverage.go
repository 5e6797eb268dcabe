package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/words"
	"github.com/ragd/ragd/source"
)

// maxUnindexed bounds ragd.ScopeCoverage.Unindexed: enough to act on, not a dump.
const maxUnindexed = 100

// Coverage compares project p's index with its sources: the markdown files
// under docs/ at HEAD (or in the working tree, with Indexer.Source.WorkTree)
// and the sessions of its log. A repository that cannot be read is a note,
// not an error: the session coverage still holds. The error is the store's.
func (ix *Indexer) Coverage(ctx context.Context, p ragd.Project) (*ragd.Coverage, error) {
	cov := &ragd.Coverage{Project: p.Name, Notes: []string{}, Language: p.LanguageInForce(), LanguageSetting: p.Language}
	_, cov.Running = ix.Running(p.ID)

	tree, err := source.ReadDocs(ctx, p.Path, ix.sourceOptions(p))
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("coverage of %s: %w", p.Name, err)
		}
		cov.Notes = append(cov.Notes, fmt.Sprintf("documents not readable: %v", err))
		if _, statErr := os.Stat(p.Path); errors.Is(statErr, os.ErrNotExist) {
			cov.Notes = append(cov.Notes, fmt.Sprintf("the project's folder %s is gone, so a reindex cannot read it: "+
				"`ragd remove %s` forgets the project, or `ragd add NEWPATH` registers it where it moved", p.Path, p.Name))
		}
		tree = nil
	} else {
		cov.Head = &ragd.Head{Commit: tree.Commit, Branch: tree.Branch, Detached: tree.Detached, WorkTree: tree.WorkTree}
		cov.Notes = append(cov.Notes, tree.Notes...)
		cov.Layout = ix.layout(ctx, p, tree)
	}
	for _, scope := range []string{ragd.ScopeDocs, ragd.ScopeADR} {
		sc, err := ix.docCoverage(ctx, p, scope, tree)
		if err != nil {
			return nil, err
		}
		cov.Scopes = append(cov.Scopes, sc)
	}
	sc, err := ix.sessionCoverage(ctx, p)
	if err != nil {
		return nil, err
	}
	cov.Scopes = append(cov.Scopes, sc)
	return cov, nil
}

// lastOK returns the last successful run of a scope, or nil.
func (ix *Indexer) lastOK(ctx context.Context, p ragd.Project, scope string) (*ragd.Run, error) {
	run, err := ix.Store.LastRun(ctx, p.ID, scope, ragd.RunOK)
	if errors.Is(err, ragd.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("coverage of %s: %w", p.Name, err)
	}
	return &run, nil
}

func (ix *Indexer) docCoverage(ctx context.Context, p ragd.Project, scope string, tree *source.Tree) (*ragd.ScopeCoverage, error) {
	sc := &ragd.ScopeCoverage{Scope: scope, Unit: "files", Unindexed: []string{}}
	stats, err := ix.Store.ScopeStats(ctx, p.ID, scope)
	if err != nil {
		return nil, fmt.Errorf("coverage of %s: %w", p.Name, err)
	}
	sc.Chunks, sc.LexicalOnly = stats.Chunks, stats.LexicalOnly
	sc.Unembeddable = noVectorReasons(stats.Unembeddable)
	run, err := ix.lastOK(ctx, p, scope)
	if err != nil {
		return nil, err
	}
	if run != nil {
		sc.LastIndexed, sc.LastCommit = &run.FinishedAt, run.Commit
	}

	if tree == nil {
		// The repository cannot be read: what is indexed cannot be checked
		// against it.
		sc.Stale = sc.Chunks > 0 || run != nil
		if sc.Stale {
			sc.StaleReason = "the repository cannot be read (see notes)"
		}
		return sc, nil
	}
	for _, f := range tree.Files {
		if f.Scope != scope {
			continue
		}
		sc.Total++
		if stats.Sources[f.Path] > 0 {
			sc.Indexed++
		} else if len(sc.Unindexed) < maxUnindexed {
			sc.Unindexed = append(sc.Unindexed, f.Path)
		}
	}
	for _, s := range tree.Skipped {
		if s.Scope == scope {
			sc.Total++
			sc.Skipped++
		}
	}

	switch {
	case run == nil && sc.Total == 0:
		// Nothing to index and nothing indexed: not stale.
	case run == nil:
		sc.Stale, sc.StaleReason = true, "never indexed"
	case lastRules(run) < RulesVersion:
		sc.Stale, sc.StaleReason = true, "indexed by older rules for finding documents: reindex to read what they now find"
	case lastSettings(run) != "" && lastSettings(run) != ix.settingsDigest(p):
		sc.Stale, sc.StaleReason = true, "the settings of what is read (include, exclude, ADR folders) changed since the last index: reindex to read by them"
	case run.Commit != tree.Commit:
		sc.Stale = true
		sc.StaleReason = fmt.Sprintf("HEAD moved from %s to %s since the last index", short(run.Commit), short(tree.Commit))
	case tree.WorkTree:
		// The same commit says nothing of the files on disk: only a fresh
		// reindex does. Say so rather than claim freshness.
		var last ragd.ScopeReport
		if json.Unmarshal(run.Report, &last) != nil || last.Digest != digest(tree, scope) {
			sc.Stale, sc.StaleReason = true, "files in the working tree changed since the last index"
		}
	}
	return sc, nil
}

// lastSettings is the settings digest a run read its documents with (see
// settingsDigest), "" for runs from before it was recorded.
func lastSettings(run *ragd.Run) string {
	var last ragd.ScopeReport
	if json.Unmarshal(run.Report, &last) != nil {
		return ""
	}
	return last.Settings
}

// lastRules is the RulesVersion a run read its documents with: 1 for runs
// from before the version was recorded.
func lastRules(run *ragd.Run) int {
	var last ragd.ScopeReport
	if json.Unmarshal(run.Report, &last) != nil || last.Rules == 0 {
		return 1
	}
	return last.Rules
}

func short(commit string) string {
	if commit == "" {
		return "(none)"
	}
	return commit[:min(len(commit), 12)]
}

func (ix *Indexer) sessionCoverage(ctx context.Context, p ragd.Project) (*ragd.ScopeCoverage, error) {
	sc := &ragd.ScopeCoverage{Scope: ragd.ScopeSession, Unit: "sessions", Unindexed: []string{}}
	chunks, err := ix.Store.ScopeStats(ctx, p.ID, ragd.ScopeSession)
	if err != nil {
		return nil, fmt.Errorf("coverage of %s: %w", p.Name, err)
	}
	sc.Chunks, sc.LexicalOnly = chunks.Chunks, chunks.LexicalOnly
	sc.Unembeddable = noVectorReasons(chunks.Unembeddable)
	run, err := ix.lastOK(ctx, p, ragd.ScopeSession)
	if err != nil {
		return nil, err
	}
	// Appends write their messages' chunks (see AppendEvents): messages
	// without chunks appended after the last reindex read its latest one
	// (from the run's report, else from its start) are what a reindex
	// would add. Before any reindex, every message counts.
	var since time.Time
	if run != nil {
		sc.LastIndexed = &run.FinishedAt
		since = run.StartedAt
		var last ragd.ScopeReport
		if json.Unmarshal(run.Report, &last) == nil && last.EventsThrough != nil {
			since = *last.EventsThrough
		}
	}
	stats, err := ix.Store.SessionStats(ctx, p.ID, ragd.IndexedTypes, since)
	if err != nil {
		return nil, fmt.Errorf("coverage of %s: %w", p.Name, err)
	}
	sc.Total, sc.Indexed = stats.Sessions, stats.SessionsIndexed
	sc.Messages, sc.MessagesIndexed = stats.Messages, stats.MessagesIndexed
	if sc.Indexed < sc.Total {
		ids, err := ix.unindexedSessions(ctx, p, chunks.Sources)
		if err != nil {
			return nil, err
		}
		sc.Unindexed = ids
	}
	switch {
	case stats.UnindexedSince == 0:
	case run == nil:
		sc.Stale, sc.StaleReason = true, "never indexed"
	default:
		sc.Stale, sc.StaleReason = true, fmt.Sprintf("%s appended since the last index without chunks", words.Plural(stats.UnindexedSince, "message"))
	}
	return sc, nil
}

// unindexedSessions lists the first sessions with messages but no chunk.
func (ix *Indexer) unindexedSessions(ctx context.Context, p ragd.Project, indexed map[string]int) ([]string, error) {
	msgs, err := ix.Store.Messages(ctx, p.ID, ragd.IndexedTypes)
	if err != nil {
		return nil, fmt.Errorf("coverage of %s: %w", p.Name, err)
	}
	out := []string{}
	for _, m := range msgs {
		if len(out) == maxUnindexed {
			break
		}
		// Messages come ordered by session.
		if indexed[m.SessionID] == 0 && (len(out) == 0 || out[len(out)-1] != m.SessionID) {
			out = append(out, m.SessionID)
		}
	}
	return out, nil
}

// noVectorReasons lists the reasons of chunks left without a vector for
// good, most chunks first; nil when there are none.
func noVectorReasons(by map[string]int) []ragd.NoVectorReason {
	var out []ragd.NoVectorReason
	for reason, n := range by {
		out = append(out, ragd.NoVectorReason{Reason: reason, Chunks: n})
	}
	slices.SortFunc(out, func(a, b ragd.NoVectorReason) int {
		if a.Chunks != b.Chunks {
			return b.Chunks - a.Chunks
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return out
}

package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/source"
)

// Resolver checks a citation against what exists. problem, when not "",
// makes the citation unresolvable (it names nothing that exists); warning,
// when not "", is a remark on a citation that still counts (it exists but
// the index cannot find it).
type Resolver interface {
	Resolve(c Citation) (problem, warning string)
}

// Resolve checks every relevant citation of s with r: unresolvable ones
// move to their query's Unresolvable, and warnings are added, each naming
// the query's origin.
func (s *Set) Resolve(r Resolver) {
	for _, q := range s.Queries {
		var kept []Citation
		for _, c := range q.Relevant {
			problem, warning := r.Resolve(c)
			if problem != "" {
				q.Unresolvable = append(q.Unresolvable, Unresolved{Citation: c, Reason: problem})
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: unresolvable citation %s: %s", q.Origin, c, problem))
				continue
			}
			if warning != "" {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s: %s", q.Origin, c, warning))
			}
			kept = append(kept, c)
		}
		q.Relevant = kept
	}
}

// ProjectResolver resolves citations against a registered project: files
// in the tree of the commit at HEAD of its repository, sessions and events
// in its log; it warns about files, sections and messages that exist but
// have no chunk in the index.
type ProjectResolver struct {
	// Commit is HEAD's commit.
	Commit string
	files  map[string]bool
	// headings maps each indexed path to its chunks' heading paths (with
	// the title first).
	headings map[string][][]string
	sessions map[string]bool            // sessions with conversation messages
	events   map[string]string          // event id → session id
	indexed  map[string]map[string]bool // session id → indexed event ids
}

// NewProjectResolver reads what p's citations can name: the file paths at
// HEAD of p's repository, its session messages and its indexed chunks.
func NewProjectResolver(ctx context.Context, st engine.CitationStore, p ragd.Project) (*ProjectResolver, error) {
	r := &ProjectResolver{files: map[string]bool{}, headings: map[string][][]string{}, sessions: map[string]bool{},
		events: map[string]string{}, indexed: map[string]map[string]bool{}}
	head, err := source.Head(ctx, p.Path)
	if err != nil && !errors.Is(err, source.ErrNoCommits) {
		return nil, fmt.Errorf("resolve citations of project %s: %w", p.Name, err)
	}
	if head.Commit != "" {
		r.Commit = head.Commit
		if err := r.readTree(p.Path, head.Commit); err != nil {
			return nil, fmt.Errorf("resolve citations of project %s: %w", p.Name, err)
		}
	}
	msgs, err := st.Messages(ctx, p.ID, []string{ragd.TypeChatMessage, ragd.TypeAgentResponse})
	if err != nil {
		return nil, fmt.Errorf("resolve citations of project %s: %w", p.Name, err)
	}
	for _, m := range msgs {
		r.sessions[m.SessionID] = true
		r.events[m.EventID] = m.SessionID
	}
	for _, scope := range ragd.Scopes {
		chunks, err := st.ScopeChunks(ctx, p.ID, scope)
		if err != nil {
			return nil, fmt.Errorf("resolve citations of project %s: %w", p.Name, err)
		}
		for _, c := range chunks {
			if scope == ragd.ScopeSession {
				if r.indexed[c.SessionID] == nil {
					r.indexed[c.SessionID] = map[string]bool{}
				}
				r.indexed[c.SessionID][c.EventID] = true
				continue
			}
			r.headings[c.SourcePath] = append(r.headings[c.SourcePath], append([]string{c.Title}, c.HeadingPath...))
		}
	}
	return r, nil
}

// readTree lists the files of commit's tree.
func (r *ProjectResolver) readTree(repoPath, commit string) error {
	repo, err := source.Open(repoPath)
	if err != nil {
		return err
	}
	c, err := repo.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return fmt.Errorf("read commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return fmt.Errorf("read tree of %s: %w", commit, err)
	}
	return tree.Files().ForEach(func(f *object.File) error {
		r.files[f.Name] = true
		return nil
	})
}

// Resolve implements Resolver.
func (r *ProjectResolver) Resolve(c Citation) (problem, warning string) {
	switch {
	case c.SourcePath != "":
		if !r.files[c.SourcePath] {
			if r.Commit == "" {
				return "the repository has no commit", ""
			}
			return fmt.Sprintf("no such file at HEAD (%s)", short(r.Commit)), ""
		}
		hs, ok := r.headings[c.SourcePath]
		if !ok {
			return "", "the file exists at HEAD but has no chunk in the index (not a markdown file under docs/, or not indexed yet: ragd reindex); counted as relevant"
		}
		if len(c.HeadingPath) == 0 {
			return "", ""
		}
		for _, h := range hs {
			if hasPrefix(h[1:], c.HeadingPath) || hasPrefix(h, c.HeadingPath) {
				return "", ""
			}
		}
		return "", fmt.Sprintf("no indexed section has heading path %q; counted as relevant", strings.Join(c.HeadingPath, " > "))
	case c.SessionID != "":
		if c.EventID != "" {
			sess, ok := r.events[c.EventID]
			switch {
			case !ok:
				return "no such conversation message in the project's session log", ""
			case sess != c.SessionID:
				return fmt.Sprintf("the message belongs to session %s", sess), ""
			case !r.indexed[c.SessionID][c.EventID]:
				return "", "the message has no chunk in the index (ragd reindex --scope session); counted as relevant"
			}
			return "", ""
		}
		if !r.sessions[c.SessionID] {
			return "no such session with conversation messages in the project's log", ""
		}
		if len(r.indexed[c.SessionID]) == 0 {
			return "", "the session has no chunk in the index (ragd reindex --scope session); counted as relevant"
		}
	}
	return "", ""
}

func short(commit string) string {
	if len(commit) > 10 {
		return commit[:10]
	}
	return commit
}

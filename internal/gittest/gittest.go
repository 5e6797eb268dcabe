// Package gittest builds real git repositories in temporary directories for
// tests, with go-git only (no git binary). Commits get a fixed author and
// increasing fixed times, so hashes are reproducible from one run to the
// next.
package gittest

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Branch is the branch a new repository starts on.
const Branch = "main"

// Epoch is the time of the first commit; each later commit is a minute
// after the previous one.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Repo is a repository made for a test.
type Repo struct {
	// Dir is the top-level directory of the working tree, or the git
	// directory of a bare repository.
	Dir  string
	R    *git.Repository
	Bare bool

	commits int
}

// New makes an empty, non-bare repository on branch main in a new
// temporary directory.
func New(tb testing.TB) *Repo {
	tb.Helper()
	dir := tb.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(Branch)},
	})
	if err != nil {
		tb.Fatalf("gittest: init %s: %v", dir, err)
	}
	return &Repo{Dir: dir, R: r}
}

// Commit writes files (path -> content, slash-separated paths relative to
// the top level; "" is an empty file, not a deletion: see Remove) to the
// working tree, adds them and commits them with whatever else is staged.
// It returns the commit hash.
func (r *Repo) Commit(tb testing.TB, msg string, files map[string]string) string {
	tb.Helper()
	wt := r.worktree(tb)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		r.WriteUncommitted(tb, p, files[p])
		// SkipStatus: a full status per file is slow, and trips over
		// the gitlinks StageGitlink leaves without a checkout.
		if err := wt.AddWithOptions(&git.AddOptions{Path: p, SkipStatus: true}); err != nil {
			tb.Fatalf("gittest: add %s: %v", p, err)
		}
	}
	return r.commit(tb, msg)
}

// Remove deletes paths from the working tree and the index and commits.
func (r *Repo) Remove(tb testing.TB, msg string, paths ...string) string {
	tb.Helper()
	wt := r.worktree(tb)
	for _, p := range paths {
		if _, err := wt.Remove(p); err != nil {
			tb.Fatalf("gittest: remove %s: %v", p, err)
		}
	}
	return r.commit(tb, msg)
}

// Rename moves the file from to to (creating to's directory) and commits.
func (r *Repo) Rename(tb testing.TB, msg, from, to string) string {
	tb.Helper()
	wt := r.worktree(tb)
	if err := os.MkdirAll(filepath.Dir(r.path(to)), 0o755); err != nil {
		tb.Fatalf("gittest: rename %s: %v", to, err)
	}
	if _, err := wt.Move(from, to); err != nil {
		tb.Fatalf("gittest: rename %s to %s: %v", from, to, err)
	}
	return r.commit(tb, msg)
}

// WriteUncommitted writes a file to the working tree only, creating its
// directory.
func (r *Repo) WriteUncommitted(tb testing.TB, path, content string) {
	tb.Helper()
	r.worktree(tb)
	full := r.path(path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tb.Fatalf("gittest: mkdir for %s: %v", path, err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		tb.Fatalf("gittest: write %s: %v", path, err)
	}
}

// Checkout checks out the commit hash, leaving HEAD detached.
func (r *Repo) Checkout(tb testing.TB, hash string) {
	tb.Helper()
	wt := r.worktree(tb)
	if err := wt.Checkout(&git.CheckoutOptions{Hash: plumbing.NewHash(hash)}); err != nil {
		tb.Fatalf("gittest: checkout %s: %v", hash, err)
	}
}

// CheckoutBranch checks out an existing branch, creating it at HEAD first
// if create is set.
func (r *Repo) CheckoutBranch(tb testing.TB, name string, create bool) {
	tb.Helper()
	wt := r.worktree(tb)
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(name), Create: create}); err != nil {
		tb.Fatalf("gittest: checkout branch %s: %v", name, err)
	}
}

// Head returns the hash of the commit at HEAD.
func (r *Repo) Head(tb testing.TB) string {
	tb.Helper()
	ref, err := r.R.Head()
	if err != nil {
		tb.Fatalf("gittest: head of %s: %v", r.Dir, err)
	}
	return ref.Hash().String()
}

// commit commits what is staged with the fixed author and the next time.
func (r *Repo) commit(tb testing.TB, msg string) string {
	tb.Helper()
	wt := r.worktree(tb)
	sig := &object.Signature{
		Name:  "ragd test",
		Email: "test@ragd.invalid",
		When:  Epoch.Add(time.Duration(r.commits) * time.Minute),
	}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		tb.Fatalf("gittest: commit %q in %s: %v", msg, r.Dir, err)
	}
	r.commits++
	return h.String()
}

func (r *Repo) worktree(tb testing.TB) *git.Worktree {
	tb.Helper()
	if r.Bare {
		tb.Fatalf("gittest: %s is bare: no working tree", r.Dir)
	}
	wt, err := r.R.Worktree()
	if err != nil {
		tb.Fatalf("gittest: worktree of %s: %v", r.Dir, err)
	}
	return wt
}

// path turns a slash-separated path into one on disk.
func (r *Repo) path(p string) string {
	return filepath.Join(r.Dir, filepath.FromSlash(p))
}

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
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
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

// CommitTree commits files (path -> content) as the whole tree of a new
// commit on the current branch, writing git objects directly rather than
// through the index and working tree: thousands of files in a second,
// where Commit's adds cost a walk of the index each. The working tree is
// left as it was (empty for a new repository): tests of what is at HEAD
// need no checkout.
func (r *Repo) CommitTree(tb testing.TB, msg string, files map[string][]byte) string {
	tb.Helper()
	root := &treeNode{dirs: map[string]*treeNode{}, files: map[string][]byte{}}
	for p, content := range files {
		n := root
		parts := strings.Split(p, "/")
		for _, d := range parts[:len(parts)-1] {
			sub := n.dirs[d]
			if sub == nil {
				sub = &treeNode{dirs: map[string]*treeNode{}, files: map[string][]byte{}}
				n.dirs[d] = sub
			}
			n = sub
		}
		n.files[parts[len(parts)-1]] = content
	}
	treeHash, err := root.write(r.R.Storer)
	if err != nil {
		tb.Fatalf("gittest: writing tree in %s: %v", r.Dir, err)
	}
	sig := object.Signature{Name: "ragd test", Email: "test@ragd.invalid", When: Epoch.Add(time.Duration(r.commits) * time.Minute)}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: treeHash}
	if head, err := r.R.Head(); err == nil {
		c.ParentHashes = []plumbing.Hash{head.Hash()}
	}
	obj := r.R.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		tb.Fatalf("gittest: encoding commit: %v", err)
	}
	h, err := r.R.Storer.SetEncodedObject(obj)
	if err != nil {
		tb.Fatalf("gittest: writing commit: %v", err)
	}
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(Branch), h)
	if err := r.R.Storer.SetReference(ref); err != nil {
		tb.Fatalf("gittest: updating %s: %v", Branch, err)
	}
	r.commits++
	return h.String()
}

// treeNode is a folder of CommitTree's.
type treeNode struct {
	dirs  map[string]*treeNode
	files map[string][]byte
}

func (n *treeNode) write(st storer.EncodedObjectStorer) (plumbing.Hash, error) {
	var t object.Tree
	for name, content := range n.files {
		obj := st.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		w, err := obj.Writer()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if _, err := w.Write(content); err != nil {
			return plumbing.ZeroHash, err
		}
		w.Close()
		h, err := st.SetEncodedObject(obj)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name, sub := range n.dirs {
		h, err := sub.write(st)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// Git orders entries by name, a folder's name as if it ended in "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(t.Entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	obj := st.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

package gittest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// entries returns path -> mode of every entry in the tree of commit hash,
// gitlinks included.
func entries(t *testing.T, r *git.Repository, hash string) map[string]filemode.FileMode {
	t.Helper()
	c, err := r.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]filemode.FileMode{}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if err != nil {
			break
		}
		if e.Mode != filemode.Dir {
			got[name] = e.Mode
		}
	}
	return got
}

func content(t *testing.T, r *git.Repository, hash, path string) string {
	t.Helper()
	c, err := r.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.File(path)
	if err != nil {
		t.Fatalf("%s at %s: %v", path, hash, err)
	}
	s, err := f.Contents()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCommitsAreReproducible(t *testing.T) {
	files := map[string]string{"a.md": "a", "docs/b.md": "b", "empty": ""}
	a, b := New(t), New(t)
	ha, hb := a.Commit(t, "one", files), b.Commit(t, "one", files)
	if ha != hb {
		t.Errorf("same commits in two repositories differ: %s vs %s", ha, hb)
	}
	if h2 := a.Commit(t, "two", map[string]string{"a.md": "a2"}); h2 == ha {
		t.Error("second commit has the first one's hash")
	}
	c, err := a.R.CommitObject(plumbing.NewHash(a.Head(t)))
	if err != nil {
		t.Fatal(err)
	}
	if want := Epoch.Add(time.Minute); !c.Author.When.Equal(want) {
		t.Errorf("second commit time = %v, want %v", c.Author.When, want)
	}
	if got := content(t, a.R, a.Head(t), "docs/b.md"); got != "b" {
		t.Errorf("docs/b.md = %q after second commit", got)
	}
	head, err := a.R.Head()
	if err != nil || head.Name().Short() != Branch {
		t.Errorf("HEAD = %v, %v; want branch %s", head, err, Branch)
	}
}

func TestRemoveRenameCheckout(t *testing.T) {
	r := New(t)
	first := r.Commit(t, "add", map[string]string{"docs/a.md": "a", "docs/b.md": "b"})
	removed := r.Remove(t, "remove", "docs/a.md")
	renamed := r.Rename(t, "rename", "docs/b.md", "docs/sub/c.md")

	for _, tc := range []struct {
		hash string
		want []string
	}{
		{first, []string{"docs/a.md", "docs/b.md"}},
		{removed, []string{"docs/b.md"}},
		{renamed, []string{"docs/sub/c.md"}},
	} {
		got := entries(t, r.R, tc.hash)
		if len(got) != len(tc.want) {
			t.Errorf("%s: entries %v, want %v", tc.hash, got, tc.want)
		}
		for _, p := range tc.want {
			if _, ok := got[p]; !ok {
				t.Errorf("%s: no %s in %v", tc.hash, p, got)
			}
		}
	}

	r.Checkout(t, first)
	head, err := r.R.Storer.Reference(plumbing.HEAD)
	if err != nil {
		t.Fatal(err)
	}
	if head.Type() != plumbing.HashReference || head.Hash().String() != first {
		t.Errorf("after Checkout HEAD = %v, want detached at %s", head, first)
	}
	if b, err := os.ReadFile(filepath.Join(r.Dir, "docs", "a.md")); err != nil || string(b) != "a" {
		t.Errorf("docs/a.md on disk after checkout = %q, %v", b, err)
	}
}

func TestSpecialEntries(t *testing.T) {
	r := New(t)
	r.Commit(t, "readme", map[string]string{"README.md": "hi"})
	sub := r.Head(t)
	r.CommitSymlink(t, "link", "docs/readme.md", "../README.md")
	h := r.CommitGitlink(t, "submodule", "docs/vendor", sub)

	got := entries(t, r.R, h)
	for p, want := range map[string]filemode.FileMode{
		"README.md":      filemode.Regular,
		"docs/readme.md": filemode.Symlink,
		"docs/vendor":    filemode.Submodule,
		".gitmodules":    filemode.Regular,
	} {
		if got[p] != want {
			t.Errorf("%s: mode %v, want %v", p, got[p], want)
		}
	}
	if target := content(t, r.R, h, "docs/readme.md"); target != "../README.md" {
		t.Errorf("symlink target = %q", target)
	}
	if target, err := os.Readlink(filepath.Join(r.Dir, "docs", "readme.md")); err != nil || target != "../README.md" {
		t.Errorf("symlink on disk = %q, %v", target, err)
	}
	if m := content(t, r.R, h, ".gitmodules"); !strings.Contains(m, "path = docs/vendor") {
		t.Errorf(".gitmodules = %q", m)
	}
	// The gitlink must not get in the way of later commits.
	h2 := r.Commit(t, "more", map[string]string{"docs/x.md": "x"})
	if got := entries(t, r.R, h2); got["docs/vendor"] != filemode.Submodule || got["docs/x.md"] != filemode.Regular {
		t.Errorf("after another commit: %v", got)
	}
}

func TestLFSPointer(t *testing.T) {
	p := LFSPointer("hello")
	want := "version https://git-lfs.github.com/spec/v1\n" +
		"oid sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\nsize 5\n"
	if p != want {
		t.Errorf("LFSPointer = %q, want %q", p, want)
	}
}

func TestCloneBare(t *testing.T) {
	r := New(t)
	r.Commit(t, "one", map[string]string{"docs/a.md": "a"})
	h := r.Commit(t, "two", map[string]string{"docs/b.md": "b"})
	b := r.CloneBare(t)
	if !b.Bare || b.Dir == r.Dir {
		t.Fatalf("clone = %+v", b)
	}
	// Opened afresh, as a reader would.
	g, err := git.PlainOpen(b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Worktree(); err != git.ErrIsBareRepository {
		t.Errorf("Worktree() error = %v, want ErrIsBareRepository", err)
	}
	head, err := g.Head()
	if err != nil || head.Hash().String() != h || head.Name().Short() != Branch {
		t.Fatalf("bare HEAD = %v, %v; want %s on %s", head, err, h, Branch)
	}
	if got := content(t, g, h, "docs/a.md"); got != "a" {
		t.Errorf("docs/a.md = %q", got)
	}
	packs, _ := filepath.Glob(filepath.Join(b.Dir, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Errorf("packfiles = %v, want one", packs)
	}
}

func TestLinkWorktree(t *testing.T) {
	r := New(t)
	first := r.Commit(t, "one", map[string]string{"docs/a.md": "a"})
	r.Commit(t, "two", map[string]string{"docs/a.md": "a2"})
	dir := r.LinkWorktree(t, "wt", first)

	g, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		t.Fatal(err)
	}
	head, err := g.Head()
	if err != nil || head.Hash().String() != first {
		t.Errorf("worktree HEAD = %v, %v; want %s", head, err, first)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "docs", "a.md")); err != nil || string(b) != "a" {
		t.Errorf("checked-out docs/a.md = %q, %v", b, err)
	}
	if mainHead := r.Head(t); mainHead == first {
		t.Error("main worktree's HEAD moved")
	}
}

func TestNewBareIsEmpty(t *testing.T) {
	b := NewBare(t)
	if _, err := b.R.Head(); err != plumbing.ErrReferenceNotFound {
		t.Errorf("Head() error = %v, want ErrReferenceNotFound", err)
	}
}

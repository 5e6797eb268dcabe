package gittest

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// LFSPointer returns the Git LFS pointer file that stands for content.
func LFSPointer(content string) string {
	return fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%x\nsize %d\n",
		sha256.Sum256([]byte(content)), len(content))
}

// CommitSymlink makes path a symbolic link to target, on disk and in the
// index, and commits. The target is stored verbatim, as git stores it, so
// it may be absolute, dangling or point outside the repository.
func (r *Repo) CommitSymlink(tb testing.TB, msg, path, target string) string {
	tb.Helper()
	r.worktree(tb)
	full := r.path(path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tb.Fatalf("gittest: mkdir for %s: %v", path, err)
	}
	if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
		tb.Fatalf("gittest: replacing %s: %v", path, err)
	}
	if err := os.Symlink(target, full); err != nil {
		tb.Fatalf("gittest: symlink %s -> %s: %v", path, target, err)
	}
	r.stage(tb, path, filemode.Symlink, r.writeBlob(tb, []byte(target)), int64(len(target)))
	return r.commit(tb, msg)
}

// CommitGitlink adds a submodule at path, as `git submodule add` would
// leave it before `git submodule update`: a gitlink entry naming commit
// hash (which need not exist in this repository), an empty directory on
// disk, and a section in .gitmodules. It commits and returns the hash.
func (r *Repo) CommitGitlink(tb testing.TB, msg, path, hash string) string {
	tb.Helper()
	wt := r.worktree(tb)
	if err := os.MkdirAll(r.path(path), 0o755); err != nil {
		tb.Fatalf("gittest: mkdir %s: %v", path, err)
	}
	modules, err := os.ReadFile(r.path(".gitmodules"))
	if err != nil && !os.IsNotExist(err) {
		tb.Fatalf("gittest: reading .gitmodules: %v", err)
	}
	modules = fmt.Appendf(modules, "[submodule %q]\n\tpath = %s\n\turl = ../%s\n", path, path, filepath.Base(path))
	r.WriteUncommitted(tb, ".gitmodules", string(modules))
	if err := wt.AddWithOptions(&git.AddOptions{Path: ".gitmodules", SkipStatus: true}); err != nil {
		tb.Fatalf("gittest: add .gitmodules: %v", err)
	}
	r.stage(tb, path, filemode.Submodule, plumbing.NewHash(hash), 0)
	return r.commit(tb, msg)
}

// stage puts an entry straight into the index, for the kinds of entry the
// worktree's Add cannot make.
func (r *Repo) stage(tb testing.TB, path string, mode filemode.FileMode, h plumbing.Hash, size int64) {
	tb.Helper()
	idx, err := r.R.Storer.Index()
	if err != nil {
		tb.Fatalf("gittest: reading index: %v", err)
	}
	e, err := idx.Entry(path)
	if err != nil {
		e = idx.Add(path)
	}
	e.Hash, e.Mode, e.Size = h, mode, uint32(size)
	e.ModifiedAt = Epoch
	if err := r.R.Storer.SetIndex(idx); err != nil {
		tb.Fatalf("gittest: writing index: %v", err)
	}
}

// writeBlob stores content as a blob object and returns its hash.
func (r *Repo) writeBlob(tb testing.TB, content []byte) plumbing.Hash {
	tb.Helper()
	o := r.R.Storer.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	o.SetSize(int64(len(content)))
	w, err := o.Writer()
	if err != nil {
		tb.Fatalf("gittest: blob writer: %v", err)
	}
	if _, err := w.Write(content); err != nil {
		tb.Fatalf("gittest: writing blob: %v", err)
	}
	if err := w.Close(); err != nil {
		tb.Fatalf("gittest: writing blob: %v", err)
	}
	h, err := r.R.Storer.SetEncodedObject(o)
	if err != nil {
		tb.Fatalf("gittest: storing blob: %v", err)
	}
	return h
}

// NewBare makes an empty bare repository in a new temporary directory.
func NewBare(tb testing.TB) *Repo {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "bare.git")
	g, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(Branch)},
		Bare:        true,
	})
	if err != nil {
		tb.Fatalf("gittest: init bare %s: %v", dir, err)
	}
	return &Repo{Dir: dir, R: g, Bare: true}
}

// CloneBare makes a bare clone of r in a new temporary directory, as
// `git clone --bare` would: all objects in one packfile, the branches and
// tags, and HEAD as in r. It copies through go-git's storage rather than
// its file transport, which would run git-upload-pack.
func (r *Repo) CloneBare(tb testing.TB) *Repo {
	tb.Helper()
	dst := NewBare(tb)

	var hashes []plumbing.Hash
	iter, err := r.R.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		tb.Fatalf("gittest: listing objects of %s: %v", r.Dir, err)
	}
	if err := iter.ForEach(func(o plumbing.EncodedObject) error {
		hashes = append(hashes, o.Hash())
		return nil
	}); err != nil {
		tb.Fatalf("gittest: listing objects of %s: %v", r.Dir, err)
	}
	pfw, ok := dst.R.Storer.(storer.PackfileWriter)
	if !ok {
		tb.Fatalf("gittest: storage %T cannot write packfiles", dst.R.Storer)
	}
	pw, err := pfw.PackfileWriter()
	if err != nil {
		tb.Fatalf("gittest: packfile writer: %v", err)
	}
	if _, err := packfile.NewEncoder(pw, r.R.Storer, false).Encode(hashes, 10); err != nil {
		tb.Fatalf("gittest: writing packfile: %v", err)
	}
	if err := pw.Close(); err != nil {
		tb.Fatalf("gittest: closing packfile: %v", err)
	}

	refs, err := r.R.Storer.IterReferences()
	if err != nil {
		tb.Fatalf("gittest: listing refs of %s: %v", r.Dir, err)
	}
	if err := refs.ForEach(func(ref *plumbing.Reference) error {
		if ref.Name().IsBranch() || ref.Name().IsTag() {
			return dst.R.Storer.SetReference(ref)
		}
		return nil
	}); err != nil {
		tb.Fatalf("gittest: copying refs: %v", err)
	}
	head, err := r.R.Storer.Reference(plumbing.HEAD)
	if err != nil {
		tb.Fatalf("gittest: reading HEAD of %s: %v", r.Dir, err)
	}
	if err := dst.R.Storer.SetReference(head); err != nil {
		tb.Fatalf("gittest: writing HEAD: %v", err)
	}
	return dst
}

// LinkWorktree makes a linked worktree of r, as `git worktree add --detach`
// would: a new directory whose .git file names r's .git/worktrees/name,
// holding a detached HEAD at hash and a checkout of that commit's files.
// It returns the new directory.
func (r *Repo) LinkWorktree(tb testing.TB, name, hash string) string {
	tb.Helper()
	r.worktree(tb)
	dir := tb.TempDir()
	admin := filepath.Join(r.Dir, ".git", "worktrees", name)
	if err := os.MkdirAll(admin, 0o755); err != nil {
		tb.Fatalf("gittest: mkdir %s: %v", admin, err)
	}
	for name, content := range map[string]string{
		"HEAD":      hash + "\n",
		"commondir": "../..\n",
		"gitdir":    filepath.Join(dir, ".git") + "\n",
	} {
		if err := os.WriteFile(filepath.Join(admin, name), []byte(content), 0o644); err != nil {
			tb.Fatalf("gittest: writing %s: %v", name, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		tb.Fatalf("gittest: writing .git file: %v", err)
	}

	c, err := r.R.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		tb.Fatalf("gittest: commit %s: %v", hash, err)
	}
	files, err := c.Files()
	if err != nil {
		tb.Fatalf("gittest: files of %s: %v", hash, err)
	}
	if err := files.ForEach(func(f *object.File) error {
		return checkoutFile(dir, f)
	}); err != nil {
		tb.Fatalf("gittest: checking out %s into %s: %v", hash, dir, err)
	}
	return dir
}

func checkoutFile(dir string, f *object.File) error {
	full := filepath.Join(dir, filepath.FromSlash(f.Name))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	rd, err := f.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	content, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	if f.Mode == filemode.Symlink {
		return os.Symlink(string(content), full)
	}
	return os.WriteFile(full, content, 0o644)
}

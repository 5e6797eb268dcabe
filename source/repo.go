package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Errors callers branch on. They are always wrapped with the path concerned.
var (
	// ErrNotRepository reports a path that is not inside a git repository
	// (or does not exist).
	ErrNotRepository = errors.New("not a git repository")
	// ErrNoCommits reports a repository whose HEAD names a branch with no
	// commit yet; the caller reports "nothing committed yet".
	ErrNoCommits = errors.New("nothing committed yet")
	// ErrNoWorkTree reports a request to read the working tree of a bare
	// repository.
	ErrNoWorkTree = errors.New("repository has no working tree")
)

// HeadInfo describes where HEAD points and where the repository lives on
// disk. GitDir and CommonDir are what a watcher needs: HEAD is in GitDir,
// refs/ and packed-refs are in CommonDir. They differ only in a linked
// worktree, whose .git is a file naming a directory under the main
// repository's .git/worktrees/.
type HeadInfo struct {
	// Root is the top-level directory of the working tree, or the git
	// directory itself for a bare repository.
	Root string
	// GitDir is the absolute path of the directory holding HEAD.
	GitDir string
	// CommonDir is the absolute path of the directory holding refs/,
	// packed-refs and objects/.
	CommonDir string
	// Commit is the hash of the commit at HEAD; "" with ErrNoCommits.
	Commit string
	// Branch is the short name of the branch HEAD points to ("main"), or
	// the full reference name if it is not under refs/heads/; "" when
	// Detached.
	Branch string
	// Detached reports that HEAD holds a commit hash rather than naming a
	// branch.
	Detached bool
	// Bare reports a repository without a working tree.
	Bare bool
}

// repo is an opened repository and where it was found.
type repo struct {
	git       *git.Repository
	root      string
	gitDir    string
	commonDir string
	bare      bool
}

// Open opens the git repository containing path: path may be the top-level
// directory of a working tree, any directory or file inside one, a linked
// worktree (whose .git is a file), or a bare repository's directory. A path
// that is not in a repository gives an error wrapping ErrNotRepository.
func Open(path string) (*git.Repository, error) {
	r, err := openRepo(path)
	if err != nil {
		return nil, err
	}
	return r.git, nil
}

// Root returns the top-level directory of the repository containing path,
// with symbolic links resolved (as git rev-parse --show-toplevel does), so
// that one repository reached through two paths has one root. For a bare
// repository it returns the git directory.
func Root(path string) (string, error) {
	r, err := openRepo(path)
	if err != nil {
		return "", err
	}
	return r.root, nil
}

// Head reports where HEAD of the repository containing repoPath points,
// without reading any object. If nothing is committed yet it returns an
// error wrapping ErrNoCommits together with a HeadInfo whose Commit is empty
// but whose directories and Branch are set, so the caller can still watch
// for the first commit.
func Head(ctx context.Context, repoPath string) (HeadInfo, error) {
	if err := ctx.Err(); err != nil {
		return HeadInfo{}, fmt.Errorf("source: head of %s: %w", repoPath, err)
	}
	r, err := openRepo(repoPath)
	if err != nil {
		return HeadInfo{}, err
	}
	return r.head()
}

func (r *repo) head() (HeadInfo, error) {
	info := HeadInfo{Root: r.root, GitDir: r.gitDir, CommonDir: r.commonDir, Bare: r.bare}
	ref, err := r.git.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return info, fmt.Errorf("source: reading HEAD in %s: %w", r.gitDir, err)
	}
	switch ref.Type() {
	case plumbing.HashReference:
		info.Detached = true
	case plumbing.SymbolicReference:
		if t := ref.Target(); t.IsBranch() {
			info.Branch = t.Short()
		} else {
			info.Branch = t.String()
		}
	}
	resolved, err := r.git.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return info, fmt.Errorf("source: %s: %w", r.root, ErrNoCommits)
	}
	if err != nil {
		return info, fmt.Errorf("source: resolving HEAD in %s: %w", r.gitDir, err)
	}
	info.Commit = resolved.Hash().String()
	return info, nil
}

// openRepo finds and opens the repository containing path. It checks, in
// git's order, for a .git entry in the directory itself, then for the
// directory being a git directory (a bare repository), and only then walks
// up the parents. The explicit checks matter: go-git's DetectDotGit alone
// never recognises a bare repository, and would walk past it into an
// enclosing repository.
func openRepo(path string) (*repo, error) {
	if path == "" {
		path = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("source: resolving %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		// Checked first because DetectDotGit would happily find a
		// repository above a path that does not exist.
		return nil, fmt.Errorf("source: %s: %w: %w", path, ErrNotRepository, err)
	}
	dir := abs
	if !fi.IsDir() {
		dir = filepath.Dir(abs)
	}

	opt := &git.PlainOpenOptions{EnableDotGitCommonDir: true}
	if _, err := os.Lstat(filepath.Join(dir, git.GitDirName)); err != nil && !isGitDir(dir) {
		opt.DetectDotGit = true
	}
	g, err := git.PlainOpenWithOptions(dir, opt)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("source: %s: %w", path, ErrNotRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("source: opening repository at %s: %w", path, err)
	}

	r := &repo{git: g}
	st, ok := g.Storer.(*filesystem.Storage)
	if !ok {
		return nil, fmt.Errorf("source: opening repository at %s: unexpected storage %T", path, g.Storer)
	}
	r.gitDir = realPath(st.Filesystem().Root())
	r.commonDir = commonDir(r.gitDir)
	wt, err := g.Worktree()
	switch {
	case errors.Is(err, git.ErrIsBareRepository):
		r.bare = true
		r.root = r.gitDir
	case err != nil:
		return nil, fmt.Errorf("source: opening working tree of %s: %w", path, err)
	default:
		r.root = realPath(wt.Filesystem.Root())
	}
	return r, nil
}

// isGitDir reports whether dir looks like a git directory, by the test git
// itself uses: a HEAD file and objects/ and refs/ directories.
func isGitDir(dir string) bool {
	head, err := os.Stat(filepath.Join(dir, "HEAD"))
	if err != nil || !head.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		fi, err := os.Stat(filepath.Join(dir, sub))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// commonDir returns the directory named by gitDir/commondir (a linked
// worktree), or gitDir itself.
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	p := strings.TrimSpace(string(b))
	if p == "" {
		return gitDir
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(gitDir, p)
	}
	return realPath(p)
}

// realPath returns p absolute and cleaned, with symbolic links resolved
// when possible.
func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

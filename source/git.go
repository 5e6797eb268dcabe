package source

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// DefaultMaxFileBytes is the size above which a document is skipped when
// Options.MaxFileBytes is not set.
const DefaultMaxFileBytes = 1 << 20

// maxTreeDepth bounds recursion into nested trees; git itself refuses far
// shallower paths, so only a corrupt or hostile repository reaches it.
const maxTreeDepth = 1024

// Notes ReadDocs may add to Tree.Notes.
const (
	NoteNoDocsAtHead   = "no docs/ folder at HEAD"
	NoteNoDocsWorkTree = "no docs/ folder in the working tree"
	NoteNoCommitsYet   = "nothing committed yet: read from the working tree only"
)

// Options tunes ReadDocs.
type Options struct {
	// MaxFileBytes is the largest document read; larger ones are listed
	// in Tree.Skipped. Zero or negative means DefaultMaxFileBytes.
	MaxFileBytes int64
	// WorkTree reads the files on disk under docs/ instead of the tree of
	// the commit at HEAD: uncommitted and untracked files are seen,
	// ignored ones (.gitignore, info/exclude) are not. It is an error for
	// a bare repository.
	WorkTree bool
}

// File is one document.
type File struct {
	// Path is the git path, relative to the repository root. It is carried
	// as found, even if it is not valid UTF-8.
	Path string
	// Scope is ragd.ScopeADR or ragd.ScopeDocs.
	Scope string
	// Content is the file's bytes as stored: text, but not checked to be
	// valid UTF-8 (see ReasonBinary for what is refused).
	Content []byte
	// Blob is the git blob hash of the content, "" in work-tree mode.
	Blob string
}

// Skipped is a path under docs/ that was deliberately not read.
type Skipped struct {
	Path   string
	Reason string // one of the Reason constants
	// Size is the file's size in bytes for ReasonTooLarge, and the size
	// recorded in the pointer for ReasonLFSPointer; otherwise 0.
	Size int64
}

// Tree is what ReadDocs found.
type Tree struct {
	// Commit is the hash of the commit at HEAD; in work-tree mode "" if
	// nothing is committed yet.
	Commit string
	// Branch is the branch HEAD names, "" when Detached.
	Branch   string
	Detached bool
	// WorkTree reports that Files were read from disk, not from Commit.
	WorkTree bool
	// Files are the documents read, sorted by Path (byte order).
	Files []File
	// Skipped are the paths left out, with why, sorted by Path.
	Skipped []Skipped
	// Notes are remarks about the whole read, such as NoteNoDocsAtHead.
	Notes []string
}

// ReadDocs reads the markdown documents under docs/ of the repository
// containing repoPath, from the commit at HEAD or, with opt.WorkTree, from
// disk. It checks ctx between files. See the package documentation for what
// is read and what is skipped.
//
// Errors wrap ErrNotRepository, ErrNoCommits (not in work-tree mode, where
// an unborn branch gives a note instead) or ErrNoWorkTree.
func ReadDocs(ctx context.Context, repoPath string, opt Options) (*Tree, error) {
	r, err := openRepo(repoPath)
	if err != nil {
		return nil, err
	}
	limit := opt.MaxFileBytes
	if limit <= 0 {
		limit = DefaultMaxFileBytes
	}
	head, err := r.head()
	noCommits := errors.Is(err, ErrNoCommits)
	if err != nil && !(noCommits && opt.WorkTree) {
		return nil, err
	}
	t := &Tree{Commit: head.Commit, Branch: head.Branch, Detached: head.Detached, WorkTree: opt.WorkTree}

	if opt.WorkTree {
		if r.bare {
			return nil, fmt.Errorf("source: %s: %w", r.root, ErrNoWorkTree)
		}
		if noCommits {
			t.Notes = append(t.Notes, NoteNoCommitsYet)
		}
		err = readWorkTree(ctx, r, t, limit)
	} else {
		err = readCommit(ctx, r, head.Commit, t, limit)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(t.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(t.Skipped, func(a, b Skipped) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Reason, b.Reason))
	})
	return t, nil
}

// treeReader walks docs/ in the tree of one commit.
type treeReader struct {
	ctx   context.Context
	st    storer.EncodedObjectStorer
	root  *object.Tree
	limit int64
	out   *Tree
}

func readCommit(ctx context.Context, r *repo, hash string, t *Tree, limit int64) error {
	c, err := r.git.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return fmt.Errorf("source: reading commit %s in %s: %w", hash, r.root, err)
	}
	root, err := c.Tree()
	if err != nil {
		return fmt.Errorf("source: reading tree of commit %s in %s: %w", hash, r.root, err)
	}
	tr := &treeReader{ctx: ctx, st: r.git.Storer, root: root, limit: limit, out: t}

	e, ok := findEntry(root, docsDir)
	switch {
	case !ok:
		t.Notes = append(t.Notes, NoteNoDocsAtHead)
		return nil
	case e.Mode != filemode.Dir:
		t.Notes = append(t.Notes, NoteNoDocsAtHead+" ("+docsDir+" is "+describeMode(e.Mode)+")")
		return nil
	}
	docs, err := object.GetTree(tr.st, e.Hash)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		tr.skip(docsDir, ReasonMissingObject, 0)
		return nil
	}
	if err != nil {
		return fmt.Errorf("source: reading tree %s in %s: %w", docsDir, r.root, err)
	}
	if err := tr.walk(docsDir, docs, 1); err != nil {
		return fmt.Errorf("source: reading %s at %s in %s: %w", docsDir, hash, r.root, err)
	}
	return nil
}

func (tr *treeReader) skip(p, reason string, size int64) {
	tr.out.Skipped = append(tr.out.Skipped, Skipped{Path: p, Reason: reason, Size: size})
}

// walk reads the tree t found at git path dir. It iterates the entries
// itself rather than using Tree.Files, which silently drops gitlinks, or
// object.TreeWalker, which ends the walk early on a missing subtree and
// refuses names that are not valid UTF-8.
func (tr *treeReader) walk(dir string, t *object.Tree, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%s: %w", dir, object.ErrMaxTreeDepth)
	}
	for _, e := range t.Entries {
		if err := tr.ctx.Err(); err != nil {
			return err
		}
		p := dir + "/" + e.Name
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.Contains(e.Name, "/") {
			tr.skip(p, ReasonInvalidName, 0)
			continue
		}
		switch {
		case e.Mode == filemode.Dir:
			sub, err := object.GetTree(tr.st, e.Hash)
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				tr.skip(p, ReasonMissingObject, 0)
				continue
			}
			if err != nil {
				return fmt.Errorf("reading tree %s (%s): %w", p, e.Hash, err)
			}
			if err := tr.walk(p, sub, depth+1); err != nil {
				return err
			}
		case e.Mode == filemode.Submodule:
			tr.skip(p, ReasonSubmodule, 0)
		case e.Mode == filemode.Symlink:
			if err := tr.symlink(p, e.Hash); err != nil {
				return err
			}
		case e.Mode.IsFile():
			if _, ok := ScopeOf(p); ok {
				if err := tr.blob(p, e.Hash); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// blob reads the blob h as the document at path p, or records why not.
func (tr *treeReader) blob(p string, h plumbing.Hash) error {
	scope, _ := ScopeOf(p)
	b, err := object.GetBlob(tr.st, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		tr.skip(p, ReasonMissingObject, 0)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading blob %s for %s: %w", h, p, err)
	}
	if b.Size > tr.limit {
		tr.skip(p, ReasonTooLarge, b.Size)
		return nil
	}
	content, err := readBlob(b, tr.limit)
	if err != nil {
		return fmt.Errorf("reading blob %s for %s: %w", h, p, err)
	}
	if size, ok := lfsPointer(content); ok {
		tr.skip(p, ReasonLFSPointer, size)
		return nil
	}
	if isBinary(content) {
		tr.skip(p, ReasonBinary, 0)
		return nil
	}
	tr.out.Files = append(tr.out.Files, File{Path: p, Scope: scope, Content: content, Blob: h.String()})
	return nil
}

// symlink handles the symbolic link at p whose target is stored in blob h.
// A markdown-named link is read or skipped with a reason; any other link is
// reported only when it names a directory or leaves the repository, since
// it may name a folder holding documents the reader did not follow.
func (tr *treeReader) symlink(p string, h plumbing.Hash) error {
	_, markdown := ScopeOf(p)
	b, err := object.GetBlob(tr.st, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		if markdown {
			tr.skip(p, ReasonMissingObject, 0)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading symlink %s (%s): %w", p, h, err)
	}
	// A link's blob is its target path; git caps paths at 4096 bytes.
	target, err := readBlob(b, 4096)
	if err != nil {
		return fmt.Errorf("reading symlink %s (%s): %w", p, h, err)
	}
	tp, reason := linkTarget(p, string(target))
	if reason != "" {
		// Any link that leaves the repository is listed: it may name a
		// folder of documents, and ragd does not look outside the
		// repository to find out.
		if markdown || reason == ReasonLinkAbsolute || reason == ReasonLinkOutside {
			tr.skip(p, reason, 0)
		}
		return nil
	}
	e, ok, err := tr.lookup(tp)
	if err != nil {
		return fmt.Errorf("resolving symlink %s -> %s: %w", p, target, err)
	}
	switch {
	case ok && e.Mode == filemode.Dir:
		tr.skip(p, ReasonLinkToDir, 0)
	case !markdown:
	case !ok:
		tr.skip(p, ReasonLinkDangling, 0)
	case e.Mode == filemode.Symlink:
		tr.skip(p, ReasonLinkToLink, 0)
	case e.Mode.IsFile():
		return tr.blob(p, e.Hash)
	default:
		tr.skip(p, ReasonLinkOther, 0)
	}
	return nil
}

// lookup finds the entry at git path p in the root tree. It does not
// follow symbolic links on the way, so a path through one is not found.
func (tr *treeReader) lookup(p string) (object.TreeEntry, bool, error) {
	if p == "." {
		return object.TreeEntry{Mode: filemode.Dir, Hash: tr.root.Hash}, true, nil
	}
	t := tr.root
	parts := strings.Split(p, "/")
	for i, name := range parts {
		e, ok := findEntry(t, name)
		if !ok {
			return object.TreeEntry{}, false, nil
		}
		if i == len(parts)-1 {
			return e, true, nil
		}
		if e.Mode != filemode.Dir {
			return object.TreeEntry{}, false, nil
		}
		sub, err := object.GetTree(tr.st, e.Hash)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return object.TreeEntry{}, false, nil
		}
		if err != nil {
			return object.TreeEntry{}, false, err
		}
		t = sub
	}
	return object.TreeEntry{}, false, nil
}

// findEntry returns the entry called name directly in t.
func findEntry(t *object.Tree, name string) (object.TreeEntry, bool) {
	for _, e := range t.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return object.TreeEntry{}, false
}

// readBlob reads at most limit bytes of b.
func readBlob(b *object.Blob, limit int64) ([]byte, error) {
	rc, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, limit))
}

func describeMode(m filemode.FileMode) string {
	switch m {
	case filemode.Symlink:
		return "a symlink, not followed"
	case filemode.Submodule:
		return "a submodule, not read"
	default:
		return "a file"
	}
}

// lfsPointerPrefixes start a Git LFS pointer file; the spec requires the
// version key first. The hawser URL is the pre-release spelling git-lfs
// still accepts.
var lfsPointerPrefixes = [][]byte{
	[]byte("version https://git-lfs.github.com/spec/v1"),
	[]byte("version https://hawser.github.com/spec/v1"),
}

// lfsPointer reports whether content is a Git LFS pointer, and the size of
// the real content it records (0 if absent or unreadable).
func lfsPointer(content []byte) (int64, bool) {
	ok := false
	for _, p := range lfsPointerPrefixes {
		ok = ok || bytes.HasPrefix(content, p)
	}
	if !ok {
		return 0, false
	}
	for line := range strings.Lines(string(content)) {
		if v, found := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "size "); found {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n, true
		}
	}
	return 0, true
}

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

	"github.com/ragd/ragd"
)

// DefaultMaxFileBytes is the size above which a document is skipped when
// Options.MaxFileBytes is not set.
const DefaultMaxFileBytes = 1 << 20

// maxTreeDepth bounds recursion into nested trees; git itself refuses far
// shallower paths, so only a corrupt or hostile repository reaches it.
const maxTreeDepth = 1024

// Notes ReadDocs may add to Tree.Notes.
const (
	NoteNoProseAtHead   = "no prose files at HEAD (markdown, MDX, reStructuredText, AsciiDoc)"
	NoteNoProseWorkTree = "no prose files in the working tree (markdown, MDX, reStructuredText, AsciiDoc)"
	NoteNoCommitsYet    = "nothing committed yet: read from the working tree only"
)

// Options tunes ReadDocs.
type Options struct {
	// MaxFileBytes is the largest document read; larger ones are listed
	// in Tree.Skipped. Zero or negative means DefaultMaxFileBytes.
	MaxFileBytes int64
	// WorkTree reads the files on disk instead of the tree of the commit
	// at HEAD: uncommitted and untracked files are seen, ignored ones
	// (.gitignore, info/exclude) are not. It is an error for a bare
	// repository.
	WorkTree bool
	// Layout is the project's own settings (ragd.Layout): they come before
	// what the project declares and what its layout shows.
	Layout ragd.Layout
	// PathsOnly lists the files the rules choose without reading them:
	// Files carry no Content, the checks of content (binary, Git LFS
	// pointers) are not made, and numbered records, which need their text,
	// stay docs. For naming files, not indexing them.
	PathsOnly bool
}

// File is one document.
type File struct {
	// Path is the git path, relative to the repository root. It is carried
	// as found, even if it is not valid UTF-8.
	Path string
	// Scope is ragd.ScopeADR or ragd.ScopeDocs.
	Scope string
	// Rule is why the file was read into Scope.
	Rule Rule
	// Content is the file's bytes as stored: text, but not checked to be
	// valid UTF-8 (see ReasonBinary for what is refused).
	Content []byte
	// Blob is the git blob hash of the content, "" in work-tree mode.
	Blob string
}

// Skipped is a path the rules chose that was deliberately not read.
type Skipped struct {
	Path string
	// Scope is the scope the path would have had.
	Scope  string
	Reason string // one of the Reason constants
	// Size is the file's size in bytes for ReasonTooLarge, and the size
	// recorded in the pointer for ReasonLFSPointer; otherwise 0.
	Size int64
}

// LeftOut counts the prose files the rules left out for one reason; a
// folder not entered at all (node_modules, testdata) counts as one, its
// example ending in "/".
type LeftOut struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Examples are the first few paths, in path order.
	Examples []string `json:"examples"`
}

// maxExamples bounds LeftOut.Examples: enough to recognise, not a dump.
const maxExamples = 3

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
	// LeftOut counts the prose files the rules left out, by reason.
	LeftOut []LeftOut
	// Declared are the folders the project declares, used or stale.
	Declared []Declaration
	// Notes are remarks about the whole read, such as NoteNoProseAtHead.
	Notes []string
}

// ReadDocs reads the prose documents of the repository containing
// repoPath, from the commit at HEAD or, with opt.WorkTree, from disk, and
// gives each its scope by the rules of the package documentation. It checks
// ctx between files.
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
	prune := len(opt.Layout.Include) == 0

	var rd reader
	if opt.WorkTree {
		if r.bare {
			return nil, fmt.Errorf("source: %s: %w", r.root, ErrNoWorkTree)
		}
		if noCommits {
			t.Notes = append(t.Notes, NoteNoCommitsYet)
		}
		w, err := listWorkTree(ctx, r, t, limit, prune)
		if err != nil {
			return nil, err
		}
		defer w.root.Close()
		w.pathsOnly = opt.PathsOnly
		rd = w
	} else {
		tr, err := listCommit(ctx, r, head.Commit, t, limit, prune)
		if err != nil {
			return nil, err
		}
		tr.pathsOnly = opt.PathsOnly
		rd = tr
	}
	if err := classifyAll(ctx, rd, t, opt.Layout); err != nil {
		return nil, fmt.Errorf("source: reading %s: %w", r.root, err)
	}
	if len(t.Files) == 0 && len(t.Skipped) == 0 {
		if opt.WorkTree {
			t.Notes = append(t.Notes, NoteNoProseWorkTree)
		} else {
			t.Notes = append(t.Notes, NoteNoProseAtHead)
		}
	}
	slices.SortFunc(t.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(t.Skipped, func(a, b Skipped) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Reason, b.Reason))
	})
	return t, nil
}

// treeReader walks the tree of one commit.
type treeReader struct {
	ctx   context.Context
	st    storer.EncodedObjectStorer
	root  *object.Tree
	limit int64
	prune bool
	// pathsOnly: see Options.PathsOnly.
	pathsOnly bool
	out       *Tree
	entries   []entry
}

func listCommit(ctx context.Context, r *repo, hash string, t *Tree, limit int64, prune bool) (*treeReader, error) {
	c, err := r.git.CommitObject(plumbing.NewHash(hash))
	if err != nil {
		return nil, fmt.Errorf("source: reading commit %s in %s: %w", hash, r.root, err)
	}
	root, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("source: reading tree of commit %s in %s: %w", hash, r.root, err)
	}
	tr := &treeReader{ctx: ctx, st: r.git.Storer, root: root, limit: limit, prune: prune, out: t}
	if err := tr.walk("", root, 1); err != nil {
		return nil, fmt.Errorf("source: reading the tree at %s in %s: %w", hash, r.root, err)
	}
	return tr, nil
}

func (tr *treeReader) skip(p, reason string, size int64) {
	tr.out.Skipped = append(tr.out.Skipped, Skipped{Path: p, Reason: reason, Size: size})
}

func (tr *treeReader) list() []entry { return tr.entries }

// walk lists the tree t found at git path dir ("" for the root). It
// iterates the entries itself rather than using Tree.Files, which silently
// drops gitlinks, or object.TreeWalker, which ends the walk early on a
// missing subtree and refuses names that are not valid UTF-8.
func (tr *treeReader) walk(dir string, t *object.Tree, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%s: %w", dir, object.ErrMaxTreeDepth)
	}
	for _, e := range t.Entries {
		if err := tr.ctx.Err(); err != nil {
			return err
		}
		p := joinPath(dir, e.Name)
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.Contains(e.Name, "/") {
			tr.skip(p, ReasonInvalidName, 0)
			continue
		}
		switch {
		case e.Mode == filemode.Dir:
			if tr.prune && prunable(e.Name) {
				tr.entries = append(tr.entries, entry{path: p, kind: entryPruned})
				continue
			}
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
			tr.entries = append(tr.entries, entry{path: p, kind: entrySubmodule})
		case e.Mode == filemode.Symlink:
			tr.entries = append(tr.entries, entry{path: p, kind: entryLink, hash: e.Hash})
		case e.Mode.IsFile():
			if listed(e.Name) {
				tr.entries = append(tr.entries, entry{path: p, kind: entryFile, hash: e.Hash})
			}
		}
	}
	return nil
}

// readDecl reads a declaring file at p, a regular file, bounded.
func (tr *treeReader) readDecl(e entry) ([]byte, bool) {
	if e.kind != entryFile {
		return nil, false
	}
	b, err := object.GetBlob(tr.st, e.hash)
	if err != nil || b.Size > maxDeclBytes {
		return nil, false
	}
	content, err := readBlob(b, maxDeclBytes)
	return content, err == nil
}

// read reads the entry chosen by the rules into the tree, or records why
// not.
func (tr *treeReader) read(e entry, d decision) error {
	switch e.kind {
	case entrySubmodule:
		if d.reported() {
			tr.out.Skipped = append(tr.out.Skipped, Skipped{Path: e.path, Scope: d.skipScope(), Reason: ReasonSubmodule})
		}
		return nil
	case entryLink:
		return tr.symlink(e.path, e.hash, d)
	}
	return tr.blob(e.path, e.hash, d)
}

// blob reads the blob h as the document at path p, or records why not.
func (tr *treeReader) blob(p string, h plumbing.Hash, d decision) error {
	scope := d.scope
	b, err := object.GetBlob(tr.st, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		tr.skipIn(p, scope, ReasonMissingObject, 0)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading blob %s for %s: %w", h, p, err)
	}
	if b.Size > tr.limit {
		tr.skipIn(p, scope, ReasonTooLarge, b.Size)
		return nil
	}
	if tr.pathsOnly {
		tr.out.Files = append(tr.out.Files, File{Path: p, Scope: scope, Rule: d.rule, Blob: h.String()})
		return nil
	}
	content, err := readBlob(b, tr.limit)
	if err != nil {
		return fmt.Errorf("reading blob %s for %s: %w", h, p, err)
	}
	if size, ok := lfsPointer(content); ok {
		tr.skipIn(p, scope, ReasonLFSPointer, size)
		return nil
	}
	if isBinary(content) {
		tr.skipIn(p, scope, ReasonBinary, 0)
		return nil
	}
	tr.out.Files = append(tr.out.Files, File{Path: p, Scope: scope, Rule: d.rule, Content: content, Blob: h.String()})
	return nil
}

// symlink handles the symbolic link at p whose target is stored in blob h.
// A markdown-named link is read or skipped with a reason; any other link is
// reported only when it names a directory or leaves the repository, since
// it may name a folder holding documents the reader did not follow.
func (tr *treeReader) symlink(p string, h plumbing.Hash, d decision) error {
	markdown := d.scope != ""
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
		if markdown || d.reported() && (reason == ReasonLinkAbsolute || reason == ReasonLinkOutside) {
			tr.skipIn(p, d.skipScope(), reason, 0)
		}
		return nil
	}
	e, ok, err := tr.lookup(tp)
	if err != nil {
		return fmt.Errorf("resolving symlink %s -> %s: %w", p, target, err)
	}
	switch {
	case ok && e.Mode == filemode.Dir:
		if d.reported() {
			tr.skipIn(p, d.skipScope(), ReasonLinkToDir, 0)
		}
	case !markdown:
	case !ok:
		tr.skipIn(p, d.scope, ReasonLinkDangling, 0)
	case e.Mode == filemode.Symlink:
		tr.skipIn(p, d.scope, ReasonLinkToLink, 0)
	case e.Mode.IsFile():
		return tr.blob(p, e.Hash, d)
	default:
		tr.skipIn(p, d.scope, ReasonLinkOther, 0)
	}
	return nil
}

func (tr *treeReader) skipIn(p, scope, reason string, size int64) {
	tr.out.Skipped = append(tr.out.Skipped, Skipped{Path: p, Scope: scope, Reason: reason, Size: size})
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

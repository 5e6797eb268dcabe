package source

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// wtReader walks the working tree on disk. Every access goes through an
// os.Root at the top of the working tree, so no symbolic link, however
// placed, can make it read outside the repository.
type wtReader struct {
	ctx   context.Context
	root  *os.Root
	limit int64
	prune bool
	// pathsOnly: see Options.PathsOnly.
	pathsOnly bool
	out       *Tree
	entries   []entry
}

// listWorkTree lists the working tree of r; the caller closes the
// reader's root.
func listWorkTree(ctx context.Context, r *repo, t *Tree, limit int64, prune bool) (*wtReader, error) {
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, fmt.Errorf("source: opening working tree %s: %w", r.root, err)
	}
	w := &wtReader{ctx: ctx, root: root, limit: limit, prune: prune, out: t}

	// Lowest precedence first, as gitignore.NewMatcher wants: info/exclude
	// (shared by all worktrees), then the top-level .gitignore. Global and
	// system excludes are left out so that the result does not depend on
	// the user's configuration.
	ps := parseIgnore(readOptional(filepath.Join(r.commonDir, "info", "exclude")), nil)
	if err := w.walk("", ps); err != nil {
		root.Close()
		return nil, fmt.Errorf("source: reading working tree %s: %w", r.root, err)
	}
	return w, nil
}

func (w *wtReader) skip(p, scope, reason string, size int64) {
	w.out.Skipped = append(w.out.Skipped, Skipped{Path: p, Scope: scope, Reason: reason, Size: size})
}

func (w *wtReader) list() []entry { return w.entries }

// walk lists the directory at git path dir ("" for the top); ps are the
// ignore patterns in force above it.
func (w *wtReader) walk(dir string, ps []gitignore.Pattern) error {
	if strings.Count(dir, "/") >= maxTreeDepth {
		return fmt.Errorf("%s: directory nesting too deep", dir)
	}
	ps = append(slices.Clip(ps), w.ignoreFile(dir)...)
	m := gitignore.NewMatcher(ps)

	entries, err := w.readDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		p := joinPath(dir, e.Name())
		parts := strings.Split(p, "/")
		switch t := e.Type(); {
		case t.IsDir():
			if e.Name() == ".git" || m.Match(parts, true) {
				continue
			}
			if w.isRepo(p) {
				w.entries = append(w.entries, entry{path: p, kind: entryNestedRepo})
				continue
			}
			if w.prune && prunable(e.Name()) {
				w.entries = append(w.entries, entry{path: p, kind: entryPruned})
				continue
			}
			if err := w.walk(p, ps); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			if !m.Match(parts, false) {
				w.entries = append(w.entries, entry{path: p, kind: entryLink})
			}
		default:
			if !listed(e.Name()) || m.Match(parts, false) {
				continue
			}
			kind := entryFile
			if !t.IsRegular() {
				kind = entryIrregular
			}
			w.entries = append(w.entries, entry{path: p, kind: kind})
		}
	}
	return nil
}

// readDecl reads a declaring file, bounded.
func (w *wtReader) readDecl(e entry) ([]byte, bool) {
	if e.kind != entryFile {
		return nil, false
	}
	f, err := w.root.Open(filepath.FromSlash(e.path))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDeclBytes {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDeclBytes))
	return b, err == nil
}

// read reads the entry chosen by the rules into the tree, or records why
// not.
func (w *wtReader) read(e entry, d decision) error {
	switch e.kind {
	case entryNestedRepo:
		if d.reported() {
			w.skip(e.path, d.skipScope(), ReasonNestedRepo, 0)
		}
		return nil
	case entryIrregular:
		// A FIFO named like a document would block the read.
		if d.scope != "" {
			w.skip(e.path, d.scope, ReasonNotRegularFile, 0)
		}
		return nil
	case entryLink:
		return w.symlink(e.path, d)
	}
	return w.file(e.path, e.path, d)
}

// isRepo reports whether dir is the top of a nested repository, such as a
// checked-out submodule, whose files belong to another project.
func (w *wtReader) isRepo(dir string) bool {
	_, err := w.root.Lstat(filepath.FromSlash(dir + "/.git"))
	return err == nil
}

func (w *wtReader) readDir(dir string) ([]fs.DirEntry, error) {
	f, err := w.root.Open(filepath.FromSlash(cmp.Or(dir, ".")))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// file reads the regular file at git path src as the document at path p
// (they differ for a symbolic link), or records why not.
func (w *wtReader) file(p, src string, d decision) error {
	scope := d.scope
	f, err := w.root.Open(filepath.FromSlash(src))
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed while we walked
	}
	if err != nil {
		return fmt.Errorf("opening %s: %w", src, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", src, err)
	}
	if fi.Size() > w.limit {
		w.skip(p, scope, ReasonTooLarge, fi.Size())
		return nil
	}
	if w.pathsOnly {
		w.out.Files = append(w.out.Files, File{Path: p, Scope: scope, Rule: d.rule})
		return nil
	}
	content, err := io.ReadAll(io.LimitReader(f, w.limit+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, err)
	}
	if int64(len(content)) > w.limit {
		// It grew after Stat.
		w.skip(p, scope, ReasonTooLarge, int64(len(content)))
		return nil
	}
	if size, ok := lfsPointer(content); ok {
		w.skip(p, scope, ReasonLFSPointer, size)
		return nil
	}
	if isBinary(content) {
		w.skip(p, scope, ReasonBinary, 0)
		return nil
	}
	w.out.Files = append(w.out.Files, File{Path: p, Scope: scope, Rule: d.rule, Content: content})
	return nil
}

// symlink applies the same rules as treeReader.symlink to a link on disk.
func (w *wtReader) symlink(p string, d decision) error {
	markdown := d.scope != ""
	target, err := w.root.Readlink(filepath.FromSlash(p))
	if err != nil {
		return fmt.Errorf("reading symlink %s: %w", p, err)
	}
	tp, reason := linkTarget(p, filepath.ToSlash(target))
	if reason != "" {
		// Any link that leaves the repository is listed: it may name a
		// folder of documents, and ragd does not look outside the
		// repository to find out.
		if markdown || d.reported() && (reason == ReasonLinkAbsolute || reason == ReasonLinkOutside) {
			w.skip(p, d.skipScope(), reason, 0)
		}
		return nil
	}
	mode, ok, err := w.lookup(tp)
	if err != nil {
		return fmt.Errorf("resolving symlink %s -> %s: %w", p, target, err)
	}
	switch {
	case ok && mode.IsDir():
		if d.reported() {
			w.skip(p, d.skipScope(), ReasonLinkToDir, 0)
		}
	case !markdown:
	case !ok:
		w.skip(p, d.scope, ReasonLinkDangling, 0)
	case mode&fs.ModeSymlink != 0:
		w.skip(p, d.scope, ReasonLinkToLink, 0)
	case mode.IsRegular():
		return w.file(p, tp, d)
	default:
		w.skip(p, d.scope, ReasonLinkOther, 0)
	}
	return nil
}

// lookup returns the mode of the file at git path p without following any
// symbolic link on the way, mirroring treeReader.lookup.
func (w *wtReader) lookup(p string) (fs.FileMode, bool, error) {
	if p == "." {
		return fs.ModeDir, true, nil
	}
	parts := strings.Split(p, "/")
	for i := range parts {
		fi, err := w.root.Lstat(filepath.FromSlash(strings.Join(parts[:i+1], "/")))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		if i == len(parts)-1 {
			return fi.Mode(), true, nil
		}
		if !fi.IsDir() {
			return 0, false, nil
		}
	}
	return 0, false, nil
}

// ignoreFile returns the patterns of the .gitignore in the directory at git
// path dir ("" for the top level).
func (w *wtReader) ignoreFile(dir string) []gitignore.Pattern {
	name := ".gitignore"
	var domain []string
	if dir != "" {
		name = dir + "/" + name
		domain = strings.Split(dir, "/")
	}
	b, err := w.root.ReadFile(filepath.FromSlash(name))
	if err != nil {
		// Missing is the common case; an unreadable one is treated the
		// same, as git does.
		return nil
	}
	return parseIgnore(b, domain)
}

func parseIgnore(b []byte, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

func readOptional(name string) []byte {
	b, _ := os.ReadFile(name)
	return b
}

package source

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/gittest"
)

// modes runs a test in both reading modes.
var modes = []struct {
	name string
	opt  Options
}{
	{"head", Options{}},
	{"worktree", Options{WorkTree: true}},
}

func readDocs(t *testing.T, path string, opt Options) *Tree {
	t.Helper()
	tree, err := ReadDocs(context.Background(), path, opt)
	if err != nil {
		t.Fatalf("ReadDocs(%s, %+v): %v", path, opt, err)
	}
	return tree
}

// files returns path -> scope:content of the files read.
func files(tree *Tree) map[string]string {
	m := map[string]string{}
	for _, f := range tree.Files {
		m[f.Path] = f.Scope + ":" + string(f.Content)
	}
	return m
}

// skipped returns path -> reason of the paths skipped.
func skipped(tree *Tree) map[string]string {
	m := map[string]string{}
	for _, s := range tree.Skipped {
		m[s.Path] = s.Reason
	}
	return m
}

func equalMaps(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: missing %q (want %q)", what, k, w)
		} else if g != w {
			t.Errorf("%s[%q] = %q, want %q", what, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected %q = %q", what, k, g)
		}
	}
}

// blobHash returns the blob hash of path at commit.
func blobHash(t *testing.T, r *gittest.Repo, commit, path string) string {
	t.Helper()
	c, err := r.R.CommitObject(plumbing.NewHash(commit))
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.File(path)
	if err != nil {
		t.Fatalf("%s at %s: %v", path, commit, err)
	}
	return f.Hash.String()
}

func TestScopeOf(t *testing.T) {
	for _, tc := range []struct {
		path, scope string
	}{
		{"docs/a.md", ragd.ScopeDocs},
		{"docs/adr/0001.md", ragd.ScopeADR},
		{"docs/adr/sub/0002-x.markdown", ragd.ScopeADR},
		{"docs/adrx.md", ragd.ScopeDocs},
		{"docs/adr.md", ragd.ScopeDocs},
		{"docs/ADR/0001.md", ragd.ScopeADR}, // folder names in any case
		{"doc/adr/0001.md", ragd.ScopeADR},
		{"decisions/0001-x.md", ragd.ScopeADR},
		{"src/architecture-decisions/a.md", ragd.ScopeADR},
		{"docs/historic-adrs/a.md", ragd.ScopeADR},
		{"rfcs/0001-x/README.md", ragd.ScopeADR},
		{"keps/sig-x/1-kep/README.md", ragd.ScopeADR},
		{"guide/a.rst", ragd.ScopeDocs},
		{"docs/a.adoc", ragd.ScopeDocs},
		{"docs/a.mdx", ragd.ScopeDocs},
		{"pkg/README.md", ragd.ScopeDocs},
		{"pkg/notes.md", ragd.ScopeDocs},
		{"node_modules/x/README.md", ""},
		{"vendor/docs/a.md", ""},
		{"pkg/testdata/a.md", ""},
		{"website/versioned_docs/v1/a.md", ""},
		{"LICENSE.md", ""},
		{"docs/license.rst", ""},
		{"requirements.txt", ""},
		{"pkg/notes.txt", ""},
		{"CHANGELOG.txt", ragd.ScopeDocs},
		{"docs/guide/deep/x.MD", ragd.ScopeDocs},
		{"docs/x.Markdown", ragd.ScopeDocs},
		{"docs/caf\xe9.md", ragd.ScopeDocs},
		{"docs/x.txt", ragd.ScopeDocs},
		{"docs/md", ""},
		{"docs/x.md.bak", ""},
		{"docs/", ""},
		{"docs", ""},
		{"README.md", ragd.ScopeDocs},
		{"Docs/a.md", ragd.ScopeDocs},
		{"notdocs/a.md", ragd.ScopeDocs},
		{"sub/docs/a.md", ragd.ScopeDocs},
		{"/docs/a.md", ""},
		{"docs//a.md", ""},
		{"docs/./a.md", ""},
		{"docs/../a.md", ""},
		{"docs/adr/../../x.md", ""},
	} {
		scope, ok := ScopeOf(tc.path)
		if scope != tc.scope || ok != (tc.scope != "") {
			t.Errorf("ScopeOf(%q) = %q, %v; want %q", tc.path, scope, ok, tc.scope)
		}
	}
}

func TestReadDocsPrefixRules(t *testing.T) {
	r := gittest.New(t)
	head := r.Commit(t, "docs", map[string]string{
		"README.md":                  "top readme",
		"notes.md":                   "not under docs",
		"src/docs/x.md":              "docs deeper down",
		"Docs2/x.md":                 "other folder",
		"docs/index.md":              "index",
		"docs/adrx.md":               "adr-like name",
		"docs/adr.md":                "adr-like file",
		"docs/adr/0001-sqlite.md":    "decision one",
		"docs/adr/sub/0002.markdown": "nested decision",
		"docs/ADR/0003.md":           "upper case folder",
		"docs/guide/a/b/deep.MD":     "deep",
		"docs/picture.png":           "png",
		"docs/notes.txt":             "text",
		"docs/adr/template.txt":      "text",
	})
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			tree := readDocs(t, r.Dir, m.opt)
			equalMaps(t, "files", files(tree), map[string]string{
				"README.md":                  "docs:top readme",
				"notes.md":                   "docs:not under docs",
				"src/docs/x.md":              "docs:docs deeper down",
				"Docs2/x.md":                 "docs:other folder",
				"docs/index.md":              "docs:index",
				"docs/adrx.md":               "docs:adr-like name",
				"docs/adr.md":                "docs:adr-like file",
				"docs/adr/0001-sqlite.md":    "adr:decision one",
				"docs/adr/sub/0002.markdown": "adr:nested decision",
				"docs/ADR/0003.md":           "adr:upper case folder",
				"docs/guide/a/b/deep.MD":     "docs:deep",
				"docs/notes.txt":             "docs:text",
				"docs/adr/template.txt":      "adr:text",
			})
			if !slices.IsSortedFunc(tree.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) }) {
				t.Error("files not sorted by path")
			}
			if len(tree.Skipped) != 0 || len(tree.Notes) != 0 {
				t.Errorf("skipped %v, notes %v; want none", tree.Skipped, tree.Notes)
			}
			if tree.Commit != head || tree.Branch != gittest.Branch || tree.Detached || tree.WorkTree != m.opt.WorkTree {
				t.Errorf("tree = commit %s branch %q detached %v worktree %v; want %s %q false %v",
					tree.Commit, tree.Branch, tree.Detached, tree.WorkTree, head, gittest.Branch, m.opt.WorkTree)
			}
			for _, f := range tree.Files {
				want := ""
				if !m.opt.WorkTree {
					want = blobHash(t, r, head, f.Path)
				}
				if f.Blob != want {
					t.Errorf("%s: blob %q, want %q", f.Path, f.Blob, want)
				}
			}
		})
	}
}

func TestReadDocsFollowsCommits(t *testing.T) {
	r := gittest.New(t)
	steps := []struct {
		name string
		do   func() string
		want map[string]string
	}{
		{"add", func() string {
			return r.Commit(t, "add", map[string]string{"docs/a.md": "a", "docs/b.md": "b", "docs/c.md": "c"})
		}, map[string]string{"docs/a.md": "docs:a", "docs/b.md": "docs:b", "docs/c.md": "docs:c"}},
		{"remove", func() string { return r.Remove(t, "rm", "docs/a.md") },
			map[string]string{"docs/b.md": "docs:b", "docs/c.md": "docs:c"}},
		{"rename into adr", func() string { return r.Rename(t, "mv", "docs/b.md", "docs/adr/0001.md") },
			map[string]string{"docs/adr/0001.md": "adr:b", "docs/c.md": "docs:c"}},
		{"rename out of docs", func() string { return r.Rename(t, "mv", "docs/c.md", "testdata/c.md") },
			map[string]string{"docs/adr/0001.md": "adr:b"}},
		{"edit", func() string { return r.Commit(t, "edit", map[string]string{"docs/adr/0001.md": "b2"}) },
			map[string]string{"docs/adr/0001.md": "adr:b2"}},
	}
	for _, s := range steps {
		hash := s.do()
		tree := readDocs(t, r.Dir, Options{})
		if tree.Commit != hash {
			t.Errorf("%s: commit %s, want %s", s.name, tree.Commit, hash)
		}
		equalMaps(t, s.name, files(tree), s.want)
	}
}

func TestUncommittedEdits(t *testing.T) {
	r := gittest.New(t)
	head := r.Commit(t, "v1", map[string]string{"docs/a.md": "v1", "docs/gone.md": "x"})
	r.WriteUncommitted(t, "docs/a.md", "v2")
	r.WriteUncommitted(t, "docs/new.md", "new")
	if err := os.Remove(filepath.Join(r.Dir, "docs", "gone.md")); err != nil {
		t.Fatal(err)
	}

	equalMaps(t, "at HEAD", files(readDocs(t, r.Dir, Options{})),
		map[string]string{"docs/a.md": "docs:v1", "docs/gone.md": "docs:x"})
	wt := readDocs(t, r.Dir, Options{WorkTree: true})
	equalMaps(t, "working tree", files(wt), map[string]string{"docs/a.md": "docs:v2", "docs/new.md": "docs:new"})
	if !wt.WorkTree || wt.Commit != head {
		t.Errorf("working tree read: WorkTree %v commit %s; want true %s", wt.WorkTree, wt.Commit, head)
	}
}

func TestWorkTreeHonoursGitignore(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "ignore", map[string]string{
		".gitignore":      "docs/_build/\n# comment\n\n",
		"docs/.gitignore": "*.draft.md\n!keep.draft.md\n",
		"docs/a.md":       "a",
	})
	r.WriteUncommitted(t, "docs/_build/out.md", "generated")
	r.WriteUncommitted(t, "docs/wip.draft.md", "draft")
	r.WriteUncommitted(t, "docs/keep.draft.md", "kept")
	r.WriteUncommitted(t, "docs/sub/x.draft.md", "draft in sub")
	r.WriteUncommitted(t, "docs/sub/.gitignore", "local.md\n")
	r.WriteUncommitted(t, "docs/sub/local.md", "local")
	r.WriteUncommitted(t, "docs/other/local.md", "not ignored here")
	info := filepath.Join(r.Dir, ".git", "info")
	if err := os.MkdirAll(info, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(info, "exclude"), []byte("docs/excluded.md\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.WriteUncommitted(t, "docs/excluded.md", "excluded")

	equalMaps(t, "files", files(readDocs(t, r.Dir, Options{WorkTree: true})), map[string]string{
		"docs/a.md":           "docs:a",
		"docs/keep.draft.md":  "docs:kept",
		"docs/other/local.md": "docs:not ignored here",
	})
}

func TestDetachedHead(t *testing.T) {
	r := gittest.New(t)
	first := r.Commit(t, "v1", map[string]string{"docs/a.md": "v1"})
	r.Commit(t, "v2", map[string]string{"docs/a.md": "v2"})
	r.Checkout(t, first)

	for _, m := range modes {
		tree := readDocs(t, r.Dir, m.opt)
		if !tree.Detached || tree.Branch != "" || tree.Commit != first {
			t.Errorf("%s: detached %v branch %q commit %s; want true \"\" %s", m.name, tree.Detached, tree.Branch, tree.Commit, first)
		}
		equalMaps(t, m.name, files(tree), map[string]string{"docs/a.md": "docs:v1"})
	}
	h, err := Head(context.Background(), r.Dir)
	if err != nil || !h.Detached || h.Branch != "" || h.Commit != first {
		t.Errorf("Head = %+v, %v; want detached at %s", h, err, first)
	}
}

func TestBareRepository(t *testing.T) {
	src := gittest.New(t)
	src.Commit(t, "one", map[string]string{"docs/a.md": "a"})
	head := src.Commit(t, "two", map[string]string{"docs/adr/1.md": "d", "README.md": "r"})
	bare := src.CloneBare(t)

	tree := readDocs(t, bare.Dir, Options{})
	equalMaps(t, "files", files(tree), map[string]string{"docs/a.md": "docs:a", "docs/adr/1.md": "adr:d", "README.md": "docs:r"})
	if tree.Commit != head || tree.Branch != gittest.Branch {
		t.Errorf("commit %s branch %q; want %s %q", tree.Commit, tree.Branch, head, gittest.Branch)
	}

	_, err := ReadDocs(context.Background(), bare.Dir, Options{WorkTree: true})
	if !errors.Is(err, ErrNoWorkTree) || !strings.Contains(err.Error(), filepath.Base(bare.Dir)) {
		t.Errorf("work tree of bare repository: error %v, want ErrNoWorkTree naming the path", err)
	}

	h, err := Head(context.Background(), bare.Dir)
	if err != nil || !h.Bare || h.Commit != head {
		t.Errorf("Head = %+v, %v", h, err)
	}
	root, err := Root(bare.Dir)
	if err != nil || root != realDir(t, bare.Dir) || h.GitDir != root || h.CommonDir != root || h.Root != root {
		t.Errorf("Root = %q, %v; Head dirs %+v; want all %s", root, err, h, realDir(t, bare.Dir))
	}

	empty := gittest.NewBare(t)
	if _, err := ReadDocs(context.Background(), empty.Dir, Options{}); !errors.Is(err, ErrNoCommits) {
		t.Errorf("empty bare repository: error %v, want ErrNoCommits", err)
	}
}

func TestSubmodules(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "one", map[string]string{"docs/a.md": "a"})
	r.CommitGitlink(t, "submodule", "docs/vendor", r.Head(t))
	r.CommitGitlink(t, "submodule", "docs/theme.md", r.Head(t)) // named like a document

	tree := readDocs(t, r.Dir, Options{})
	equalMaps(t, "files", files(tree), map[string]string{"docs/a.md": "docs:a"})
	equalMaps(t, "skipped", skipped(tree), map[string]string{
		"docs/vendor":   ReasonSubmodule,
		"docs/theme.md": ReasonSubmodule,
	})

	// On disk an initialised submodule is a nested repository; its files
	// belong to another project.
	if _, err := git.PlainInit(filepath.Join(r.Dir, "docs", "vendor"), false); err != nil {
		t.Fatal(err)
	}
	r.WriteUncommitted(t, "docs/vendor/inner.md", "inner")
	wt := readDocs(t, r.Dir, Options{WorkTree: true})
	equalMaps(t, "worktree files", files(wt), map[string]string{"docs/a.md": "docs:a"})
	equalMaps(t, "worktree skipped", skipped(wt), map[string]string{"docs/vendor": ReasonNestedRepo})
}

func TestSymlinks(t *testing.T) {
	r := gittest.New(t)
	head := r.Commit(t, "files", map[string]string{
		"README.md":     "the readme",
		"notes/n.md":    "a note",
		"docs/a.md":     "a",
		"docs/adr/1.md": "decision",
	})
	// A real file outside the repository, so that following the link
	// would succeed.
	outside := filepath.Join(filepath.Dir(r.Dir), "outside.md")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"docs/readme.md":    "../README.md",         // inside, outside docs: read
		"docs/adr/alias.md": "../a.md",              // inside docs: read, scope from the link
		"docs/abs.md":       outside,                // absolute
		"docs/out.md":       "../../outside.md",     // leaves the repository
		"docs/dangling.md":  "missing.md",           // no such file
		"docs/chain.md":     "readme.md",            // a link to a link
		"docs/notes":        "../notes",             // a directory, not markdown-named
		"docs/adr-link.md":  "adr",                  // a directory, markdown-named
		"docs/root.md":      "..",                   // the top level
		"docs/image.png":    "../README.md",         // not markdown: ignored
		"docs/through.md":   "notes/n.md",           // through a link: not followed
		"docs/other.txt":    "/etc/passwd",          // not markdown, but leaves the repository: listed
		"docs/etclink":      "/etc",                 // a folder outside: listed
		"docs/up":           "../..",                // a folder above the repository: listed
		"docs/tool":         "../notes/n.md",        // not markdown, inside: ignored
		"docs/self/loop.md": "loop.md",              // points at itself
		"docs/escape.md":    "../docs/../../x.md",   // back into docs on the way, then out
		"docs/back-in.md":   "../docs/../README.md", // leaves docs, stays in the repository
	}
	for _, p := range slices.Sorted(maps.Keys(links)) {
		head = r.CommitSymlink(t, "link "+p, p, links[p])
	}
	wantFiles := map[string]string{
		"README.md":         "docs:the readme",
		"notes/n.md":        "docs:a note",
		"docs/a.md":         "docs:a",
		"docs/adr/1.md":     "adr:decision",
		"docs/readme.md":    "docs:the readme",
		"docs/adr/alias.md": "adr:a",
		"docs/back-in.md":   "docs:the readme",
	}
	wantSkipped := map[string]string{
		"docs/abs.md":       ReasonLinkAbsolute,
		"docs/out.md":       ReasonLinkOutside,
		"docs/escape.md":    ReasonLinkOutside,
		"docs/dangling.md":  ReasonLinkDangling,
		"docs/through.md":   ReasonLinkDangling,
		"docs/chain.md":     ReasonLinkToLink,
		"docs/self/loop.md": ReasonLinkToLink,
		"docs/notes":        ReasonLinkToDir,
		"docs/adr-link.md":  ReasonLinkToDir,
		"docs/root.md":      ReasonLinkToDir,
		// Links leaving the repository may name a folder of documents;
		// ragd does not look outside to find out, so it lists them all.
		"docs/other.txt": ReasonLinkAbsolute,
		"docs/etclink":   ReasonLinkAbsolute,
		"docs/up":        ReasonLinkOutside,
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			tree := readDocs(t, r.Dir, m.opt)
			equalMaps(t, "files", files(tree), wantFiles)
			equalMaps(t, "skipped", skipped(tree), wantSkipped)
			for _, f := range tree.Files {
				if f.Path == "docs/readme.md" && !m.opt.WorkTree && f.Blob != blobHash(t, r, head, "README.md") {
					t.Errorf("link read with blob %s, want README.md's", f.Blob)
				}
			}
		})
	}
}

// TestBinarySkipped checks that content that is not text, whatever its
// name, is skipped with a reason rather than indexed as U+FFFD (issue 11
// #12), and that text with a few stray bytes is still read.
func TestBinarySkipped(t *testing.T) {
	random := make([]byte, 200<<10)
	rand.New(rand.NewSource(12)).Read(random)
	utf16 := []byte{0xff, 0xfe}
	for _, c := range "# Notes\n\nwritten by an editor in UTF-16\n" {
		utf16 = append(utf16, byte(c), 0)
	}
	latin1 := "# Caf\xe9\n\nUne d\xe9cision prise \xe0 la r\xe9union, not re-encoded.\n"
	r := gittest.New(t)
	r.Commit(t, "binary", map[string]string{
		"docs/random.md":  string(random),
		"docs/utf16.md":   string(utf16),
		"docs/dump.md":    "# Title\n\x00\x00\x00\x01\x02 a dump\n",
		"docs/latin1.md":  latin1,
		"docs/adr/ok.md":  "# Decision\n\nplain text\n",
		"docs/image.png":  string(random[:1000]), // not markdown: not read at all
		"docs/empty.md":   "",
		"docs/unicode.md": "# Décision 👩‍💻\n\nрешение, ação\n",
	})
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			tree := readDocs(t, r.Dir, m.opt)
			equalMaps(t, "skipped", skipped(tree), map[string]string{
				"docs/random.md": ReasonBinary,
				"docs/utf16.md":  ReasonBinary,
				"docs/dump.md":   ReasonBinary,
			})
			equalMaps(t, "files", files(tree), map[string]string{
				"docs/latin1.md":  "docs:" + latin1,
				"docs/adr/ok.md":  "adr:# Decision\n\nplain text\n",
				"docs/empty.md":   "docs:",
				"docs/unicode.md": "docs:# Décision 👩‍💻\n\nрешение, ação\n",
			})
		})
	}
}

func TestLFSPointerSkipped(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "lfs", map[string]string{
		"docs/big.md":    gittest.LFSPointer(strings.Repeat("x", 5000)),
		"docs/quoted.md": "Pointers start with\nversion https://git-lfs.github.com/spec/v1\n",
	})
	for _, m := range modes {
		tree := readDocs(t, r.Dir, m.opt)
		equalMaps(t, m.name+" files", files(tree), map[string]string{
			"docs/quoted.md": "docs:Pointers start with\nversion https://git-lfs.github.com/spec/v1\n",
		})
		if len(tree.Skipped) != 1 || tree.Skipped[0] != (Skipped{Path: "docs/big.md", Scope: ragd.ScopeDocs, Reason: ReasonLFSPointer, Size: 5000}) {
			t.Errorf("%s: skipped %+v", m.name, tree.Skipped)
		}
	}
}

func TestTooLarge(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "sizes", map[string]string{
		"docs/ten.md":    strings.Repeat("x", 10),
		"docs/eleven.md": strings.Repeat("x", 11),
		"docs/huge.md":   strings.Repeat("x", DefaultMaxFileBytes+1),
	})
	for _, m := range modes {
		small := m.opt
		small.MaxFileBytes = 10
		tree := readDocs(t, r.Dir, small)
		equalMaps(t, m.name+" files", files(tree), map[string]string{"docs/ten.md": "docs:" + strings.Repeat("x", 10)})
		want := []Skipped{
			{Path: "docs/eleven.md", Scope: ragd.ScopeDocs, Reason: ReasonTooLarge, Size: 11},
			{Path: "docs/huge.md", Scope: ragd.ScopeDocs, Reason: ReasonTooLarge, Size: DefaultMaxFileBytes + 1},
		}
		if !slices.Equal(tree.Skipped, want) {
			t.Errorf("%s: skipped %+v, want %+v", m.name, tree.Skipped, want)
		}

		tree = readDocs(t, r.Dir, m.opt) // default limit
		if len(tree.Files) != 2 || !slices.Equal(tree.Skipped, want[1:]) {
			t.Errorf("%s default limit: %d files, skipped %+v", m.name, len(tree.Files), tree.Skipped)
		}
	}
}

func TestEmptyRepository(t *testing.T) {
	r := gittest.New(t)
	_, err := ReadDocs(context.Background(), r.Dir, Options{})
	if !errors.Is(err, ErrNoCommits) || !strings.Contains(err.Error(), r.Dir) {
		t.Errorf("ReadDocs error = %v, want ErrNoCommits naming %s", err, r.Dir)
	}
	h, err := Head(context.Background(), r.Dir)
	if !errors.Is(err, ErrNoCommits) {
		t.Errorf("Head error = %v, want ErrNoCommits", err)
	}
	if h.Commit != "" || h.Branch != gittest.Branch || h.GitDir != filepath.Join(realDir(t, r.Dir), ".git") {
		t.Errorf("Head with no commits = %+v; want branch and git dir set", h)
	}

	// The working tree can be read before the first commit.
	r.WriteUncommitted(t, "docs/first.md", "draft")
	tree := readDocs(t, r.Dir, Options{WorkTree: true})
	equalMaps(t, "files", files(tree), map[string]string{"docs/first.md": "docs:draft"})
	if tree.Commit != "" || !slices.Equal(tree.Notes, []string{NoteNoCommitsYet}) {
		t.Errorf("commit %q notes %q", tree.Commit, tree.Notes)
	}
}

func TestNotRepository(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	ctx := context.Background()
	for _, p := range []string{dir, missing} {
		_, err := ReadDocs(ctx, p, Options{})
		if !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadDocs(%s) error = %v, want ErrNotRepository naming the path", p, err)
		}
		if _, err := Head(ctx, p); !errors.Is(err, ErrNotRepository) {
			t.Errorf("Head(%s) error = %v", p, err)
		}
		if _, err := Root(p); !errors.Is(err, ErrNotRepository) {
			t.Errorf("Root(%s) error = %v", p, err)
		}
		if _, err := Open(p); !errors.Is(err, ErrNotRepository) {
			t.Errorf("Open(%s) error = %v", p, err)
		}
	}
	if _, err := Root(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Root(missing) error = %v, want it to wrap fs.ErrNotExist too", err)
	}

	// A path that does not exist inside a repository must not resolve to
	// the repository.
	r := gittest.New(t)
	r.Commit(t, "one", map[string]string{"docs/a.md": "a"})
	if _, err := Root(filepath.Join(r.Dir, "no", "such")); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Root(missing path in repo) error = %v", err)
	}
}

func TestNoDocs(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "code", map[string]string{"main.go": "package main", "LICENSE.md": "licence", "testdata/a.md": "fixture", "requirements.txt": "x"})
	for _, m := range modes {
		tree := readDocs(t, r.Dir, m.opt)
		want := NoteNoProseAtHead
		if m.opt.WorkTree {
			want = NoteNoProseWorkTree
		}
		if len(tree.Files) != 0 || !slices.Equal(tree.Notes, []string{want}) {
			t.Errorf("%s: files %v notes %q; want none and %q", m.name, tree.Files, tree.Notes, want)
		}
		// What was left out is said, so that an empty index is not silent.
		got := map[string]int{}
		for _, lo := range tree.LeftOut {
			got[lo.Reason] = lo.Count
		}
		if want := map[string]int{ReasonLicence: 1, ReasonVendoredOrTest: 1}; !maps.Equal(got, want) {
			t.Errorf("%s: left out %v, want %v", m.name, got, want)
		}
	}
}

func TestRootAndOpen(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "one", map[string]string{"docs/adr/1.md": "d"})
	want := realDir(t, r.Dir)
	for _, p := range []string{
		r.Dir,
		filepath.Join(r.Dir, "docs"),
		filepath.Join(r.Dir, "docs", "adr"),
		filepath.Join(r.Dir, "docs", "adr", "1.md"),
		filepath.Join(r.Dir, "docs", "adr") + "/../adr/.",
	} {
		got, err := Root(p)
		if err != nil || got != want {
			t.Errorf("Root(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
	tree := readDocs(t, filepath.Join(r.Dir, "docs", "adr"), Options{})
	equalMaps(t, "from a subdirectory", files(tree), map[string]string{"docs/adr/1.md": "adr:d"})

	g, err := Open(filepath.Join(r.Dir, "docs"))
	if err != nil {
		t.Fatal(err)
	}
	if ref, err := g.Head(); err != nil || ref.Hash().String() != r.Head(t) {
		t.Errorf("Open(...).Head() = %v, %v", ref, err)
	}
}

func TestHeadAndLinkedWorktree(t *testing.T) {
	r := gittest.New(t)
	first := r.Commit(t, "v1", map[string]string{"docs/a.md": "v1"})
	second := r.Commit(t, "v2", map[string]string{"docs/a.md": "v2"})
	root := realDir(t, r.Dir)

	h, err := Head(context.Background(), r.Dir)
	want := HeadInfo{Root: root, GitDir: filepath.Join(root, ".git"), CommonDir: filepath.Join(root, ".git"),
		Commit: second, Branch: gittest.Branch}
	if err != nil || h != want {
		t.Errorf("Head = %+v, %v; want %+v", h, err, want)
	}

	r.CheckoutBranch(t, "feature/x", true)
	if h, err := Head(context.Background(), r.Dir); err != nil || h.Branch != "feature/x" || h.Detached {
		t.Errorf("on a branch with a slash: %+v, %v", h, err)
	}

	dir := r.LinkWorktree(t, "wt", first)
	wtRoot := realDir(t, dir)
	h, err = Head(context.Background(), filepath.Join(dir, "docs"))
	want = HeadInfo{Root: wtRoot, GitDir: filepath.Join(root, ".git", "worktrees", "wt"),
		CommonDir: filepath.Join(root, ".git"), Commit: first, Detached: true}
	if err != nil || h != want {
		t.Errorf("linked worktree Head = %+v, %v; want %+v", h, err, want)
	}
	for _, m := range modes {
		tree := readDocs(t, dir, m.opt)
		if tree.Commit != first {
			t.Errorf("%s: linked worktree commit %s, want %s", m.name, tree.Commit, first)
		}
		equalMaps(t, m.name+" linked worktree", files(tree), map[string]string{"docs/a.md": "docs:v1"})
	}
}

func TestNonUTF8Path(t *testing.T) {
	r := gittest.New(t)
	name := "docs/caf\xe9.md"
	r.Commit(t, "latin-1 name", map[string]string{name: "accent"})
	for _, m := range modes {
		equalMaps(t, m.name, files(readDocs(t, r.Dir, m.opt)), map[string]string{name: "docs:accent"})
	}
}

func TestMissingObject(t *testing.T) {
	r := gittest.New(t)
	head := r.Commit(t, "one", map[string]string{"docs/a.md": "a", "docs/b.md": "b"})
	// Lose one blob, as a partial (blobless) clone would not have it.
	h := blobHash(t, r, head, "docs/b.md")
	if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", h[:2], h[2:])); err != nil {
		t.Fatal(err)
	}
	tree := readDocs(t, r.Dir, Options{})
	equalMaps(t, "files", files(tree), map[string]string{"docs/a.md": "docs:a"})
	equalMaps(t, "skipped", skipped(tree), map[string]string{"docs/b.md": ReasonMissingObject})
}

func TestContextCancelled(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "one", map[string]string{"docs/a.md": "a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range modes {
		if _, err := ReadDocs(ctx, r.Dir, m.opt); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", m.name, err)
		}
	}
	if _, err := Head(ctx, r.Dir); !errors.Is(err, context.Canceled) {
		t.Errorf("Head: error %v, want context.Canceled", err)
	}
}

// TestTreeWalkerAgrees cross-checks the hand-written walk against go-git's
// own tree walker on a plain tree.
func TestTreeWalkerAgrees(t *testing.T) {
	r := gittest.New(t)
	head := r.Commit(t, "files", map[string]string{
		"docs/a.md": "a", "docs/b/c.md": "c", "docs/b-c.md": "bc", "docs/b.md": "b", "docs/adr/x.markdown": "x",
	})
	c, err := r.R.CommitObject(plumbing.NewHash(head))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if err != nil {
			break
		}
		if scope, ok := ScopeOf(name); ok && e.Mode.IsFile() {
			f, _ := tree.TreeEntryFile(&e)
			s, _ := f.Contents()
			want[name] = scope + ":" + s
		}
	}
	equalMaps(t, "files", files(readDocs(t, r.Dir, Options{})), want)
}

func realDir(t *testing.T, dir string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

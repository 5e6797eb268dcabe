package source

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/gittest"
)

// scopes returns path -> scope of the files read.
func scopes(tree *Tree) map[string]string {
	m := map[string]string{}
	for _, f := range tree.Files {
		m[f.Path] = f.Scope
	}
	return m
}

// rules returns path -> rule of the files read.
func rules(tree *Tree) map[string]string {
	m := map[string]string{}
	for _, f := range tree.Files {
		m[f.Path] = f.Rule.String()
	}
	return m
}

const adrText = "# Use X\n\n## Status\n\nAccepted\n\n## Context\n\nWhy.\n\n## Decision\n\nX.\n"

// TestDeclaredLocations: each file a project declares its folders in is
// read, resolved relative to where it sits, and checked to exist; a stale
// one is a note, not a folder.
func TestDeclaredLocations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  map[string]string // path -> scope
		rule  map[string]string // path -> rule, where it matters
		note  string            // a note that must be given
	}{
		{"adr-tools .adr-dir", map[string]string{
			".adr-dir":                "arch/records\n",
			"arch/records/0001-a.md":  adrText,
			"docs/adr/0002-not-it.md": adrText, // declared folders are authoritative
		}, map[string]string{"arch/records/0001-a.md": "adr", "docs/adr/0002-not-it.md": "docs"},
			map[string]string{"arch/records/0001-a.md": "arch/records/ (from .adr-dir)"}, ""},
		{"stale .adr-dir", map[string]string{
			".adr-dir":             "doc/architecture/decisions",
			"doc/adr/0001-a.md":    adrText,
			"doc/adr/0002-b.md":    adrText,
			"doc/guide/install.md": "# Install",
		}, map[string]string{"doc/adr/0001-a.md": "adr", "doc/adr/0002-b.md": "adr", "doc/guide/install.md": "docs"},
			nil, ".adr-dir names doc/architecture/decisions/, which holds no prose files: not used"},
		{"nested .adr-dir, relative", map[string]string{
			"svc/.adr-dir":          "../records",
			"records/one.md":        "# One",
			"svc/docs/adr/other.md": "# Other",
		}, map[string]string{"records/one.md": "adr", "svc/docs/adr/other.md": "docs"}, nil, ""},
		{"log4brains", map[string]string{
			".log4brains.yml":                    "project:\n  name: x\n  adrFolder: ./docs/adr\n  packages:\n    - name: core\n      path: ./packages/core\n      adrFolder: ./packages/core/docs/adr\n",
			"docs/adr/20200101-a.md":             adrText,
			"packages/core/docs/adr/20200102.md": adrText,
			"packages/web/docs/adr/x.md":         adrText, // not declared
		}, map[string]string{"docs/adr/20200101-a.md": "adr", "packages/core/docs/adr/20200102.md": "adr", "packages/web/docs/adr/x.md": "docs"},
			map[string]string{"packages/core/docs/adr/20200102.md": "packages/core/docs/adr/ (from .log4brains.yml)"}, ""},
		{"backstage", map[string]string{
			"catalog-info.yaml":  "apiVersion: backstage.io/v1alpha1\nkind: Component\nmetadata:\n  name: x\n  annotations:\n    backstage.io/adr-location: decisions-log\n---\nkind: API\n",
			"decisions-log/a.md": adrText,
		}, map[string]string{"decisions-log/a.md": "adr"}, nil, ""},
		{"mkdocs with tags", map[string]string{
			"mkdocs.yml":           "site_name: x\ndocs_dir: 'handbook'\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
			"handbook/index.md":    "# Home",
			"handbook/notes.txt":   "plain text in a declared folder",
			"handbook/adr/0001.md": "# decision", // an ADR folder inside still wins
		}, map[string]string{"handbook/index.md": "docs", "handbook/notes.txt": "docs", "handbook/adr/0001.md": "adr"},
			map[string]string{"handbook/index.md": "handbook/ (from mkdocs.yml)"}, ""},
		{"mdBook", map[string]string{
			"guide/book.toml":    "[book]\ntitle = \"x\"\nsrc = \"pages\"\n",
			"guide/pages/a.md":   "# A",
			"other/book.toml":    "[book]\ntitle = \"default src\"\n",
			"other/src/intro.md": "# Intro",
		}, map[string]string{"guide/pages/a.md": "docs", "other/src/intro.md": "docs"},
			map[string]string{"guide/pages/a.md": "guide/pages/ (from guide/book.toml)", "other/src/intro.md": "other/src/ (from other/book.toml)"}, ""},
		{"Read the Docs", map[string]string{
			".readthedocs.yaml":  "version: 2\nsphinx:\n  configuration: manual/conf.py\n",
			"manual/index.rst":   "Title\n=====\n",
			"manual/changes.txt": "text",
		}, map[string]string{"manual/index.rst": "docs", "manual/changes.txt": "docs"},
			map[string]string{"manual/index.rst": "manual/ (from .readthedocs.yaml)"}, ""},
		{"Antora", map[string]string{
			"src/docs/antora/antora.yml":                    "name: x\nversion: true\n",
			"src/docs/antora/modules/ROOT/pages/index.adoc": "= Home\n",
		}, map[string]string{"src/docs/antora/modules/ROOT/pages/index.adoc": "docs"},
			map[string]string{"src/docs/antora/modules/ROOT/pages/index.adoc": "src/docs/antora/modules/ (from src/docs/antora/antora.yml)"}, ""},
		{"Docusaurus", map[string]string{
			"site/docusaurus.config.js": "module.exports = { presets: [['classic', { docs: { path: 'handbook' }, blog: { path: 'no-such' } }]] };\n",
			"site/handbook/intro.mdx":   "# Intro",
		}, map[string]string{"site/handbook/intro.mdx": "docs"},
			map[string]string{"site/handbook/intro.mdx": "site/handbook/ (from site/docusaurus.config.js)"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t)
			r.Commit(t, "docs", tc.files)
			for _, m := range modes {
				tree := readDocs(t, r.Dir, m.opt)
				got := scopes(tree)
				for p := range tc.files {
					if _, ok := got[p]; !ok && tc.want[p] != "" {
						t.Errorf("%s: %s not read", m.name, p)
					}
				}
				for p, want := range tc.want {
					if got[p] != want {
						t.Errorf("%s: %s in %q, want %q", m.name, p, got[p], want)
					}
				}
				rs := rules(tree)
				for p, want := range tc.rule {
					if rs[p] != want {
						t.Errorf("%s: %s by rule %q, want %q", m.name, p, rs[p], want)
					}
				}
				if tc.note != "" && !slices.Contains(tree.Notes, tc.note) {
					t.Errorf("%s: notes %q, want %q", m.name, tree.Notes, tc.note)
				}
			}
		})
	}
}

// TestNumberedRecords: numbered records are decision records where they
// gather and read like one; blog posts by date and numbered chapters are
// not.
func TestNumberedRecords(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "docs", map[string]string{
		"adr-001-use-x.md":                "# Use x",
		"adr-002-use-y.md":                "# Use y",
		"docs/architecture/001-react.md":  adrText,
		"docs/architecture/002-css.md":    "# CSS\n\nno headings of a record here",
		"docs/contracts/000-intro.md":     "# Contracts\n\n## What is it?\n",
		"docs/contracts/001-selectors.md": "# Selectors\n",
		"blog/2023-08-23-release.md":      adrText,
		"blog/2023-09-07-other.md":        adrText,
		"book/01-intro.md":                "# Intro",
		"book/02-setup.md":                "# Setup",
		"lone/0001-only.md":               adrText,
	})
	tree := readDocs(t, r.Dir, Options{})
	want := map[string]string{
		"adr-001-use-x.md": "adr", "adr-002-use-y.md": "adr",
		"docs/architecture/001-react.md": "adr", "docs/architecture/002-css.md": "adr",
		"docs/contracts/000-intro.md": "docs", "docs/contracts/001-selectors.md": "docs",
		"blog/2023-08-23-release.md": "docs", "blog/2023-09-07-other.md": "docs",
		"book/01-intro.md": "docs", "book/02-setup.md": "docs",
		"lone/0001-only.md": "docs",
	}
	if got := scopes(tree); !maps.Equal(got, want) {
		t.Errorf("scopes\n got %v\nwant %v", got, want)
	}
}

// TestLayoutSettings: what the user configures comes first.
func TestLayoutSettings(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "docs", map[string]string{
		".adr-dir":                       "doc/adr",
		"doc/adr/0001-a.md":              adrText,
		"records/r1.md":                  "# R1",
		"README.md":                      "# Readme",
		"pkg/README.md":                  "# Package",
		"docs/archive/old.md":            "# Old",
		"docs/guide.md":                  "# Guide",
		"tests/fixtures/sample.md":       "# A test fixture the user wants",
		"website/versioned_docs/v1/a.md": "# v1",
	})
	for _, tc := range []struct {
		name   string
		layout ragd.Layout
		want   map[string]string
	}{
		{"none", ragd.Layout{}, map[string]string{
			"doc/adr/0001-a.md": "adr", "records/r1.md": "docs", "README.md": "docs", "pkg/README.md": "docs",
			"docs/archive/old.md": "docs", "docs/guide.md": "docs"}},
		{"ADR folders replace the declared ones", ragd.Layout{ADRDirs: []string{"records"}}, map[string]string{
			"doc/adr/0001-a.md": "docs", "records/r1.md": "adr", "README.md": "docs", "pkg/README.md": "docs",
			"docs/archive/old.md": "docs", "docs/guide.md": "docs"}},
		{"exclude, no root files, no package READMEs", ragd.Layout{Exclude: []string{"docs/archive"}, NoRootFiles: true, NoPackageReadmes: true},
			map[string]string{"doc/adr/0001-a.md": "adr", "records/r1.md": "docs", "docs/guide.md": "docs"}},
		{"include what the rules leave out", ragd.Layout{Include: []string{"tests/fixtures/*.md", "**/versioned_docs"}}, map[string]string{
			"doc/adr/0001-a.md": "adr", "records/r1.md": "docs", "README.md": "docs", "pkg/README.md": "docs",
			"docs/archive/old.md": "docs", "docs/guide.md": "docs", "tests/fixtures/sample.md": "docs",
			"website/versioned_docs/v1/a.md": "docs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range modes {
				opt := m.opt
				opt.Layout = tc.layout
				tree := readDocs(t, r.Dir, opt)
				if got := scopes(tree); !maps.Equal(got, tc.want) {
					t.Errorf("%s: scopes\n got %v\nwant %v", m.name, got, tc.want)
				}
			}
		})
	}
}

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"*.md", "a/b/c.md", true},
		{"vendor", "x/vendor/a.md", true},
		{"docs/archive", "docs/archive/old.md", true},
		{"docs/archive/", "docs/archive/old.md", true},
		{"/docs", "docs/a.md", true},
		{"/docs", "x/docs/a.md", false},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/sub/a.md", true}, // docs/sub is no match, but docs/sub/a.md? no: see below
		{"**/versioned_docs", "website/versioned_docs/v1/a.md", true},
		{"**/a.md", "a.md", true},
		{"docs/**/x.md", "docs/x.md", true},
		{"docs/**/x.md", "docs/a/b/x.md", true},
		{"docs/**/x.md", "other/x.md", false},
		{"[", "a.md", false},
		{"", "a.md", false},
		{"/", "a.md", false},
	} {
		if tc.pattern == "docs/*.md" && tc.path == "docs/sub/a.md" {
			tc.want = false // docs/sub is not *.md, and the pattern has two parts
		}
		if got := matchGlob(tc.pattern, tc.path); got != tc.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestValidateLayout(t *testing.T) {
	for _, tc := range []struct {
		l       ragd.Layout
		problem string
	}{
		{ragd.Layout{Include: []string{"docs/**", "*.rst"}, ADRDirs: []string{"doc/adr", "./records"}}, ""},
		{ragd.Layout{Include: []string{"["}}, `include "[": malformed pattern`},
		{ragd.Layout{Exclude: []string{" "}}, `exclude " ": empty pattern`},
		{ragd.Layout{ADRDirs: []string{"../elsewhere"}}, `adrDirs "../elsewhere": not a folder inside the repository`},
		{ragd.Layout{ADRDirs: []string{"/abs"}}, `adrDirs "/abs": not a folder inside the repository`},
		{ragd.Layout{Include: make([]string, 65)}, "include: too many patterns (at most 64)"},
	} {
		err := ValidateLayout(tc.l)
		switch {
		case tc.problem == "" && err != nil:
			t.Errorf("ValidateLayout(%+v): %v", tc.l, err)
		case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("ValidateLayout(%+v) = %v, want %q", tc.l, err, tc.problem)
		}
	}
}

// FuzzMatchGlob: any pattern and path, no panic, and a pattern always
// matches a path made of itself when it has no glob characters.
func FuzzMatchGlob(f *testing.F) {
	for _, s := range [][2]string{{"docs/**/x.md", "docs/a/x.md"}, {"**/**/**", "a/b"}, {"[a-", "a"}, {"a/b", "a/b/c"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		if len(pattern) > 256 || len(p) > 1024 {
			return
		}
		matchGlob(pattern, p)
		if canonical(p) && !strings.ContainsAny(p, `*?[\`) && !matchGlob(p, p) {
			t.Errorf("matchGlob(%q, %q) = false", p, p)
		}
	})
}

// FuzzDeclarations: a declaring file of any content never panics and
// names only folders inside the repository, but for those marked Outside
// (and not used).
func FuzzDeclarations(f *testing.F) {
	for name := range declFiles {
		f.Add(name, "docs_dir: x\nproject:\n  adrFolder: ../../x\n[book]\nsrc='../a'\npath: '/etc'\n")
	}
	f.Add(".log4brains.yml", "project: [1, 2\n")
	f.Add("catalog-info.yaml", "---\n---\nmetadata: {annotations: {backstage.io/adr-location: 7}}\n")
	f.Fuzz(func(t *testing.T, name, content string) {
		if _, ok := declFiles[name]; !ok || len(content) > 4096 {
			return
		}
		ds := declarations([]string{"sub/" + name}, func(string) ([]byte, bool) { return []byte(content), true }, func(string) bool { return true })
		for _, d := range ds {
			if d.Outside && d.Missing {
				continue
			}
			if d.Dir != "" && !canonical(d.Dir) {
				t.Errorf("%s names %q, not a folder inside the repository", name, d.Dir)
			}
		}
	})
}

// TestPathsOnly: the files chosen are listed without their content, in
// both modes, the same paths a full read gives.
func TestPathsOnly(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "docs", map[string]string{"README.md": "# R", "docs/a.md": "# A", "doc/adr/0001-x.md": adrText, "LICENSE.md": "# L"})
	for _, m := range modes {
		full := readDocs(t, r.Dir, m.opt)
		opt := m.opt
		opt.PathsOnly = true
		paths := readDocs(t, r.Dir, opt)
		if !maps.Equal(scopes(paths), scopes(full)) {
			t.Errorf("%s: paths only %v, full read %v", m.name, scopes(paths), scopes(full))
		}
		for _, f := range paths.Files {
			if f.Content != nil {
				t.Errorf("%s: %s read with PathsOnly", m.name, f.Path)
			}
		}
	}
}

package index_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/source"
)

// TestFormats_EveryProseExtensionHasAChunker: what the reader chooses as
// prose, the chunker reads in its own format, not as plain text.
func TestFormats_EveryProseExtensionHasAChunker(t *testing.T) {
	for _, ext := range source.ProseExtensions() {
		if _, ok := chunking.FormatOf("doc" + ext); !ok {
			t.Errorf("%s: read as prose, but chunking has no format for it", ext)
		}
	}
}

// TestReindex_FormatsCiteTheirSections: reStructuredText, AsciiDoc and MDX
// are indexed with their titles and section paths, so a citation is file +
// section in every format.
func TestReindex_FormatsCiteTheirSections(t *testing.T) {
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{
		"docs/install.rst": "Installation\n============\n\nIntro.\n\nFrom source\n-----------\n\nRun make.\n\n.. toctree::\n   :maxdepth: 2\n\n   usage\n",
		"docs/guide.adoc":  "= The Guide\n:toc: left\n\n== Configuration\n\nSet the port.\n\ninclude::partials/more.adoc[]\n\n=== Ports\n\nUse 8080.\n",
		"docs/intro.mdx":   "---\ntitle: Getting started\n---\nimport Tabs from '@theme/Tabs';\n\n## Install\n\n<Tabs><TabItem value=\"npm\">Run npm install.</TabItem></Tabs>\n",
	})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	reindex(t, newIndexer(s, nil), p, "docs")
	got := map[string][]string{}
	for _, c := range chunks(t, s, p, ragd.ScopeDocs) {
		key := c.SourcePath + " | " + c.Title + " | " + strings.Join(c.HeadingPath, " > ")
		got[key] = append(got[key], c.Content)
	}
	for _, want := range []string{
		"docs/install.rst | Installation | From source",
		"docs/guide.adoc | The Guide | Configuration",
		"docs/guide.adoc | The Guide | Configuration > Ports",
		"docs/intro.mdx | Getting started | Install",
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("no chunk cited as %q; chunks: %v", want, slices.Sorted(maps.Keys(got)))
		}
	}
	for k, contents := range got {
		for _, c := range contents {
			if strings.Contains(c, "toctree") || strings.Contains(c, "include::") || strings.Contains(c, "import Tabs") || strings.Contains(c, "<TabItem") {
				t.Errorf("%s: markup indexed as prose: %q", k, c)
			}
		}
	}
}

func TestRuleOf(t *testing.T) {
	found := []ragd.Found{
		{Rule: "doc/adr/ (from .adr-dir)", Kind: source.RuleDeclared, Dir: "doc/adr", From: ".adr-dir"},
		{Rule: "doc/ (docs folder)", Kind: source.RuleDocsFolder, Dir: "doc"},
		{Rule: "root file", Kind: source.RuleRootFile},
		{Rule: "package README", Kind: source.RulePackageReadme},
	}
	for path, want := range map[string]string{
		"doc/adr/0001-x.md": "doc/adr/ (from .adr-dir)",
		"doc/guide.md":      "doc/ (docs folder)",
		"README.md":         "root file",
		"pkg/README.md":     "package README",
		"pkg/notes.md":      "",
	} {
		if got := index.RuleOf(found, path); got != want {
			t.Errorf("RuleOf(%s) = %q, want %q", path, got, want)
		}
	}
}

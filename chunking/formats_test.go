package chunking

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// markupChunk is a chunk a test wants from a format that blanks its
// markup: raw is the source text it spans (it must occur once in the
// source, which pins the offsets) and hide the pieces of raw, in order,
// that are blanked to spaces in Content.
type markupChunk struct {
	path []string
	raw  string
	hide []string
}

// spaced returns s with every occurrence of each part turned into spaces,
// line endings kept.
func spaced(s string, parts ...string) string {
	for _, p := range parts {
		b := []byte(p)
		blankOut(b)
		s = strings.ReplaceAll(s, p, string(b))
	}
	return s
}

type formatCase struct {
	name  string
	file  string
	src   string
	title string
	want  []markupChunk
}

// runFormatCases runs each case through File and checks the exact chunks.
func runFormatCases(t *testing.T, tests []formatCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			doc, err := File(src, tt.file, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			checkMarkup(t, src, DefaultOptions(), doc)
			if doc.Title != tt.title {
				t.Errorf("title %q, want %q", doc.Title, tt.title)
			}
			if len(doc.Chunks) != len(tt.want) {
				for _, c := range doc.Chunks {
					t.Logf("got %q %q", c.HeadingPath, c.Content)
				}
				t.Fatalf("%d chunks, want %d", len(doc.Chunks), len(tt.want))
			}
			for i, w := range tt.want {
				c := doc.Chunks[i]
				if !slices.Equal(c.HeadingPath, w.path) {
					t.Errorf("chunk %d: path %q, want %q", i, c.HeadingPath, w.path)
				}
				if want := spaced(w.raw, w.hide...); c.Content != want {
					t.Errorf("chunk %d: content\n%q, want\n%q", i, c.Content, want)
				}
				if n := strings.Count(tt.src, w.raw); n != 1 {
					t.Fatalf("chunk %d: raw text occurs %d times in the source", i, n)
				}
				if start := strings.Index(tt.src, w.raw); c.Start != start || c.End != start+len(w.raw) {
					t.Errorf("chunk %d: [%d,%d), want [%d,%d)", i, c.Start, c.End, start, start+len(w.raw))
				}
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	for _, tt := range []struct {
		name, format string
		ok           bool
	}{
		{"docs/guide.md", FormatMarkdown, true},
		{"README.MARKDOWN", FormatMarkdown, true},
		{"website/docs/intro.mdx", FormatMDX, true},
		{"docs/index.rst", FormatRST, true},
		{"x.Rest", FormatRST, true},
		{"modules/ROOT/pages/index.adoc", FormatAsciiDoc, true},
		{"book.AsciiDoc", FormatAsciiDoc, true},
		{"notes.asc", FormatAsciiDoc, true},
		{"doc/notes.TXT", FormatText, true},
		{"Makefile", FormatText, false},
		{"main.go", FormatText, false},
		{".md", FormatText, false}, // a hidden file named "md", not markdown
		{"dir.md/file", FormatText, false},
		{`C:\docs\x.rst`, FormatRST, true},
		{"", FormatText, false},
	} {
		f, ok := FormatOf(tt.name)
		if f != tt.format || ok != tt.ok {
			t.Errorf("FormatOf(%q) = %q, %v; want %q, %v", tt.name, f, ok, tt.format, tt.ok)
		}
	}
}

// TestFileDispatch checks that File reads each extension in its format:
// the same bytes give each format's own sections.
func TestFileDispatch(t *testing.T) {
	src := []byte("Title\n=====\n\n= Doc\n\n# Head\n\ntext\n")
	for _, tt := range []struct {
		file  string
		title string
		paths [][]string
	}{
		{"a.md", "Title", [][]string{{}, {"Head"}}},
		{"a.mdx", "Title", [][]string{{}, {"Head"}}},
		{"a.rst", "Title", [][]string{{}}},
		// In AsciiDoc "=====" opens an example block, unterminated here.
		{"a.adoc", "a", [][]string{{}}},
		{"a.txt", "a", [][]string{{}}},
		{"a.unknown", "a", [][]string{{}}},
	} {
		doc, err := File(src, tt.file, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var paths [][]string
		for _, c := range doc.Chunks {
			paths = append(paths, c.HeadingPath)
		}
		if doc.Title != tt.title || !slices.EqualFunc(paths, tt.paths, slices.Equal) {
			t.Errorf("%s: title %q paths %q, want %q %q", tt.file, doc.Title, paths, tt.title, tt.paths)
		}
	}
}

func TestPlainText(t *testing.T) {
	runFormatCases(t, []formatCase{
		{
			name:  "text is one section, headings are text",
			file:  "doc/notes.txt",
			src:   "\uFEFFNotes\n=====\n\n# not a heading\n\nbody\n",
			title: "notes",
			want:  []markupChunk{{path: []string{}, raw: "Notes\n=====\n\n# not a heading\n\nbody"}},
		},
		{name: "empty", file: "e.txt", src: "", title: "e"},
	})
}

func TestMDX(t *testing.T) {
	runFormatCases(t, []formatCase{
		{
			name: "front matter title, imports, tabs, badges, expressions",
			file: "docs/install.mdx",
			src: "---\nid: install\ntitle: 'Install the CLI'\n---\n\nimport Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n" +
				"## Linux\n\n<Tabs>\n<TabItem value=\"apt\" label={`APT`}>\n\nRun apt install ragd.\n\n</TabItem>\n</Tabs>\n\n" +
				"## Notes <Badge text=\"new\" />\n\nSee {props.version} and <Link to=\"/x\">the docs</Link>.\n",
			title: "Install the CLI",
			want: []markupChunk{
				{[]string{"Linux"}, "## Linux\n\n<Tabs>\n<TabItem value=\"apt\" label={`APT`}>\n\nRun apt install ragd.", []string{"<Tabs>", "<TabItem value=\"apt\" label={`APT`}>"}},
				{[]string{"Notes"}, "## Notes <Badge text=\"new\" />\n\nSee {props.version} and <Link to=\"/x\">the docs</Link>.", []string{"<Badge text=\"new\" />", "{props.version}", "<Link to=\"/x\">", "</Link>"}},
			},
		},
		{
			name:  "an h1 is the title over the front matter's; code keeps its markup",
			file:  "x.mdx",
			src:   "---\ntitle: \"Front \\\"title\\\"\"\n---\n# Real title\n\nUse `<Tabs>` and {`x`}.\n\n```jsx\n<Tabs>{x}</Tabs>\n# not a heading\n```\n\n~~~\n{y}\n~~~\n",
			title: "Real title",
			want: []markupChunk{
				{[]string{}, "# Real title\n\nUse `<Tabs>` and {`x`}.\n\n```jsx\n<Tabs>{x}</Tabs>\n# not a heading\n```\n\n~~~\n{y}\n~~~", []string{"{`x`}"}},
			},
		},
		{
			name:  "quoted front matter title when there is no h1",
			file:  "x.mdx",
			src:   "---\ntitle: \"Say \\\"hi\\\"\"\n---\nBody.\n",
			title: "Say \"hi\"",
			want:  []markupChunk{{[]string{}, "Body.", nil}},
		},
		{
			name:  "export blocks over lines, comments, fragments",
			file:  "x.mdx",
			src:   "export const meta = {\n  a: 1,\n};\n\n# Title\n\nText {/* a comment */} end <>frag</> ok.\n",
			title: "Title",
			want: []markupChunk{
				{[]string{}, "# Title\n\nText {/* a comment */} end <>frag</> ok.", []string{"{/* a comment */}", "<>", "</>"}},
			},
		},
		{
			name:  "unclosed tags and braces are text",
			file:  "x.mdx",
			src:   "# T\n\na < b and {unclosed\n\n<NotClosed attr=\"x\n\nend\n",
			title: "T",
			want:  []markupChunk{{[]string{}, "# T\n\na < b and {unclosed\n\n<NotClosed attr=\"x\n\nend", nil}},
		},
		{
			name:  "expressions inside an unclosed brace are still blanked",
			file:  "x.mdx",
			src:   "# T\n\n{ open {inner} and <B>bold</B>\n",
			title: "T",
			want:  []markupChunk{{[]string{}, "# T\n\n{ open {inner} and <B>bold", []string{"{inner}", "<B>"}}},
		},
		{
			name:  "a heading whose only content is jsx folds into the next section",
			file:  "milk.mdx",
			src:   "# Milk\n\n<Intro />\n\n## Policy\n\nOat.\n",
			title: "Milk",
			want:  []markupChunk{{[]string{"Policy"}, "# Milk\n\n<Intro />\n\n## Policy\n\nOat.", []string{"<Intro />"}}},
		},
		{
			name:  "crlf",
			file:  "x.mdx",
			src:   "---\r\ntitle: X\r\n---\r\nimport A from 'a';\r\n\r\n## S\r\n\r\n<A>text</A>\r\n",
			title: "X",
			want:  []markupChunk{{[]string{"S"}, "## S\r\n\r\n<A>text", []string{"<A>"}}},
		},
		{
			name:  "attributes over several lines, spreads and nested objects",
			file:  "x.mdx",
			src:   "# T\n\n<Card\n  title=\"A\"\n  {...rest}\n  style={{color: 'red', x: \"}\"}}\n  disabled\n/>\n\nafter\n",
			title: "T",
			want:  []markupChunk{{[]string{}, "# T\n\n<Card\n  title=\"A\"\n  {...rest}\n  style={{color: 'red', x: \"}\"}}\n  disabled\n/>\n\nafter", []string{"<Card", "title=\"A\"", "{...rest}", "style={{color: 'red', x: \"}\"}}", "disabled", "/>"}}},
		},
		{
			name:  "autolinks, html comments and escapes",
			file:  "x.mdx",
			src:   "# T\n\nsee <https://x.y/z> <!-- note --> and \\{not\\} an expression\n",
			title: "T",
			want:  []markupChunk{{[]string{}, "# T\n\nsee <https://x.y/z> <!-- note --> and \\{not\\} an expression", []string{"<!-- note -->"}}},
		},
	})
}

func TestRST(t *testing.T) {
	runFormatCases(t, []formatCase{
		{
			name: "sphinx page: targets, toctree, note, code-block, nested sections",
			file: "docs/quickstart.rst",
			src: ".. _quickstart:\n\nQuickstart\n==========\n\nIntro text.\n\n.. toctree::\n   :maxdepth: 2\n\n   install\n   usage\n\n" +
				"Install\n-------\n\nRun :command:`pip install`.\n\n.. note::\n   Use a virtualenv.\n\n.. code-block:: python\n   :linenos:\n\n   import flask\n\n" +
				"Details\n~~~~~~~\n\nDeep text.\n\nUsage\n-----\n\nUse it.\n",
			title: "Quickstart",
			want: []markupChunk{
				{[]string{}, "Quickstart\n==========\n\nIntro text.", nil},
				{[]string{"Install"}, "Install\n-------\n\nRun :command:`pip install`.\n\n.. note::\n   Use a virtualenv.\n\n.. code-block:: python\n   :linenos:\n\n   import flask", []string{".. note::", ".. code-block:: python", ":linenos:"}},
				{[]string{"Install", "Details"}, "Details\n~~~~~~~\n\nDeep text.", nil},
				{[]string{"Usage"}, "Usage\n-----\n\nUse it.", nil},
			},
		},
		{
			name:  "overlined title, then levels by first appearance; a bare title folds",
			file:  "x.rst",
			src:   "=======\n Title\n=======\n\nSub\n===\n\ntext\n\nOther\n-----\n\nmore\n\nSub two\n=======\n\nlast\n",
			title: "Title",
			want: []markupChunk{
				{[]string{"Sub"}, "=======\n Title\n=======\n\nSub\n===\n\ntext", nil},
				{[]string{"Sub", "Other"}, "Other\n-----\n\nmore", nil},
				{[]string{"Sub two"}, "Sub two\n=======\n\nlast", nil},
			},
		},
		{
			name:  "comments, substitutions, footnotes, autodoc",
			file:  "x.rst",
			src:   "Title\n=====\n\n.. This is a comment\n   spanning lines.\n\n.. |ragd| replace:: the daemon\n\nText about |ragd|.\n\n.. automodule:: flask\n   :members:\n\n.. [1] A footnote.\n\n..\n   empty comment head\n",
			title: "Title",
			want: []markupChunk{
				{[]string{}, "Title\n=====\n\n.. This is a comment\n   spanning lines.\n\n.. |ragd| replace:: the daemon\n\nText about |ragd|.\n\n.. automodule:: flask\n   :members:\n\n.. [1] A footnote.",
					[]string{".. This is a comment", "spanning lines.", ".. |ragd| replace:: the daemon", ".. automodule:: flask", ":members:", ".. [1]"}},
			},
		},
		{
			name:  "tables, literal blocks and field lists are text; headings inside them are not",
			file:  "x.rst",
			src:   ":orphan:\n\nTitle\n=====\n\n+---+---+\n| a | b |\n+===+===+\n\n====  ====\nA     B\n====  ====\n\nExample::\n\n    Not a title\n    ===========\n",
			title: "Title",
			want: []markupChunk{
				{[]string{}, ":orphan:", nil},
				{[]string{}, "Title\n=====\n\n+---+---+\n| a | b |\n+===+===+\n\n====  ====\nA     B\n====  ====\n\nExample::\n\n    Not a title\n    ===========", nil},
			},
		},
		{
			name:  "a paragraph's second line over an underline is no title",
			file:  "para.rst",
			src:   "line one\nline two\n--------\n\ntext\n",
			title: "para",
			want:  []markupChunk{{[]string{}, "line one\nline two\n--------\n\ntext", nil}},
		},
		{
			name:  "inline markup in titles",
			file:  "x.rst",
			src:   "The ``flask`` *command*\n=======================\n\nx\n\nSee :ref:`Routing <routing>` and `Docs <https://x>`_\n-----------------------------------------------------\n\ny\n",
			title: "The flask command",
			want: []markupChunk{
				{[]string{}, "The ``flask`` *command*\n=======================\n\nx", nil},
				{[]string{"See Routing and Docs"}, "See :ref:`Routing <routing>` and `Docs <https://x>`_\n-----------------------------------------------------\n\ny", nil},
			},
		},
		{
			name:  "crlf",
			file:  "x.rst",
			src:   "Title\r\n=====\r\n\r\nText.\r\n\r\nSub\r\n---\r\n\r\n.. note::\r\n   More.\r\n",
			title: "Title",
			want: []markupChunk{
				{[]string{}, "Title\r\n=====\r\n\r\nText.", nil},
				{[]string{"Sub"}, "Sub\r\n---\r\n\r\n.. note::\r\n   More.", []string{".. note::"}},
			},
		},
		{
			name:  "explicit markup nested in a directive body",
			file:  "x.rst",
			src:   "Title\n=====\n\n.. data:: session\n\n    A proxy.\n\n    .. code-block:: python\n\n        session[\"x\"] = 1\n\n    .. This comment is hidden.\n",
			title: "Title",
			want:  []markupChunk{{[]string{}, "Title\n=====\n\n.. data:: session\n\n    A proxy.\n\n    .. code-block:: python\n\n        session[\"x\"] = 1", []string{".. data::", ".. code-block:: python"}}},
		},
		{
			name:  "a short underline: four or more is a title, fewer is not",
			file:  "x.rst",
			src:   "A long title\n====\n\ntext\n\nAnother long one\n--\n\nmore\n",
			title: "A long title",
			want:  []markupChunk{{[]string{}, "A long title\n====\n\ntext\n\nAnother long one\n--\n\nmore", nil}},
		},
	})
}

func TestAsciiDoc(t *testing.T) {
	runFormatCases(t, []formatCase{
		{
			name: "antora page: header attributes, comments, includes, anchors, blocks",
			file: "modules/ROOT/pages/overview.adoc",
			src: ":page-aliases: old.adoc\n[[overview]]\n= Overview\n:toc:\n:icons: font\n\nIntro text with xref:other.adoc[Other].\n\n// a comment\ninclude::partial$note.adoc[]\n\n" +
				"[[install]]\n== Install\n\n[source,bash]\n----\n# not a heading\n== nor this\ninclude::example$run.sh[]\n----\n\n.Steps\n. Run it.\n\n" +
				"=== Details\n\n////\nhidden\n== hidden heading\n////\n\nDetail text.\n\n== Usage\n\nimage::diagram.png[Diagram]\n\n|===\n| a | b\n|===\n",
			title: "Overview",
			want: []markupChunk{
				{[]string{}, "= Overview\n:toc:\n:icons: font\n\nIntro text with xref:other.adoc[Other].", []string{":toc:", ":icons: font"}},
				{[]string{"Install"}, "== Install\n\n[source,bash]\n----\n# not a heading\n== nor this\ninclude::example$run.sh[]\n----\n\n.Steps\n. Run it.", []string{"[source,bash]", "include::example$run.sh[]"}},
				{[]string{"Install", "Details"}, "=== Details\n\n////\nhidden\n== hidden heading\n////\n\nDetail text.", []string{"== hidden heading", "////", "hidden\n"}},
				{[]string{"Usage"}, "== Usage\n\nimage::diagram.png[Diagram]\n\n|===\n| a | b\n|===", []string{"image::diagram.png[Diagram]"}},
			},
		},
		{
			name:  "markdown-style and symmetric titles",
			file:  "x.adoc",
			src:   "# Guide\n\nintro\n\n## Setup ##\n\nsteps\n\n=== Deep *bold* `code` <<ref,Ref text>> ===\n\ndeep\n",
			title: "Guide",
			want: []markupChunk{
				{[]string{}, "# Guide\n\nintro", nil},
				{[]string{"Setup"}, "## Setup ##\n\nsteps", nil},
				{[]string{"Setup", "Deep bold code Ref text"}, "=== Deep *bold* `code` <<ref,Ref text>> ===\n\ndeep", nil},
			},
		},
		{
			name:  "a title line inside a paragraph is text",
			file:  "x.adoc",
			src:   "= T\n\nsome text\n== not a title\n\n== Real\n\nx\n",
			title: "T",
			want: []markupChunk{
				{[]string{}, "= T\n\nsome text\n== not a title", nil},
				{[]string{"Real"}, "== Real\n\nx", nil},
			},
		},
		{
			name:  "an unterminated block runs to the end",
			file:  "x.adoc",
			src:   "= T\n\nintro\n\n----\ncode\n== not a section\n",
			title: "T",
			want:  []markupChunk{{[]string{}, "= T\n\nintro\n\n----\ncode\n== not a section", nil}},
		},
		{
			name:  "nested blocks: a listing inside an example, tables with other separators",
			file:  "x.adoc",
			src:   "= T\n\n====\n== inside\n----\n====\n----\n====\n\n[cols=\"1,2\"]\n,===\na,b\n,===\n\n== After\n\nx\n",
			title: "T",
			want: []markupChunk{
				{[]string{}, "= T\n\n====\n== inside\n----\n====\n----\n====\n\n[cols=\"1,2\"]\n,===\na,b\n,===", []string{"[cols=\"1,2\"]"}},
				{[]string{"After"}, "== After\n\nx", nil},
			},
		},
		{
			name:  "attribute values over lines, conditionals",
			file:  "x.adoc",
			src:   "= T\n:desc: a long \\\n  value\n\nifdef::env-github[]\nOn GitHub.\nendif::[]\n",
			title: "T",
			want:  []markupChunk{{[]string{}, "= T\n:desc: a long \\\n  value\n\nifdef::env-github[]\nOn GitHub.", []string{":desc: a long \\", "  value", "ifdef::env-github[]"}}},
		},
		{
			name:  "a header with author and revision lines before its attribute entries",
			file:  "x.adoc",
			src:   "= Guide\nJane Doe <jane@example.com>\nv1.0, 2024-01-01\n:toc: left\n:sectnums:\n\nIntro.\n",
			title: "Guide",
			want:  []markupChunk{{[]string{}, "= Guide\nJane Doe <jane@example.com>\nv1.0, 2024-01-01\n:toc: left\n:sectnums:\n\nIntro.", []string{":toc: left", ":sectnums:"}}},
		},
		{
			name:  "a bare title folds into its first section",
			file:  "milk.adoc",
			src:   "= Milk\n:description: x\n\n== Policy\n\nOat only.\n",
			title: "Milk",
			want:  []markupChunk{{[]string{"Policy"}, "= Milk\n:description: x\n\n== Policy\n\nOat only.", []string{":description: x"}}},
		},
		{
			name:  "crlf",
			file:  "x.adoc",
			src:   "= T\r\n\r\nintro\r\n\r\n== S\r\n\r\n// c\r\nbody\r\n",
			title: "T",
			want: []markupChunk{
				{[]string{}, "= T\r\n\r\nintro", nil},
				{[]string{"S"}, "== S\r\n\r\n// c\r\nbody", []string{"// c"}},
			},
		},
		{
			name:  "list continuations and block attributes right after a paragraph line",
			file:  "x.adoc",
			src:   "= T\n\nGroovy::\n+\n[source,groovy]\n----\nx = 1\n----\n\nHere is one:\n[source,xml]\n----\n<a/>\n----\n",
			title: "T",
			want:  []markupChunk{{[]string{}, "= T\n\nGroovy::\n+\n[source,groovy]\n----\nx = 1\n----\n\nHere is one:\n[source,xml]\n----\n<a/>\n----", []string{"\n+\n", "[source,groovy]", "[source,xml]"}}},
		},
		{
			name:  "antora nav file is text",
			file:  "modules/ROOT/nav.adoc",
			src:   ".Guides\n* xref:index.adoc[Home]\n** xref:install.adoc[Install]\n",
			title: "nav",
			want:  []markupChunk{{[]string{}, ".Guides\n* xref:index.adoc[Home]\n** xref:install.adoc[Install]", nil}},
		},
	})
}

// TestHeadingOnlyFolds is issue 27 #1 in every format: a document whose
// title heading is followed directly by its first section has no chunk
// that is only the title, which would outrank the section it introduces;
// the title's words are in the section's chunk and in its Title.
func TestHeadingOnlyFolds(t *testing.T) {
	for file, src := range map[string]string{
		"milk.md":   "# Milk\n\n## Policy\n\nOat milk only.\n",
		"milk.mdx":  "---\ntitle: Milk\n---\nimport X from 'x';\n\n<X />\n\n## Policy\n\nOat milk only.\n",
		"milk.rst":  "Milk\n====\n\n.. _policy:\n\nPolicy\n------\n\nOat milk only.\n",
		"milk.adoc": "= Milk\n:toc:\n\n[[policy]]\n== Policy\n\nOat milk only.\n",
	} {
		doc, err := File([]byte(src), file, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if doc.Title != "Milk" || len(doc.Chunks) != 1 {
			t.Fatalf("%s: title %q, %d chunks, want \"Milk\" and 1", file, doc.Title, len(doc.Chunks))
		}
		c := doc.Chunks[0]
		if !slices.Equal(c.HeadingPath, []string{"Policy"}) || !strings.HasSuffix(c.Content, "Oat milk only.") {
			t.Errorf("%s: chunk %q %q, want the Policy section", file, c.HeadingPath, c.Content)
		}
	}
}

// TestFileConcurrentUse chunks documents of every format from several
// goroutines, as the indexer does; with -race it checks the shared
// parsers and patterns.
func TestFileConcurrentUse(t *testing.T) {
	type job struct {
		name string
		src  []byte
		want Document
	}
	var jobs []job
	for _, s := range formatSeeds {
		for _, name := range fuzzNames {
			d, err := File([]byte(s), name, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, job{name, []byte(s), d})
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(jobs))
	for range 4 {
		wg.Go(func() {
			for _, j := range jobs {
				d, err := File(j.src, j.name, DefaultOptions())
				if err != nil || len(d.Chunks) != len(j.want.Chunks) || d.Title != j.want.Title {
					errs <- fmt.Sprintf("%s: %d chunks %q, %v", j.name, len(d.Chunks), d.Title, err)
					continue
				}
				for k, c := range d.Chunks {
					if c.Hash != j.want.Chunks[k].Hash || !slices.Equal(c.HeadingPath, j.want.Chunks[k].HeadingPath) {
						errs <- fmt.Sprintf("%s chunk %d differs", j.name, k)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

package chunking

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

type wantChunk struct {
	path    []string
	content string
}

// TestMarkdownSections runs real-looking documents through Markdown with
// the default options, where every section fits in one chunk, and checks
// the exact chunks: heading path, content and offsets.
func TestMarkdownSections(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		src   string
		title string
		want  []wantChunk
	}{
		{
			name: "adr with nested headings",
			file: "docs/adr/0007-hybrid-ranking.md",
			src: `# ADR 0007: Hybrid ranking

Status: accepted

## Context

We index docs and messages.

## Decision

Use reciprocal rank fusion.

### Weights

Vector 0.7, FTS 0.3.

#### Tuning

Eval set first.

## Consequences

Tuning needs an eval set.
`,
			title: "ADR 0007: Hybrid ranking",
			want: []wantChunk{
				{[]string{}, "# ADR 0007: Hybrid ranking\n\nStatus: accepted"},
				{[]string{"Context"}, "## Context\n\nWe index docs and messages."},
				{[]string{"Decision"}, "## Decision\n\nUse reciprocal rank fusion."},
				{[]string{"Decision", "Weights"}, "### Weights\n\nVector 0.7, FTS 0.3."},
				{[]string{"Decision", "Weights", "Tuning"}, "#### Tuning\n\nEval set first."},
				{[]string{"Consequences"}, "## Consequences\n\nTuning needs an eval set."},
			},
		},
		{
			name:  "code fences with hashes are not headings",
			file:  "guide.md",
			src:   "# Guide\n\n```sh\n# install\nmake install\n## not a heading\n```\n\n~~~\n# nor this\n~~~\n\n## Usage\n\nRun `ragd`.\n",
			title: "Guide",
			want: []wantChunk{
				{[]string{}, "# Guide\n\n```sh\n# install\nmake install\n## not a heading\n```\n\n~~~\n# nor this\n~~~"},
				{[]string{"Usage"}, "## Usage\n\nRun `ragd`."},
			},
		},
		{
			name:  "indented code and html block are not headings",
			file:  "notes/intro.md",
			src:   "Intro text before any heading.\n\n    # indented code\n    make\n\n<details>\n# inside html\n</details>\n\n# Real heading\n\nBody.\n",
			title: "Real heading",
			want: []wantChunk{
				{[]string{}, "Intro text before any heading.\n\n    # indented code\n    make\n\n<details>\n# inside html\n</details>"},
				{[]string{}, "# Real heading\n\nBody."},
			},
		},
		{
			name:  "setext headings",
			file:  "ranking.md",
			src:   "Ranking\n=======\n\nIntro.\n\nWeights *and* bias\n------------------\n\nVector first.\n\nTwo line\nheading\n-------\n\nLast.\n",
			title: "Ranking",
			want: []wantChunk{
				{[]string{}, "Ranking\n=======\n\nIntro."},
				{[]string{"Weights and bias"}, "Weights *and* bias\n------------------\n\nVector first."},
				{[]string{"Two line heading"}, "Two line\nheading\n-------\n\nLast."},
			},
		},
		{
			name:  "front matter is not content and its title is not the title",
			file:  "docs/guide.md",
			src:   "---\ntitle: Front\ntags: [a, b]\n---\nBody before heading.\n\n## Sub\n\nText.\n",
			title: "guide",
			want: []wantChunk{
				{[]string{}, "Body before heading."},
				{[]string{"Sub"}, "## Sub\n\nText."},
			},
		},
		{
			name:  "front matter closed by dots, with a byte order mark",
			file:  "x.md",
			src:   "\uFEFF---\r\nlayout: post\r\n...\r\n# Title\r\n\r\nText.\r\n",
			title: "Title",
			want:  []wantChunk{{[]string{}, "# Title\r\n\r\nText."}},
		},
		{
			name:  "unclosed front matter is markdown",
			file:  "x.md",
			src:   "---\nnot: front matter\n\nstill text\n",
			title: "x",
			want:  []wantChunk{{[]string{}, "---\nnot: front matter\n\nstill text"}},
		},
		{
			name:  "tables, lists and quotes stay in their section",
			file:  "config.md",
			src:   "# Config\n\n| key | value |\n|-----|-------|\n| a   | 1     |\n\n- one\n- # two is a list item\n  1. nested\n\n> # quoted, not a section\n> text\n\n## Next\n\nx\n",
			title: "Config",
			want: []wantChunk{
				{[]string{}, "# Config\n\n| key | value |\n|-----|-------|\n| a   | 1     |\n\n- one\n- # two is a list item\n  1. nested\n\n> # quoted, not a section\n> text"},
				{[]string{"Next"}, "## Next\n\nx"},
			},
		},
		{
			name:  "crlf line endings, portuguese",
			file:  "decisao.md",
			src:   "# Título da decisão\r\n\r\nIntrodução à decisão.\r\n\r\n## Configuração\r\n\r\nValor padrão: não.\r\n\r\nAção\r\n----\r\n\r\nCoração.\r\n",
			title: "Título da decisão",
			want: []wantChunk{
				{[]string{}, "# Título da decisão\r\n\r\nIntrodução à decisão."},
				{[]string{"Configuração"}, "## Configuração\r\n\r\nValor padrão: não."},
				{[]string{"Ação"}, "Ação\r\n----\r\n\r\nCoração."},
			},
		},
		{
			name:  "cyrillic",
			file:  "решение.md",
			src:   "# Решение\n\nМы используем SQLite.\n\n## Веса\n\nВектор 0,7; FTS 0,3.\n",
			title: "Решение",
			want: []wantChunk{
				{[]string{}, "# Решение\n\nМы используем SQLite."},
				{[]string{"Веса"}, "## Веса\n\nВектор 0,7; FTS 0,3."},
			},
		},
		{
			name:  "emoji and combining accents in headings",
			file:  "x.md",
			src:   "# 👩\u200d💻 Dev notes 🇵🇹\n\nShip it 🚀.\n\n## Cafe\u0301 👍🏽\n\nOk.\n",
			title: "👩\u200d💻 Dev notes 🇵🇹",
			want: []wantChunk{
				{[]string{}, "# 👩\u200d💻 Dev notes 🇵🇹\n\nShip it 🚀."},
				{[]string{"Cafe\u0301 👍🏽"}, "## Cafe\u0301 👍🏽\n\nOk."},
			},
		},
		{
			name:  "inline markup, escapes and entities in heading text",
			file:  "x.md",
			src:   "# Use `sqlite` for *state* and [links](http://x) &amp; <b>html</b> \\# ##\n\nintro\n\n## 1\\. Not a list\n\nx\n",
			title: "Use sqlite for state and links & html #",
			want: []wantChunk{
				{[]string{}, "# Use `sqlite` for *state* and [links](http://x) &amp; <b>html</b> \\# ##\n\nintro"},
				{[]string{"1. Not a list"}, "## 1\\. Not a list\n\nx"},
			},
		},
		{
			name:  "level jumps; the title is the first level-1 heading",
			file:  "x.md",
			src:   "### Deep\n\ntext\n\n# Top\n\nmore\n\n## Mid\n\nx\n\n# Second top\n\ny\n",
			title: "Top",
			want: []wantChunk{
				{[]string{"Deep"}, "### Deep\n\ntext"},
				{[]string{}, "# Top\n\nmore"},
				{[]string{"Mid"}, "## Mid\n\nx"},
				{[]string{"Second top"}, "# Second top\n\ny"},
			},
		},
		{
			name:  "headings without text",
			file:  "x.md",
			src:   "# T\n\n##\n\n## \n\ntext under an empty heading\n\n###\n",
			title: "T",
			want: []wantChunk{
				// "# T" has no text of its own: it folds into the next
				// section, across the bare "##" (issue 27).
				{[]string{""}, "# T\n\n##\n\n## \n\ntext under an empty heading"},
			},
		},
		{
			name:  "indented atx heading starts at its line",
			file:  "x.md",
			src:   "intro\n\n   ## Indented\nbody\n",
			title: "x",
			want: []wantChunk{
				{[]string{}, "intro"},
				{[]string{"Indented"}, "## Indented\nbody"},
			},
		},
		{
			name:  "intro text under the title has an empty path",
			file:  "docs/adr/0012-my-adr.md",
			src:   "# My ADR\n\nIntro paragraph.\n\nMore intro.\n\n## Decision\n\nUse fusion.\n\n### Weights\n\nVector first.\n",
			title: "My ADR",
			want: []wantChunk{
				{[]string{}, "# My ADR\n\nIntro paragraph.\n\nMore intro."},
				{[]string{"Decision"}, "## Decision\n\nUse fusion."},
				{[]string{"Decision", "Weights"}, "### Weights\n\nVector first."},
			},
		},
		{
			name:  "a second level-1 heading is a section",
			file:  "guide.md",
			src:   "# Guide\n\nintro\n\n## Setup\n\nsteps\n\n# Appendix\n\nextra\n\n## Notes\n\nnotes\n\n### Deep\n\ndeeper\n",
			title: "Guide",
			want: []wantChunk{
				{[]string{}, "# Guide\n\nintro"},
				{[]string{"Setup"}, "## Setup\n\nsteps"},
				{[]string{"Appendix"}, "# Appendix\n\nextra"},
				{[]string{"Appendix", "Notes"}, "## Notes\n\nnotes"},
				{[]string{"Appendix", "Notes", "Deep"}, "### Deep\n\ndeeper"},
			},
		},
		{
			name:  "an empty level-1 heading is no title; the next one is",
			file:  "x.md",
			src:   "#\n\nunder the empty one\n\n# Real title\n\nbody\n\n## Sub\n\nsub text\n",
			title: "Real title",
			want: []wantChunk{
				{[]string{""}, "#\n\nunder the empty one"},
				{[]string{}, "# Real title\n\nbody"},
				{[]string{"Sub"}, "## Sub\n\nsub text"},
			},
		},
		{
			name:  "no level-1 heading: title from the file name, paths from the outermost heading",
			file:  "docs/setup-guide.md",
			src:   "Intro.\n\n## Install\n\nget it\n\n### Linux\n\napt\n\n## Use\n\nrun it\n",
			title: "setup-guide",
			want: []wantChunk{
				{[]string{}, "Intro."},
				{[]string{"Install"}, "## Install\n\nget it"},
				{[]string{"Install", "Linux"}, "### Linux\n\napt"},
				{[]string{"Use"}, "## Use\n\nrun it"},
			},
		},
		{
			name:  "setext level-1 title",
			file:  "x.md",
			src:   "My *ADR*\n========\n\nIntro.\n\nContext\n-------\n\nwhy\n\n### Detail\n\nmore\n\nAppendix\n========\n\nextra\n",
			title: "My ADR",
			want: []wantChunk{
				{[]string{}, "My *ADR*\n========\n\nIntro."},
				{[]string{"Context"}, "Context\n-------\n\nwhy"},
				{[]string{"Context", "Detail"}, "### Detail\n\nmore"},
				{[]string{"Appendix"}, "Appendix\n========\n\nextra"},
			},
		},
		{
			name:  "a title with no text of its own folds into its first section (issue 27)",
			file:  "docs/milk.md",
			src:   "# Milk\n\n## Policy\n\nOat milk only.\n\n## Cost\n\nCheap.\n",
			title: "Milk",
			want: []wantChunk{
				{[]string{"Policy"}, "# Milk\n\n## Policy\n\nOat milk only."},
				{[]string{"Cost"}, "## Cost\n\nCheap."},
			},
		},
		{
			name:  "a heading-only run, nested, folds into the first section with text, trailing headings into the one before",
			file:  "x.md",
			src:   "# T\n## A\n### A1\ntext\n## B\n\n## C\n### C1\n",
			title: "T",
			want: []wantChunk{
				{[]string{"A", "A1"}, "# T\n## A\n### A1\ntext\n## B\n\n## C\n### C1"},
			},
		},
		{name: "empty file", file: "dir/empty.md", src: "", title: "empty"},
		{name: "whitespace only", file: "blank.txt", src: " \n\n\t\r\n", title: "blank"},
		{name: "front matter only", file: "fm.md", src: "---\na: b\n---\n", title: "fm"},
		{
			name:  "only headings",
			file:  "h.md",
			src:   "# A\n## B\n### C\n## D\n",
			title: "A",
			want: []wantChunk{
				// One chunk, with the path of its first heading: no
				// heading has text to be cited for.
				{[]string{}, "# A\n## B\n### C\n## D"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			doc, err := Markdown(src, tt.file, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, src, DefaultOptions(), doc)
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
				if c.HeadingPath == nil || !slices.Equal(c.HeadingPath, w.path) {
					t.Errorf("chunk %d: path %q, want %q", i, c.HeadingPath, w.path)
				}
				if c.Content != w.content {
					t.Errorf("chunk %d: content\n%q, want\n%q", i, c.Content, w.content)
				}
				// Each wanted content occurs once in the source, which pins
				// the offsets.
				if start := strings.Index(tt.src, w.content); c.Start != start || c.End != start+len(w.content) {
					t.Errorf("chunk %d: [%d,%d), want [%d,%d)", i, c.Start, c.End, start, start+len(w.content))
				}
			}
		})
	}
}

// TestMarkdownLongSection cuts a long ADR section at paragraph breaks: each
// chunk ends with a whole paragraph, the next one starts about 150 runes
// back inside it, and all carry the section's path.
func TestMarkdownLongSection(t *testing.T) {
	var paras []string
	for i := range 8 {
		// About 390 runes each, so a paragraph break falls in every window, mixed scripts, ending with a marker.
		var words []string
		for utf8.RuneCountInString(strings.Join(words, " ")) < 380 {
			words = append(words, "ranking", "решение", "ação")
		}
		words = append(words, fmt.Sprintf("end%d.", i))
		paras = append(paras, strings.Join(words, " "))
	}
	src := "# ADR 0009: Chunking\n\n## Decision\n\n" + strings.Join(paras, "\n\n") + "\n\n## Consequences\n\nNone.\n"
	doc, err := Markdown([]byte(src), "0009.md", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, []byte(src), DefaultOptions(), doc)
	checkMarkdownSections(t, []byte(src), DefaultOptions(), doc, true)
	if doc.Title != "ADR 0009: Chunking" {
		t.Errorf("title %q", doc.Title)
	}
	var decision []Chunk
	for _, c := range doc.Chunks {
		if slices.Equal(c.HeadingPath, []string{"Decision"}) {
			decision = append(decision, c)
		}
	}
	if len(decision) < 3 {
		t.Fatalf("decision section in %d chunks, want at least 3", len(decision))
	}
	for i, c := range decision {
		if !strings.HasSuffix(c.Content, ".") {
			t.Errorf("chunk %d does not end at a paragraph: ...%q", i, c.Content[len(c.Content)-20:])
		}
		if i > 0 && strings.Contains(c.Content, "## Decision") {
			t.Errorf("chunk %d repeats the heading line", i)
		}
	}
	// The title has no text of its own: it folds into Decision.
	if !strings.HasPrefix(decision[0].Content, "# ADR 0009: Chunking\n\n## Decision\n\n") {
		t.Errorf("first chunk does not start at the heading: %.30q", decision[0].Content)
	}
	if last := doc.Chunks[len(doc.Chunks)-1]; last.Content != "## Consequences\n\nNone." {
		t.Errorf("last chunk %q", last.Content)
	}
}

func TestFileTitle(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"docs/adr/0001-record.md", "0001-record"},
		{`C:\docs\x.markdown`, "x"},
		{"archive.tar.gz", "archive.tar"},
		{".hidden", ".hidden"},
		{"noext", "noext"},
		{"dir/", ""},
		{"", ""},
		{"bad\xff.md", "bad\uFFFD"},
	} {
		if got := fileTitle(tt.path); got != tt.want {
			t.Errorf("fileTitle(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestBodyStart(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want int
	}{
		{"", 0},
		{"---", 0},
		{"---\n---\n", 8},
		{"---  \r\na: 1\r\n---\r\n# T", 18},
		{"---\na: 1\n...", 12},
		{"---\na: 1\n", 0},
		{"\uFEFF# T", 3},
		{" ---\na\n---\n", 0},
		{"----\na\n----\n", 0},
	} {
		if got := bodyStart([]byte(tt.src)); got != tt.want {
			t.Errorf("bodyStart(%q) = %d, want %d", tt.src, got, tt.want)
		}
	}
}

// TestConcurrentUse chunks documents from several goroutines, as the
// indexer does; run with -race it checks the shared parsers.
func TestConcurrentUse(t *testing.T) {
	r := rand.New(rand.NewSource(99))
	var docs [][]byte
	var want []Document
	for range 16 {
		g := genMarkdown(r)
		d, err := Markdown(g.src, "c.md", DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		docs, want = append(docs, g.src), append(want, d)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(docs))
	for range 4 {
		wg.Go(func() {
			for i, src := range docs {
				d, err := Markdown(src, "c.md", DefaultOptions())
				if err != nil || len(d.Chunks) != len(want[i].Chunks) {
					errs <- fmt.Sprintf("doc %d: %d chunks, %v", i, len(d.Chunks), err)
					continue
				}
				for j, c := range d.Chunks {
					if c.Hash != want[i].Chunks[j].Hash || !slices.Equal(c.HeadingPath, want[i].Chunks[j].HeadingPath) {
						errs <- fmt.Sprintf("doc %d chunk %d differs", i, j)
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

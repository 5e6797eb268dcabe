package chunking

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// Words for generated documents. None starts a markdown block at the start
// of a line, so paragraphs stay paragraphs; several put combining marks,
// joiners or flags next to a possible cut.
var vocab = []string{
	"the", "index", "chunk", "search", "vector", "daemon", "SQLite", "FTS5",
	"decision", "weights", "because", "embedding", "latency,", "p99.",
	"индекс", "поиск", "решение", "весов", "Ёлка", "данных,",
	"ação", "decisão", "informação", "pesquisa", "coração", "não",
	"cafe\u0301", "nai\u0308ve", "a\u0303o", "e\u0301\u0301",
	"👩\u200d💻", "👨\u200d👩\u200d👧\u200d👦", "👍🏽", "🇵🇹", "🇧🇷🇵🇹", "❤\ufe0f", "✔",
	"`code`", "*emph*", "[link](http://x.y/z)", "|", "x\u00a0y",
}

// Heading words and their plain text.
var headingWords = [][2]string{
	{"Decision", "Decision"}, {"Weights", "Weights"}, {"Context", "Context"},
	{"`sqlite`", "sqlite"}, {"*Consequences*", "Consequences"}, {"Решение", "Решение"},
	{"Decisão", "Decisão"}, {"Status", "Status"}, {"👩\u200d💻", "👩\u200d💻"}, {"a&amp;b", "a&b"},
}

// genSection is a section the generator wrote: where its heading line
// starts and the heading path it must get.
type genSection struct {
	start int
	path  []string
	body  bool // a block follows the heading before the next one
}

// foldGen folds the generator's heading-only sections the way the package
// documents (see fold): into the next section with a body, which starts at
// the first heading of the run, or, at the end, into the section before.
func foldGen(secs []genSection) []genSection {
	var out []genSection
	run := -1 // index in secs of the first of a heading-only run
	for i, s := range secs {
		if i > 0 && !s.body {
			if run < 0 {
				run = i
			}
			continue
		}
		if run >= 0 {
			s.start, run = secs[run].start, -1
		}
		out = append(out, s)
	}
	if run >= 0 && len(out) == 1 && !out[0].body {
		// Nothing with text before the run: it is its own section.
		out = append(out, secs[run])
	}
	return out
}

type genDoc struct {
	src      []byte
	sections []genSection
	title    string
}

// genMarkdown writes a random markdown document and records its sections.
func genMarkdown(r *rand.Rand) genDoc {
	nl := "\n"
	if r.Intn(4) == 0 {
		nl = "\r\n"
	}
	var sb strings.Builder
	d := genDoc{sections: []genSection{{start: 0, path: []string{}}}}
	if r.Intn(4) == 0 {
		sb.WriteString("---" + nl + "title: Not the title" + nl + "tags: [a, b]" + nl + "---" + nl)
		d.sections[0].start = sb.Len()
	}
	type level struct {
		n     int
		text  string
		title bool // the title heading, left out of paths
	}
	var stack []level
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[r.Intn(len(vocab))]
			if r.Intn(200) == 0 { // an unbreakable run longer than the window
				ws[i] = strings.Repeat("ab\u0301", 150+r.Intn(300))
			}
		}
		return strings.Join(ws, " ")
	}
	blocks := 1 + r.Intn(40)
	for range blocks {
		switch k := r.Intn(14); {
		case k < 3: // heading
			lvl := 1 + r.Intn(6)
			setext := lvl <= 2 && r.Intn(3) == 0
			var raw, plain []string
			for range 1 + r.Intn(3) {
				w := headingWords[r.Intn(len(headingWords))]
				raw, plain = append(raw, w[0]), append(plain, w[1])
			}
			text := strings.Join(plain, " ")
			start := sb.Len()
			if setext {
				under := "==="
				if lvl == 2 {
					under = "-----"
				}
				sb.WriteString(strings.Join(raw, " ") + nl + under + nl + nl)
			} else {
				sb.WriteString(strings.Repeat("#", lvl) + " " + strings.Join(raw, " ") + nl + nl)
			}
			// Heading texts are never empty: the first level-1 heading is
			// the title.
			isTitle := lvl == 1 && d.title == ""
			if isTitle {
				d.title = text
			}
			for len(stack) > 0 && stack[len(stack)-1].n >= lvl {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, level{lvl, text, isTitle})
			path := []string{}
			for _, l := range stack {
				if !l.title {
					path = append(path, l.text)
				}
			}
			d.sections = append(d.sections, genSection{start: start, path: path})
		case k < 8: // paragraph, lines of a few words
			d.sections[len(d.sections)-1].body = true
			var lines []string
			for range 1 + r.Intn(12) {
				lines = append(lines, words(1+r.Intn(30)))
			}
			sb.WriteString(strings.Join(lines, nl) + nl + nl)
		case k == 8:
			d.sections[len(d.sections)-1].body = true
			sb.WriteString("```go" + nl + "# not a heading" + nl + "func f() {}" + nl + nl + "## nor this" + nl + "```" + nl + nl)
		case k == 9:
			d.sections[len(d.sections)-1].body = true
			sb.WriteString("    # indented code, not a heading" + nl + "    " + words(5) + nl + nl)
		case k == 10:
			d.sections[len(d.sections)-1].body = true
			sb.WriteString("<div>" + nl + "# html, not a heading" + nl + "</div>" + nl + nl)
		case k == 11:
			d.sections[len(d.sections)-1].body = true
			sb.WriteString("| a | b |" + nl + "|---|---|" + nl)
			for range r.Intn(20) {
				sb.WriteString("| " + words(3) + " | " + words(4) + " |" + nl)
			}
			sb.WriteString(nl)
		case k == 12:
			d.sections[len(d.sections)-1].body = true
			sb.WriteString("- # a list item, not a section" + nl + "- " + words(8) + nl + nl)
		default:
			d.sections[len(d.sections)-1].body = true
			sb.WriteString("> # a quote, not a section" + nl + "> " + words(10) + nl + nl)
		}
	}
	d.src = []byte(sb.String())
	d.sections = foldGen(d.sections)
	if d.title == "" {
		d.title = "gen"
	}
	return d
}

// TestMarkdownProperties checks generated documents against what the
// generator knows: the sections and their heading paths, the title, and
// the cutting invariants (sizes, overlap, coverage, graphemes, offsets).
func TestMarkdownProperties(t *testing.T) {
	opts := []Options{
		DefaultOptions(),
		{Target: 100, Overlap: 20, Window: 30},
		{Target: 60, Overlap: 0, Window: 10},
		{Target: 80, Overlap: 30, Window: 40},
	}
	for seed := range int64(300) {
		r := rand.New(rand.NewSource(seed))
		g := genMarkdown(r)
		opt := opts[seed%int64(len(opts))]
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			doc, err := Markdown(g.src, "dir/gen.md", opt)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != g.title {
				t.Fatalf("title %q, want %q", doc.Title, g.title)
			}
			checkChunks(t, g.src, opt, doc)
			checkMarkdownSections(t, g.src, opt, doc, true)
			// Every chunk lies inside the section the generator wrote and
			// carries its heading path.
			for _, c := range doc.Chunks {
				i := sort.Search(len(g.sections), func(i int) bool { return g.sections[i].start > c.Start }) - 1
				end := len(g.src)
				if i+1 < len(g.sections) {
					end = g.sections[i+1].start
				}
				if i < 0 || c.End > end {
					t.Fatalf("chunk %d [%d,%d) crosses a section boundary", c.Position, c.Start, c.End)
				}
				if !slices.Equal(c.HeadingPath, g.sections[i].path) || c.HeadingPath == nil {
					t.Fatalf("chunk %d: path %q, want %q", c.Position, c.HeadingPath, g.sections[i].path)
				}
			}
		})
	}
}

// TestTextProperties checks Text over random messages.
func TestTextProperties(t *testing.T) {
	for seed := range int64(200) {
		r := rand.New(rand.NewSource(seed))
		opt := Options{Target: 20 + r.Intn(300), Window: 1, Overlap: 0}
		// A window narrower than the longest grapheme in vocab (7 runes)
		// may force a split inside one; FuzzText covers those.
		opt.Window = min(opt.Target, 16+r.Intn(opt.Target))
		opt.Overlap = r.Intn(opt.Target/2 + 1)
		var sb strings.Builder
		for range r.Intn(400) {
			switch r.Intn(10) {
			case 0:
				sb.WriteString("\n\n")
			case 1:
				sb.WriteString(strings.Repeat(" ", r.Intn(80)))
			default:
				sb.WriteString(vocab[r.Intn(len(vocab))] + " ")
			}
		}
		src := sb.String()
		doc, err := Text(src, opt)
		if err != nil {
			t.Fatalf("seed %d %+v: %v", seed, opt, err)
		}
		checkChunks(t, []byte(src), opt, doc)
		spans := make([]span, len(doc.Chunks))
		for i, c := range doc.Chunks {
			spans[i] = span{c.Start, c.End}
			if c.HeadingPath != nil || c.Title != "" {
				t.Fatalf("seed %d: Text chunk with path %q title %q", seed, c.HeadingPath, c.Title)
			}
		}
		checkSection(t, src, 0, len(src), spans, opt, true)
	}
}

// fuzzOptions derives valid options from fuzzer input, so that small
// inputs are cut too.
func fuzzOptions(target, overlap, window uint16) Options {
	if target == 0 {
		return DefaultOptions()
	}
	o := Options{Target: 1 + int(target)%2000}
	o.Window = 1 + int(window)%o.Target
	o.Overlap = int(overlap) % (o.Target/2 + 1)
	return o
}

func addSeeds(f *testing.F) {
	for _, s := range []string{
		"", "#", "# T\n\ntext", "---\na: b\n---\n# T\n", "---\nunclosed",
		"Title\n=====\n\nSub\n---\n\nbody", "```\n# no\n```\n## yes\n",
		"    # no\n", "<div>\n# no\n</div>\n", "- # in list\n> # in quote\n",
		"a\r\n\r\nb\r\n# H\r\n", "\xff\xfe\x00# bad\x00\n\xc3", "caf\u00e9 cafe\u0301 👩\u200d💻 🇵🇹",
		"Ёлка " + strings.Repeat("слово ", 50), strings.Repeat("x", 300), strings.Repeat("\u0301", 100),
		"| a | b |\n|---|---|\n| 1 | 2 |\n", "# `code` *em* [l](u) <b>x</b> &amp;\n",
		// A list nested one level per line: goldmark was cubic in its depth.
		string(nestedList(200)) + "# After\n", "<div>\n" + strings.Repeat(" ", 300) + "text\n# no\n",
	} {
		f.Add([]byte(s), uint16(0), uint16(0), uint16(0))
		f.Add([]byte(s), uint16(30), uint16(7), uint16(9))
	}
}

// FuzzMarkdown checks Markdown on arbitrary bytes: no panic, no error for
// valid options, and every invariant that does not depend on graphemes
// (a fuzzer's wall of combining marks may force a cut inside one).
func FuzzMarkdown(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, target, overlap, window uint16) {
		opt := fuzzOptions(target, overlap, window)
		doc, err := Markdown(src, "fuzz.md", opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		checkChunks(t, src, opt, doc)
		checkMarkdownSections(t, src, opt, doc, false)
	})
}

// FuzzText is FuzzMarkdown for Text.
func FuzzText(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, target, overlap, window uint16) {
		opt := fuzzOptions(target, overlap, window)
		doc, err := Text(string(src), opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		checkChunks(t, src, opt, doc)
		san, _, _ := sanitize(src)
		spans := make([]span, len(doc.Chunks))
		for i, c := range doc.Chunks {
			spans[i] = span{c.Start, c.End}
		}
		if !clean(src) { // offsets are in the source; recut the sanitised text
			spans = cutSpans(string(san), 0, len(san), opt)
		}
		checkSection(t, string(san), 0, len(san), spans, opt, false)
		if utf8.Valid(src) && len(doc.Chunks) > 0 && doc.Replaced > 0 && !strings.Contains(string(src), "\x00") {
			t.Fatalf("valid input reported %d replacements", doc.Replaced)
		}
	})
}

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

// formatHeading writes a heading of a generated document: its level (0
// outermost), raw markup text and the plain text it must get.
type formatHeading func(sb *strings.Builder, nl string, level int, raw, plain string)

// genBlock writes one body block of a generated document and reports
// whether it is prose (whether a heading followed by it has a body).
type genBlock func(sb *strings.Builder, nl string, words func(int) string) bool

// headingTexts are raw and plain heading texts of reStructuredText and
// AsciiDoc.
var (
	rstHeadingWords = [][2]string{
		{"Decision", "Decision"}, {"``sqlite``", "sqlite"}, {"*Consequences*", "Consequences"},
		{"Решение", "Решение"}, {"Decisão", "Decisão"}, {"👩\u200d💻", "👩\u200d💻"}, {":ref:`Weights <w>`", "Weights"},
	}
	adocHeadingWords = [][2]string{
		{"Decision", "Decision"}, {"`sqlite`", "sqlite"}, {"*Consequences*", "Consequences"},
		{"Решение", "Решение"}, {"Decisão", "Decisão"}, {"👩\u200d💻", "👩\u200d💻"}, {"<<w,Weights>>", "Weights"},
	}
)

// rstStyles are the adornments of each level, over- or underlined; the
// generator opens levels in order, so this is also their order of first
// appearance.
var rstStyles = []rstStyle{{'=', true}, {'=', false}, {'-', false}, {'~', false}, {'^', false}}

func rstGenHeading(sb *strings.Builder, nl string, level int, raw, _ string) {
	st := rstStyles[level]
	adorn := strings.Repeat(string(st.char), utf8.RuneCountInString(raw)+2)
	if st.over {
		sb.WriteString(adorn + nl + raw + nl + adorn + nl + nl)
		return
	}
	sb.WriteString(raw + nl + adorn + nl + nl)
}

var rstBlocks = []genBlock{
	func(sb *strings.Builder, nl string, words func(int) string) bool {
		sb.WriteString(".. note::" + nl + "   " + words(6) + nl + nl)
		return true
	},
	func(sb *strings.Builder, nl string, words func(int) string) bool {
		sb.WriteString(words(4) + "::" + nl + nl + "    Not a title" + nl + "    ===========" + nl + nl)
		return true
	},
	func(sb *strings.Builder, nl string, _ func(int) string) bool {
		sb.WriteString(".. toctree::" + nl + "   :maxdepth: 1" + nl + nl + "   install" + nl + nl)
		return false
	},
	func(sb *strings.Builder, nl string, _ func(int) string) bool {
		sb.WriteString(".. a comment" + nl + "   Title" + nl + "   =====" + nl + nl + ".. _target:" + nl + nl)
		return false
	},
	func(sb *strings.Builder, nl string, words func(int) string) bool {
		sb.WriteString("+-----+-----+" + nl + "| a   | b   |" + nl + "+=====+=====+" + nl + "| " + words(1) + " | x |" + nl + "+-----+-----+" + nl + nl)
		return true
	},
}

func adocGenHeading(sb *strings.Builder, nl string, level int, raw, _ string) {
	sb.WriteString(strings.Repeat("=", level+1) + " " + raw + nl + nl)
}

var adocBlocks = []genBlock{
	func(sb *strings.Builder, nl string, words func(int) string) bool {
		sb.WriteString("[source,go]" + nl + "----" + nl + "== not a section" + nl + words(3) + nl + "----" + nl + nl)
		return true
	},
	func(sb *strings.Builder, nl string, _ func(int) string) bool {
		sb.WriteString("////" + nl + "== hidden" + nl + "////" + nl + nl + ":attr: value" + nl + "// comment" + nl + nl)
		return false
	},
	func(sb *strings.Builder, nl string, _ func(int) string) bool {
		sb.WriteString("include::partial$x.adoc[]" + nl + "[[anchor]]" + nl + nl)
		return false
	},
	func(sb *strings.Builder, nl string, words func(int) string) bool {
		sb.WriteString("|===" + nl + "| a | b" + nl + "| " + words(2) + " | x" + nl + "|===" + nl + nl)
		return true
	},
	func(sb *strings.Builder, nl string, words func(int) string) bool {
		sb.WriteString("====" + nl + "== inside an example" + nl + words(5) + nl + "====" + nl + nl)
		return true
	},
}

// genFormat writes a random document with the given heading writer and
// blocks, and records its sections as File must find them.
func genFormat(r *rand.Rand, hw [][2]string, heading formatHeading, blocks []genBlock, levels int) genDoc {
	nl := "\n"
	if r.Intn(4) == 0 {
		nl = "\r\n"
	}
	var sb strings.Builder
	d := genDoc{sections: []genSection{{start: 0, path: []string{}}}}
	type level struct {
		n     int
		text  string
		title bool
	}
	var stack []level
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[r.Intn(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	for range 1 + r.Intn(40) {
		switch k := r.Intn(10); {
		case k < 3:
			// One level deeper at most: levels appear in order.
			lvl := r.Intn(min(len(stack)+1, levels))
			if d.title == "" && len(d.sections) == 1 {
				lvl = 0
			}
			var raw, plain []string
			for range 1 + r.Intn(3) {
				w := hw[r.Intn(len(hw))]
				raw, plain = append(raw, w[0]), append(plain, w[1])
			}
			text := strings.Join(plain, " ")
			start := sb.Len()
			heading(&sb, nl, lvl, strings.Join(raw, " "), text)
			isTitle := lvl == 0 && d.title == ""
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
		case k < 7:
			var lines []string
			for range 1 + r.Intn(8) {
				lines = append(lines, words(1+r.Intn(20)))
			}
			sb.WriteString(strings.Join(lines, nl) + nl + nl)
			d.sections[len(d.sections)-1].body = true
		default:
			if blocks[r.Intn(len(blocks))](&sb, nl, words) {
				d.sections[len(d.sections)-1].body = true
			}
		}
	}
	d.src = []byte(sb.String())
	d.sections = foldGen(d.sections)
	if d.title == "" {
		d.title = "gen"
	}
	return d
}

// TestFormatProperties checks generated reStructuredText and AsciiDoc
// documents against what the generator knows: sections, heading paths,
// title, and the cutting invariants.
func TestFormatProperties(t *testing.T) {
	opts := []Options{DefaultOptions(), {Target: 100, Overlap: 20, Window: 30}, {Target: 60, Overlap: 0, Window: 10}}
	for _, f := range []struct {
		file   string
		hw     [][2]string
		head   formatHeading
		blocks []genBlock
	}{
		{"dir/gen.rst", rstHeadingWords, rstGenHeading, rstBlocks},
		{"dir/gen.adoc", adocHeadingWords, adocGenHeading, adocBlocks},
	} {
		for seed := range int64(200) {
			r := rand.New(rand.NewSource(seed))
			g := genFormat(r, f.hw, f.head, f.blocks, 5)
			opt := opts[seed%int64(len(opts))]
			t.Run(fmt.Sprintf("%s/seed%d", f.file, seed), func(t *testing.T) {
				doc, err := File(g.src, f.file, opt)
				if err != nil {
					t.Fatal(err)
				}
				if doc.Title != g.title {
					t.Fatalf("title %q, want %q", doc.Title, g.title)
				}
				checkMarkup(t, g.src, opt, doc)
				format, _ := FormatOf(f.file)
				checkFormatSections(t, g.src, format, opt, doc)
				for _, c := range doc.Chunks {
					i := sort.Search(len(g.sections), func(i int) bool { return g.sections[i].start > c.Start }) - 1
					end := len(g.src)
					if i+1 < len(g.sections) {
						end = g.sections[i+1].start
					}
					if i < 0 || c.End > end {
						t.Fatalf("chunk %d [%d,%d) %q crosses a section boundary", c.Position, c.Start, c.End, c.Content)
					}
					if !slices.Equal(c.HeadingPath, g.sections[i].path) {
						t.Fatalf("chunk %d %q: path %q, want %q", c.Position, c.Content, c.HeadingPath, g.sections[i].path)
					}
				}
			})
		}
	}
}

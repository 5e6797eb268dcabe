package chunking

import (
	"bytes"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFiftyMegabyteLine chunks a 50 MB document that is one line, once of
// words and once of a single unbreakable "word": it finishes, chunk sizes
// stay bounded, the text is covered, and memory stays linear in the input.
func TestFiftyMegabyteLine(t *testing.T) {
	const size = 50 << 20
	for _, tt := range []struct {
		name string
		unit string
	}{
		{"words", "ragd indexes markdown and messages, решение, ação; "},
		{"no spaces", "x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := bytes.Repeat([]byte(tt.unit), size/len(tt.unit))
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			doc, err := Markdown(src, "big.md", DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			// Allocations: the string copy of the text, goldmark's few
			// nodes, the chunks and their hashes; not a copy per chunk.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4*uint64(len(src)) {
				t.Errorf("allocated %d MB for a %d MB input", alloc>>20, len(src)>>20)
			}
			if len(doc.Chunks) < len(src)/MaxRunes {
				t.Fatalf("%d chunks for %d bytes", len(doc.Chunks), len(src))
			}
			prevEnd := 0
			for i, c := range doc.Chunks {
				if n := utf8.RuneCountInString(c.Content); n > MaxRunes {
					t.Fatalf("chunk %d: %d runes", i, n)
				}
				if c.Start > prevEnd {
					t.Fatalf("chunk %d starts at %d, after a hole from %d", i, c.Start, prevEnd)
				}
				prevEnd = c.End
			}
			if end := len(bytes.TrimRight(src, " ")); prevEnd != end {
				t.Fatalf("chunks end at %d, text at %d", prevEnd, end)
			}
		})
	}
}

// TestPathologicalMarkdown feeds constructs that make goldmark's parser
// quadratic, or that are merely absurd, and checks they are chunked like
// any text. Without tame, the first four take minutes each.
func TestPathologicalMarkdown(t *testing.T) {
	tests := map[string]string{
		"nested quotes":         strings.Repeat("> ", 100_000) + "# deep",
		"nested lists":          strings.Repeat("- ", 100_000) + "# deep",
		"nested ordered lists":  strings.Repeat("1. ", 100_000) + "# deep",
		"reference definitions": strings.Repeat("[x]: /u\n", 200_000) + "# After\n\n[x]\n",
		"unclosed links":        strings.Repeat("[a](", 200_000),
		"huge setext heading":   strings.Repeat("[a](", 200_000) + "\n===\n\nbody\n",
		"huge atx heading":      "# " + strings.Repeat("[a](*", 200_000) + "\n\nbody\n",
		"only headings":         strings.Repeat("# h\n## `i` *j*\n", 50_000),
		"only hashes":           strings.Repeat("#\n", 100_000),
		"only blank lines":      strings.Repeat("\n \r\n", 100_000),
		"unclosed fence":        "# T\n\n```\n" + strings.Repeat("# not a heading\n", 10_000),
		"unclosed html":         "<div>\n" + strings.Repeat("# no\n", 10_000),
		"binary-looking":        strings.Repeat("\x00\x01\xff\xfe#\n", 50_000),
		"deeply nested list":    string(nestedList(1000)) + "# After\n",
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			doc, err := Markdown([]byte(src), "p.md", DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, []byte(src), DefaultOptions(), doc)
			checkMarkdownSections(t, []byte(src), DefaultOptions(), doc, false)
		})
	}
}

// TestTamedHeadings checks what tame leaves alone and what it defuses.
func TestTamedHeadings(t *testing.T) {
	// The title heading is in no path: its text is checked as the title.
	for _, tt := range []struct {
		name, src string
		paths     []string // the heading path of each chunk, joined by /
		title     string
	}{
		{"nesting within the limit keeps headings in containers", strings.Repeat("> ", maxNesting) + "# quoted\n\n# Top\n", []string{""}, "Top"},
		{"deep nesting is no heading", strings.Repeat("> ", 3*maxNesting) + "# deep\n\n# Top\n", []string{""}, "Top"},
		{"reference definition resolves in a heading", "## [Unreleased]\n\nx\n\n[Unreleased]: https://example.com\n", []string{"Unreleased"}, "t"},
		{"undefined reference stays bracketed", "## [WIP] Design\n", []string{"[WIP] Design"}, "t"},
		{"definitions past the run limit", strings.Repeat("[a]: /a\n", 2*maxRefRun) + "\n# [a]\n", []string{""}, "a"},
		{"deep indentation keeps an html block open", "<div>\n" + strings.Repeat(" ", 3*maxIndent) + "text\n# in the block\n\n# Top\n", []string{""}, "Top"},
		{"a deep list ends at a heading", string(nestedList(300)) + "# Top\n## After\nx\n", []string{"", "After"}, "Top"},
		{"heading text that looks like a list", "# 1. *Scope*\nintro\n## - `dash`\nx\n", []string{"", "- dash"}, "1. Scope"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Markdown([]byte(tt.src), "t.md", DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.title {
				t.Fatalf("title %q, want %q", doc.Title, tt.title)
			}
			var got []string // one entry per section
			for _, c := range doc.Chunks {
				if c.HeadingPath == nil {
					t.Fatalf("chunk %d: nil path", c.Position)
				}
				if p := strings.Join(c.HeadingPath, "/"); len(got) == 0 || got[len(got)-1] != p {
					got = append(got, p)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.paths, "|") {
				t.Fatalf("paths %q, want %q", got, tt.paths)
			}
		})
	}
}

// TestTameBoundsIndentation checks that the parser never sees a line
// indented, with its container markers, past maxIndent columns (issue 11
// #11: a list nested one level per line made goldmark cubic in the depth),
// and that tame keeps what decides the top-level structure: the length,
// which lines are blank, and the text of lines indented less.
func TestTameBoundsIndentation(t *testing.T) {
	for name, src := range map[string]string{
		"nested list":            string(nestedList(1000)),
		"nested list with tabs":  strings.ReplaceAll(string(nestedList(300)), "    ", "\t"),
		"quotes then indented":   strings.Repeat(strings.Repeat("> ", maxNesting)+strings.Repeat(" ", 4*maxIndent)+"- deep\n", 50),
		"deep blank lines":       strings.Repeat("- a\n"+strings.Repeat(" ", 3*maxIndent)+"\n", 50),
		"html block goes on":     "<div>\n" + strings.Repeat(" ", 3*maxIndent) + "text\n# in the block\n\n# Top\n",
		"ordered nested in tabs": strings.Repeat("\t", 2*maxIndent) + "1) x\n",
	} {
		t.Run(name, func(t *testing.T) {
			got := tame([]byte(src))
			if len(got) != len(src) {
				t.Fatalf("tame changed the length: %d, want %d", len(got), len(src))
			}
			lines, orig := strings.Split(string(got), "\n"), strings.Split(src, "\n")
			for i, line := range lines {
				if col, text := prefixColumns(line); text && col > maxIndent {
					t.Fatalf("line %d: the parser sees text %d columns in, want at most %d", i, col, maxIndent)
				}
				if blank := strings.TrimSpace(line) == ""; blank != (strings.TrimSpace(orig[i]) == "") {
					t.Fatalf("line %d: blank %v, was %v", i, blank, !blank)
				}
				if col, _ := prefixColumns(orig[i]); col < maxIndent && line != orig[i] {
					t.Fatalf("line %d changed: %q", i, line)
				}
			}
		})
	}
}

// prefixColumns is the width in columns of line's leading white space and
// container-marker characters (tabs to the next multiple of four), and
// whether text follows them.
func prefixColumns(line string) (col int, text bool) {
	for _, c := range line {
		switch {
		case c == '\t':
			col += 4 - col%4
		case strings.ContainsRune(" \r>-+*.)0123456789", c):
			col++
		default:
			return col, true
		}
	}
	return col, false
}

func TestTame(t *testing.T) {
	clean := []byte("# T\n\n> > quote\n- a\n  - b\n[x]: /u\n")
	if got := tame(clean); &got[0] != &clean[0] {
		t.Error("tame copied a document it had nothing to defuse")
	}
	deep := []byte(strings.Repeat("> ", maxNesting+2) + "# x\nnext\n")
	got := tame(deep)
	if len(got) != len(deep) || !bytes.HasPrefix(got, []byte(strings.Repeat("> ", maxNesting))) ||
		!bytes.HasSuffix(got, []byte(strings.Repeat(" ", 7)+"\nnext\n")) {
		t.Errorf("tame(deep) = %q", got)
	}
	for line, want := range map[string]int{
		strings.Repeat("> ", maxNesting) + "x":       -1,
		strings.Repeat(">", maxNesting+1):            maxNesting,
		strings.Repeat("- ", maxNesting+1):           2 * maxNesting,
		strings.Repeat("10) ", maxNesting+1) + "x":   4 * maxNesting,
		strings.Repeat("-x ", maxNesting+1):          -1,
		strings.Repeat("1234567890. ", maxNesting+1): -1,
	} {
		if got := nestingCut([]byte(line)); got != want {
			t.Errorf("nestingCut(%.20q...) = %d, want %d", line, got, want)
		}
	}
	for line, want := range map[string]bool{
		"[x]: /u": true, "   [a b]: <u> 't'": true, "[x\\]]: /u": true,
		"    [x]: /u": false, "[]: /u": false, "[x] /u": false, "[x]": false, "[[x]]: /u": false, "x [y]: /u": false,
	} {
		if got := isRefDefLine([]byte(line)); got != want {
			t.Errorf("isRefDefLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestRandomBytes chunks random binary data, the worst case for the
// sanitiser and the parser.
func TestRandomBytes(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for range 20 {
		src := make([]byte, r.Intn(200_000))
		r.Read(src)
		doc, err := Markdown(src, "random.bin", DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		checkChunks(t, src, DefaultOptions(), doc)
		checkMarkdownSections(t, src, DefaultOptions(), doc, false)
		tdoc, err := Text(string(src), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		checkChunks(t, src, DefaultOptions(), tdoc)
	}
}

func TestEmptyInputs(t *testing.T) {
	for _, src := range [][]byte{nil, {}, []byte("   "), []byte("\n\n")} {
		doc, err := Markdown(src, "docs/empty.md", DefaultOptions())
		if err != nil || len(doc.Chunks) != 0 || doc.Title != "empty" || doc.Replaced != 0 {
			t.Errorf("Markdown(%q) = %+v, %v", src, doc, err)
		}
		tdoc, err := Text(string(src), DefaultOptions())
		if err != nil || len(tdoc.Chunks) != 0 {
			t.Errorf("Text(%q) = %+v, %v", src, tdoc, err)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		opt Options
		ok  bool
	}{
		{DefaultOptions(), true},
		{Options{Target: 1, Overlap: 0, Window: 1}, true},
		{Options{Target: 512, Overlap: 256, Window: 512}, true},
		{Options{Target: maxTarget, Overlap: 0, Window: 1}, true},
		{Options{}, false},
		{Options{Target: 0, Overlap: 0, Window: 1}, false},
		{Options{Target: -5, Overlap: 0, Window: 1}, false},
		{Options{Target: maxTarget + 1, Overlap: 0, Window: 1}, false},
		{Options{Target: 100, Overlap: 0, Window: 0}, false},
		{Options{Target: 100, Overlap: 0, Window: 101}, false},
		{Options{Target: 100, Overlap: -1, Window: 10}, false},
		{Options{Target: 100, Overlap: 51, Window: 10}, false},
		{Options{Target: 100, Overlap: 100, Window: 10}, false},
	} {
		err := tt.opt.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("%+v.Validate() = %v, want ok=%v", tt.opt, err, tt.ok)
		}
		if _, merr := Markdown([]byte("# x"), "x.md", tt.opt); (merr == nil) != tt.ok {
			t.Errorf("Markdown with %+v: %v", tt.opt, merr)
		}
		if _, terr := Text("x", tt.opt); (terr == nil) != tt.ok {
			t.Errorf("Text with %+v: %v", tt.opt, terr)
		}
	}
	// The limits derived from the defaults are the documented ones.
	if l := newLimits(DefaultOptions()); l.lo != 1000 || l.hi != 1400 || l.snap != 50 || l.gap != 212 {
		t.Errorf("default limits %+v", l)
	}
}

package chunking

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// fuzzNames are the file names FuzzFile chunks its input as, one per
// format.
var fuzzNames = []string{"f.md", "f.mdx", "f.rst", "f.adoc", "f.txt"}

// formatSeeds are small documents of each format for the fuzz corpus:
// headings, directives, front matter, JSX, tables, code blocks, and broken
// markup of each.
var formatSeeds = []string{
	// MDX
	"---\ntitle: T\n---\nimport A from 'a';\n\n<Tabs>\n<TabItem value=\"x\">\n\n## In tab\n\ntext {expr} <B/>\n\n</TabItem>\n</Tabs>\n",
	"export const x = {\n a: 1 };\n\n# T\n\n{/* c */}\n\n```jsx\n<A>{b}</A>\n```\n",
	"<A b=\"\n{{{{\n<<<<\n`` ` ``\n<!-- x\n# h <X y={z} />\n",
	"# Milk\n\n<X />\n\n## Policy\n\ntext\n",
	// reStructuredText
	".. _t:\n\n=====\nTitle\n=====\n\nSub\n---\n\n.. toctree::\n   :maxdepth: 1\n\n   a\n\n.. note::\n   Body.\n\n.. |s| replace:: x\n",
	"T\n=\n\n+--+--+\n|a |b |\n+==+==+\n\n==  ==\na   b\n==  ==\n\nx::\n\n  lit\n  ===\n",
	".. code-block:: python\n\n   x\n\n..\n   comment\n\n.. [1] note\n\n:field: value\n\n.. unknown:: arg\n   :opt: v\n\n   body\n",
	"a\n----\nb\n----\n\n----\n\nc\r\n====\r\n",
	// AsciiDoc
	":attr: v\n[[a]]\n= T\n:toc:\n\n== S\n\n[source,java]\n----\n== no\n----\n\n////\n== no\n////\n\n|===\n|a|b\n|===\n",
	"= T\n\n====\n----\n====\n\n** xref:a.adoc[A]\n+\n[NOTE]\n====\nx\n====\n\ninclude::a.adoc[]\nifdef::x[]\n# md\nendif::[]\n",
	"== a ==\n\n--\nopen\n--\n\n++++\n<b>\n++++\n\n```\n# no\n```\n\n:x: a \\\n b\n",
	"----\nunterminated\n== no\n",
}

// FuzzFile checks File on arbitrary bytes in every format: no panic, no
// error for valid options, the invariants checkChunks checks (offsets in
// range and ordered, Content valid UTF-8, trimmed and bounded, hashes), the
// blanked-markup contract, and the sections each format finds.
func FuzzFile(f *testing.F) {
	seeds := append([]string{"", "# T\n\ntext", "\xff\xfe\x00= bad\x00\n\xc3", "T\n=\n\x00"}, formatSeeds...)
	for _, s := range hostileInputs(fuzzHostileSize) {
		seeds = append(seeds, s)
	}
	sort.Strings(seeds)
	for _, s := range seeds {
		for k := range fuzzNames {
			f.Add([]byte(s), uint8(k), uint16(0), uint16(0), uint16(0))
		}
		f.Add([]byte(s), uint8(len(seeds)), uint16(30), uint16(7), uint16(9))
	}
	f.Fuzz(func(t *testing.T, src []byte, format uint8, target, overlap, window uint16) {
		opt := fuzzOptions(target, overlap, window)
		name := fuzzNames[int(format)%len(fuzzNames)]
		doc, err := File(src, name, opt)
		if err != nil {
			t.Fatalf("%s %+v: %v", name, opt, err)
		}
		checkMarkup(t, src, opt, doc)
		f, _ := FormatOf(name)
		checkFormatSections(t, src, f, opt, doc)
	})
}

// hostileSize is the size of TestHostileFormats' inputs: half a megabyte,
// a large documentation file, enough for anything quadratic to show (the
// single lines are a megabyte); the fuzz corpus has them at
// fuzzHostileSize, so that mutating them stays fast.
const (
	hostileSize     = 512 << 10
	fuzzHostileSize = 4 << 10
)

// TestHostileFormats chunks inputs that are absurd or built to make a
// parser superlinear, in every format: each is chunked like any text, with
// every invariant holding. Their time is BenchmarkHostile's.
func TestHostileFormats(t *testing.T) {
	for name, src := range hostileInputs(hostileSize) {
		for _, file := range fuzzNames {
			t.Run(name+"/"+file, func(t *testing.T) {
				doc, err := File([]byte(src), file, DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				checkMarkup(t, []byte(src), DefaultOptions(), doc)
				f, _ := FormatOf(file)
				checkFormatSections(t, []byte(src), f, DefaultOptions(), doc)
			})
		}
	}
}

// hostileInputs are about size bytes each (the nested list excepted).
func hostileInputs(size int) map[string]string {
	mb := size
	rep := func(s string) string { return strings.Repeat(s, mb/len(s)) }
	var table strings.Builder
	table.WriteString("T\n=\n\n|===\n+------+------+\n")
	for i := 0; table.Len() < mb; i++ {
		fmt.Fprintf(&table, "| a%-4d| b%-4d|\n+------+------+\n", i, i)
	}
	table.WriteString("|===\n")
	var deepRST strings.Builder
	for i := 0; deepRST.Len() < mb/4; i++ {
		deepRST.WriteString(strings.Repeat(" ", i%(mb/512)) + ".. note::\n\n")
	}
	return map[string]string{
		"one line of words":      strings.Repeat("ragd indexes markdown, решение, ação; ", 2*mb/41),
		"one line, no spaces":    strings.Repeat("x", 2*mb),
		"huge table":             table.String(),
		"nested jsx":             rep("<A>"),
		"unclosed jsx":           rep("<a"),
		"unclosed attributes":    rep("<a x={"),
		"unclosed strings":       rep("<a x=\""),
		"unclosed braces":        rep("{"),
		"braces in a brace":      "{" + rep("{}"),
		"backtick runs":          rep("` `` ```"),
		"html comments unclosed": rep("<!-- "),
		"headings only":          rep("# h\n== i\nj\n=\n"),
		"adornments only":        rep("====\n"),
		"delimiters":             rep("----\n====\n////\n"),
		"nested example blocks":  rep("====\n=====\n"),
		"nested directives":      deepRST.String(),
		"directive lines":        rep(".. x::\n"),
		"attribute lines":        rep(":a: b \\\n"),
		"unterminated fence":     "# T\n\n```\n" + rep("# not a heading {x} <A>\n"),
		"nul and bad bytes":      rep("\x00\xff= x\n.. \x00::\n<\xfe>{\x00}\n"),
		"nested lists":           string(nestedList(mb>>10)) + "# After\n",
	}
}

// BenchmarkHostile chunks the hostile inputs built against each format's
// own scanner in each format: per byte, each must cost about what real
// documents do (TestHostileFormats runs them all).
func BenchmarkHostile(b *testing.B) {
	inputs := hostileInputs(hostileSize)
	for _, name := range []string{"one line of words", "huge table", "unclosed attributes", "braces in a brace", "backtick runs", "nested directives", "delimiters"} {
		src := inputs[name]
		for _, file := range fuzzNames[:4] {
			b.Run(strings.ReplaceAll(name, " ", "_")+"/"+file, func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if _, err := File([]byte(src), file, DefaultOptions()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

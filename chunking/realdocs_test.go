package chunking

// Tests and benchmarks over real documentation: the prose files of public
// repositories as laid out upstream, read in place from the project's
// shared folder (RAGD_SHARED_DIR, else ../../shared from this package, as
// CI lays it beside the checkout). A missing file fails; it never skips.

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sharedDir is the project's shared folder.
func sharedDir() string {
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared")
}

// realRepos names, per format, the repository of ../shared/bench/repos that
// keeps its documentation in it.
var realRepos = []struct {
	format, repo string
}{
	{FormatRST, "pallets+flask"},
	{FormatAsciiDoc, "spring-projects+spring-boot"},
	{FormatMDX, "typescript-eslint+typescript-eslint"},
	{FormatMarkdown, "typescript-eslint+typescript-eslint"},
}

// loadRealDocs reads the files of repo's pack whose format is format.
func loadRealDocs(t testing.TB, repo, format string) ([]corpusFile, int64) {
	t.Helper()
	path := filepath.Join(sharedDir(), "bench", "repos", repo+".tar.gz")
	files, err := readTarGz(path, func(name string) bool {
		f, ok := FormatOf(name)
		return ok && f == format
	})
	if err != nil {
		t.Fatalf("real docs: %v (set RAGD_SHARED_DIR to the shared folder)", err)
	}
	var total int64
	for _, f := range files {
		total += int64(len(f.data))
	}
	if len(files) == 0 {
		t.Fatalf("real docs: no %s file in %s", format, path)
	}
	return files, total
}

// TestRealDocs chunks every .rst of Flask, .adoc of Spring Boot and .mdx of
// typescript-eslint: every invariant holds, most chunks have a section,
// and what the format calls markup does not reach the chunks.
func TestRealDocs(t *testing.T) {
	// markup are line starts that must not be in any chunk of the format.
	markup := map[string][]string{
		FormatRST:      {".. toctree::", ".. include::", ".. image::", ".. _", ".. |", ".. note::", ".. code-block::", ".. autoclass::"},
		FormatAsciiDoc: {"include::", "ifdef::", "endif::", "image::", ":toc:", "[source", "[[", "// "},
		FormatMDX:      {"<Tabs", "<TabItem", "</TabItem>", "{/*"},
	}
	for _, r := range realRepos {
		if r.format == FormatMarkdown {
			continue
		}
		t.Run(r.format, func(t *testing.T) {
			files, _ := loadRealDocs(t, r.repo, r.format)
			chunks, withPath := 0, 0
			for _, f := range files {
				doc, err := File(f.data, f.name, DefaultOptions())
				if err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				checkMarkup(t, f.data, DefaultOptions(), doc)
				checkFormatSections(t, f.data, r.format, DefaultOptions(), doc)
				for _, c := range doc.Chunks {
					chunks++
					if len(c.HeadingPath) > 0 {
						withPath++
					}
					for _, l := range strings.Split(c.Content, "\n") {
						l = strings.TrimLeft(l, " \t")
						for _, m := range markup[r.format] {
							if strings.HasPrefix(l, m) && !inCode(f.data, c, l) {
								t.Errorf("%s chunk %d: markup line %q", f.name, c.Position, l)
							}
						}
					}
				}
			}
			t.Logf("%s: %d files, %d chunks, %d with a heading path", r.repo, len(files), chunks, withPath)
			if withPath*2 < chunks {
				t.Errorf("%d of %d chunks have a heading path, want more than half", withPath, chunks)
			}
			if untitled := titleLine[r.format]; untitled != nil {
				for _, f := range files {
					// Cheaper than asking File again: whether it found
					// a title when the source plainly has one.
					doc, _ := File(f.data, f.name, DefaultOptions())
					if untitled.Match(f.data) && doc.Title == fileTitle(f.name) && !bytes.Contains(f.data, []byte(doc.Title+"\n")) {
						t.Errorf("%s: title line, but titled by the file name", f.name)
					}
				}
			}
		})
	}
}

// titleLine matches a document that plainly has a title, in the formats
// whose title is its own markup.
var titleLine = map[string]*regexp.Regexp{
	FormatRST:      regexp.MustCompile("(?m)^[A-Za-z].*\n[-=~^\"'`#*+]{4,}$"),
	FormatAsciiDoc: regexp.MustCompile(`(?m)^= \S`),
}

// inCode reports whether the markup-looking line l of chunk c sits in a
// code block of the source, where it is code, not markup: after a "```" or
// "----" fence, or indented under "::" or a code directive.
func inCode(src []byte, c Chunk, l string) bool {
	before := src[:c.Start]
	if i := bytes.Index(src[c.Start:c.End], []byte(l)); i >= 0 {
		before = src[:c.Start+i]
	}
	// An odd number of fences before the line: it is inside one.
	return bytes.Count(before, []byte("\n```"))%2 == 1 || bytes.Count(before, []byte("\n----\n"))%2 == 1 ||
		bytes.Contains(before[max(0, len(before)-400):], []byte("code-block:: rst")) ||
		bytes.Contains(before[max(0, len(before)-400):], []byte("::\n\n"))
}

// BenchmarkFile chunks the real documentation of each format with the
// default options: MB/s of source, beside BenchmarkMarkdown's.
func BenchmarkFile(b *testing.B) {
	for _, r := range realRepos {
		b.Run(r.format, func(b *testing.B) {
			files, total := loadRealDocs(b, r.repo, r.format)
			b.SetBytes(total)
			b.ReportAllocs()
			chunks := 0
			for b.Loop() {
				chunks = 0
				for _, f := range files {
					doc, err := File(f.data, f.name, DefaultOptions())
					if err != nil {
						b.Fatal(err)
					}
					chunks += len(doc.Chunks)
				}
			}
			b.ReportMetric(float64(len(files)), "files")
			b.ReportMetric(float64(chunks), "chunks")
		})
	}
}

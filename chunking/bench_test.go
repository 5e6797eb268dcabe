package chunking

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corporaGlob names the real documentation used to measure throughput:
// tarballs shared by the team, read in place, never copied into the repo.
const corporaGlob = "/work/shared/corpora/*.tar.gz"

type corpusFile struct {
	name string
	data []byte
}

// loadCorpora reads every markdown file of the corpora tarballs into memory.
func loadCorpora(b *testing.B) ([]corpusFile, int64) {
	b.Helper()
	paths, err := filepath.Glob(corporaGlob)
	if err != nil {
		b.Fatalf("corpora: %v", err)
	}
	if len(paths) == 0 {
		b.Fatalf("corpora: no %s: the benchmark needs the shared markdown corpora", corporaGlob)
	}
	var (
		files []corpusFile
		total int64
	)
	for _, p := range paths {
		fs, err := readTarGz(p, func(name string) bool { return strings.HasSuffix(name, ".md") })
		if err != nil {
			b.Fatalf("corpora: %v", err)
		}
		for _, f := range fs {
			files = append(files, f)
			total += int64(len(f.data))
		}
	}
	if total == 0 {
		b.Fatalf("corpora: no markdown in %s", corporaGlob)
	}
	return files, total
}

// readTarGz reads the regular files of a .tar.gz whose names keep accepts.
func readTarGz(path string, keep func(name string) bool) ([]corpusFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	var out []corpusFile
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg || !keep(h.Name) {
			continue
		}
		var buf bytes.Buffer
		if _, err := io.Copy(&buf, tr); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, h.Name, err)
		}
		out = append(out, corpusFile{h.Name, buf.Bytes()})
	}
}

// BenchmarkMarkdown chunks every markdown file of the shared corpora (real
// project docs and ADRs) with the default options.
func BenchmarkMarkdown(b *testing.B) {
	files, total := loadCorpora(b)
	b.SetBytes(total)
	b.ReportAllocs()
	chunks := 0
	for b.Loop() {
		chunks = 0
		for _, f := range files {
			doc, err := Markdown(f.data, f.name, DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			chunks += len(doc.Chunks)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(chunks), "chunks")
}

// BenchmarkMarkdownSynthetic chunks one generated document of about 1 MB
// mixing scripts, emoji, code fences, tables and headings.
func BenchmarkMarkdownSynthetic(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	var src []byte
	for len(src) < 1<<20 {
		src = append(src, genMarkdown(r).src...)
		src = append(src, '\n')
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Markdown(src, "synthetic.md", DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkText cuts a 1 MB session message: the cutter alone.
func BenchmarkText(b *testing.B) {
	src := strings.Repeat("A chunk must carry one idea; решение и ação 👩\u200d💻. ", 1<<20/60)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Text(src, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// nestedList returns a list nested levels deep, one item per line, each
// indented two columns more than its parent: about levels² bytes. It made
// goldmark's parser superlinear (issue 11 #11) before tame bounded the
// indentation it sees.
func nestedList(levels int) []byte {
	var b bytes.Buffer
	for i := range levels {
		b.WriteString(strings.Repeat("  ", i))
		fmt.Fprintf(&b, "- item %d\n", i)
	}
	return b.Bytes()
}

// BenchmarkMarkdownNestedList chunks lists 1,000 and 2,000 levels deep (1
// and 4 MB): per byte, the deeper must cost about what the shallower does.
func BenchmarkMarkdownNestedList(b *testing.B) {
	for _, levels := range []int{1000, 2000} {
		b.Run(fmt.Sprintf("levels=%d", levels), func(b *testing.B) {
			src := nestedList(levels)
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := Markdown(src, "nested.md", DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

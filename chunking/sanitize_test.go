package chunking

import (
	"slices"
	"testing"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, src, want string
		replaced        int
	}{
		{"clean ascii", "abc", "abc", 0},
		{"clean multibyte", "ação Ёлка 👩\u200d💻", "ação Ёлка 👩\u200d💻", 0},
		{"literal replacement char is kept", "a\uFFFDb", "a\uFFFDb", 0},
		{"invalid byte", "a\xffb", "a\uFFFDb", 1},
		{"run of invalid bytes is one replacement", "a\xff\xfe\xfdb", "a\uFFFDb", 1},
		{"nul", "a\x00b", "a\uFFFDb", 1},
		{"nul and invalid together", "\x00\xff\x00", "\uFFFD", 1},
		{"truncated sequence at end", "caf\xc3", "caf\uFFFD", 1},
		{"truncated sequence inside", "\xe2\x82x", "\uFFFDx", 1},
		{"surrogate", "\xed\xa0\x80", "\uFFFD", 1},
		{"overlong", "\xc0\xaf", "\uFFFD", 1},
		{"two runs", "a\xffb\x00c", "a\uFFFDb\uFFFDc", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fixes, n := sanitize([]byte(tt.src))
			if string(got) != tt.want || n != tt.replaced || len(fixes) != n {
				t.Fatalf("sanitize(%q) = %q, %d (%d fixes), want %q, %d", tt.src, got, n, len(fixes), tt.want, tt.replaced)
			}
			if cleanString(tt.src) != (n == 0) {
				t.Fatalf("cleanString(%q) = %v", tt.src, !(n == 0))
			}
		})
	}
}

func TestSanitizeCleanIsNotCopied(t *testing.T) {
	src := []byte("# Title\n\nclean text")
	got, fixes, n := sanitize(src)
	if &got[0] != &src[0] || fixes != nil || n != 0 {
		t.Fatal("clean input was copied or fixed")
	}
}

// TestToSource maps sanitised offsets back to the source around
// replacements of different lengths.
func TestToSource(t *testing.T) {
	// source: a(0) \xff\xfe(1,2) b(3) \x00(4) c(5) end(6)
	// sanitised: a(0) U+FFFD(1-3) b(4) U+FFFD(5-7) c(8) end(9)
	_, fixes, _ := sanitize([]byte("a\xff\xfeb\x00c"))
	for san, src := range map[int]int{0: 0, 1: 1, 4: 3, 5: 4, 8: 5, 9: 6} {
		if got := fixes.toSource(san); got != src {
			t.Errorf("toSource(%d) = %d, want %d", san, got, src)
		}
	}
	if got := offsets(nil).toSource(42); got != 42 {
		t.Errorf("identity toSource(42) = %d", got)
	}
}

// TestBadBytesInDocuments checks that replacements are counted, shown as
// U+FFFD and mapped back to the bad source bytes.
func TestBadBytesInDocuments(t *testing.T) {
	src := []byte("# T\x00itle\n\nbody \xff\xfe text\n\n## Sub\xc3\n\nend\x00")
	doc, err := Markdown(src, "bad.md", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, src, DefaultOptions(), doc)
	checkMarkdownSections(t, src, DefaultOptions(), doc, true)
	if doc.Replaced != 4 {
		t.Errorf("Replaced = %d, want 4", doc.Replaced)
	}
	if doc.Title != "T\uFFFDitle" {
		t.Errorf("title %q", doc.Title)
	}
	want := []struct {
		content, src string
		path         []string
	}{
		{"# T\uFFFDitle\n\nbody \uFFFD text", "# T\x00itle\n\nbody \xff\xfe text", []string{}},
		{"## Sub\uFFFD\n\nend\uFFFD", "## Sub\xc3\n\nend\x00", []string{"Sub\uFFFD"}},
	}
	if len(doc.Chunks) != len(want) {
		t.Fatalf("%d chunks, want %d", len(doc.Chunks), len(want))
	}
	for i, w := range want {
		c := doc.Chunks[i]
		if c.Content != w.content || string(src[c.Start:c.End]) != w.src || c.HeadingPath == nil || !slices.Equal(c.HeadingPath, w.path) {
			t.Errorf("chunk %d: %q src[%d:%d]=%q path %q, want %q %q %q", i, c.Content, c.Start, c.End, src[c.Start:c.End], c.HeadingPath, w.content, w.src, w.path)
		}
	}

	msg := "olá\xff mundo"
	tdoc, err := Text(msg, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if tdoc.Replaced != 1 || len(tdoc.Chunks) != 1 || tdoc.Chunks[0].Content != "olá\uFFFD mundo" || tdoc.Chunks[0].End != len(msg) {
		t.Errorf("Text(%q) = %+v", msg, tdoc)
	}
}

package api

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSnippet(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor ", 40) // 720 runes
	long := filler + "the zeppelin hangar logs go to the state directory " + filler
	for _, tc := range []struct {
		name, text, query string
		size              int
		has               string
		prefix, suffix    bool // … at the start, at the end
	}{
		{"short text whole", "A  short\ntext.", "zeppelin", 240, "A short text.", false, false},
		{"around the first query word", long, "Zeppelin logs", 240, "zeppelin hangar logs", true, true},
		{"no query word: the start", long, "absent", 240, "lorem ipsum", false, true},
		{"no query: the start", long, "", 320, "lorem ipsum", false, true},
		{"short words locate nothing", long, "go to", 240, "lorem ipsum", false, true},
	} {
		got := Snippet(tc.text, tc.query, tc.size)
		if !strings.Contains(got, tc.has) || strings.HasPrefix(got, "…") != tc.prefix || strings.HasSuffix(got, "…") != tc.suffix {
			t.Errorf("%s: %q", tc.name, got)
		}
		if n := utf8.RuneCountInString(got); n > tc.size+2 {
			t.Errorf("%s: %d runes, want about %d", tc.name, n, tc.size)
		}
	}
}

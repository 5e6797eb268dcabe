package chunking

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// small makes cuts visible on short strings: the window is [30, 50] runes,
// the overlap 10 runes moved by at most 5 to a word start or grapheme
// boundary, and a whitespace gap of more than 5 runes gets no overlap.
var small = Options{Target: 40, Overlap: 10, Window: 10}

// runeSpan is a chunk as a range of rune indexes into the test string.
type runeSpan struct{ from, to int }

// TestTextCuts checks exact cuts with small options, including combining
// marks, ZWJ sequences and flags right at the target.
func TestTextCuts(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		src  string
		want []string   // exact contents, or
		runs []runeSpan // rune ranges of src
	}{
		{name: "short", opt: small, src: "  short message \n", want: []string{"short message"}},
		{name: "empty", opt: small, src: ""},
		{name: "blank", opt: small, src: " \n\t \r\n"},
		{
			name: "exactly target",
			opt:  small,
			src:  strings.Repeat("abcd ", 7) + "abcd", // 39 runes
			want: []string{strings.Repeat("abcd ", 7) + "abcd"},
		},
		{
			// The paragraph break at 34 wins over the word break at 40;
			// the next chunk reaches back to "six", 10 runes before the end;
			// then a word break right at the target.
			name: "paragraph break before word break",
			opt:  small,
			src:  "One two three four five six seven.\n\nEight nine ten eleven twelve thirteen fourteen.",
			want: []string{
				"One two three four five six seven.",
				"six seven.\n\nEight nine ten eleven twelve",
				"eleven twelve thirteen fourteen.",
			},
		},
		{
			name: "crlf paragraph break",
			opt:  small,
			src:  "Primeira parte do texto, em português.\r\n\r\nSegunda parte: decisão e ação.",
			want: []string{
				"Primeira parte do texto, em português.",
				"português.\r\n\r\nSegunda parte: decisão e ação.",
			},
		},
		{
			name: "no overlap",
			opt:  Options{Target: 40, Overlap: 0, Window: 10},
			src:  "One two three four five six seven.\n\nEight nine ten eleven twelve thirteen fourteen fifteen sixteen.",
			want: []string{
				"One two three four five six seven.",
				"Eight nine ten eleven twelve thirteen",
				"fourteen fifteen sixteen.",
			},
		},
		{
			// A run of blanks longer than the gap: the next chunk starts
			// at the next word instead of reaching back over the blanks.
			name: "long gap, no overlap",
			opt:  small,
			src:  "Alpha beta gamma delta epsilon zeta" + strings.Repeat(" ", 30) + "eta theta iota kappa.",
			want: []string{"Alpha beta gamma delta epsilon zeta", "eta theta iota kappa."},
		},
		{
			name: "cyrillic counts runes, not bytes",
			opt:  small,
			src:  "Мы используем векторный поиск и полнотекстовый индекс вместе.",
			want: []string{
				"Мы используем векторный поиск и полнотекстовый",
				"полнотекстовый индекс вместе.",
			},
		},
		{
			name: "one long word is cut at the target",
			opt:  small,
			src:  strings.Repeat("a", 100),
			runs: []runeSpan{{0, 40}, {30, 70}, {60, 100}},
		},
		{
			// x then é as e + U+0301: the rune at 40 is the accent, so the
			// cut moves back to 39, before the e; so do the overlap starts.
			name: "combining accent at the cut",
			opt:  small,
			src:  "x" + strings.Repeat("e\u0301", 50),
			runs: []runeSpan{{0, 39}, {29, 69}, {59, 101}},
		},
		{
			// 👩 ZWJ 💻 at runes 38-40: cutting at 40 or 39 would split it.
			name: "zwj sequence at the cut",
			opt:  small,
			src:  strings.Repeat("x", 38) + "👩\u200d💻" + strings.Repeat("y", 60),
			runs: []runeSpan{{0, 41}, {31, 71}, {61, 101}},
		},
		{
			name: "flag at the cut",
			opt:  small,
			src:  strings.Repeat("x", 39) + "🇵🇹" + strings.Repeat("y", 59),
			runs: []runeSpan{{0, 39}, {29, 69}, {59, 100}},
		},
		{
			name: "skin tone modifier and variation selector at the cut",
			opt:  small,
			src:  strings.Repeat("x", 39) + "👍🏽" + strings.Repeat("y", 27) + "❤\ufe0f" + strings.Repeat("z", 20),
			runs: []runeSpan{{0, 39}, {29, 68}, {58, 90}},
		},
		{
			// A space followed by a combining mark is no word break (the
			// mark belongs to the space), so the cut falls mid-word, at the
			// nearest boundary not before the mark.
			name: "combining mark after a space",
			opt:  small,
			src:  strings.Repeat("x", 39) + " \u0301" + strings.Repeat("y", 59),
			runs: []runeSpan{{0, 39}, {29, 69}, {59, 100}},
		},
		{
			// Nothing but combining marks: a bounded chunk beats an
			// unsplit grapheme, and the overlap is dropped.
			name: "wall of combining marks",
			opt:  small,
			src:  "a" + strings.Repeat("\u0301", 99),
			runs: []runeSpan{{0, 40}, {40, 80}, {80, 100}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Text(tt.src, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkChunks(t, []byte(tt.src), tt.opt, doc)
			want := tt.want
			if tt.runs != nil {
				rs := []rune(tt.src)
				want = nil
				for _, r := range tt.runs {
					want = append(want, string(rs[r.from:r.to]))
				}
			}
			var got []string
			for _, c := range doc.Chunks {
				got = append(got, c.Content)
			}
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("chunks\n%q\nwant\n%q", got, want)
			}
			if !strings.HasPrefix(tt.name, "wall") {
				spans := make([]span, len(doc.Chunks))
				for i, c := range doc.Chunks {
					spans[i] = span{c.Start, c.End}
				}
				checkSection(t, tt.src, 0, len(tt.src), spans, tt.opt, true)
			}
		})
	}
}

// TestDefaultCutSizes checks the product numbers on prose: chunks between
// 1000 and 1400 runes, overlapping by 150±50.
func TestDefaultCutSizes(t *testing.T) {
	src := strings.Repeat("Hybrid search merges vector and full-text results; ", 400)
	doc, err := Text(src, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, []byte(src), DefaultOptions(), doc)
	for i, c := range doc.Chunks[:len(doc.Chunks)-1] {
		if n := utf8.RuneCountInString(c.Content); n < TargetRunes-WindowRunes || n > MaxRunes {
			t.Errorf("chunk %d: %d runes", i, n)
		}
		ov := utf8.RuneCountInString(src[doc.Chunks[i+1].Start:c.End])
		if ov < OverlapRunes-50 || ov > OverlapRunes+50 {
			t.Errorf("chunks %d,%d overlap %d runes", i, i+1, ov)
		}
	}
}

func TestIsContinuation(t *testing.T) {
	for r, want := range map[rune]bool{
		'a': false, ' ': false, 'é': false, 'Ж': false, '👩': false, '🇵': false,
		'\u0301': true, // combining acute, Mn
		'\u0903': true, // Devanagari visarga, Mc
		'\u20DD': true, // combining enclosing circle, Me
		'\uFE0F': true, // variation selector 16
		'\u200D': true, // zero-width joiner
		0x1F3FD:  true, // skin tone modifier
		0xE0067:  true, // tag g (subdivision flags)
		0xE0100:  true, // variation selector 17
	} {
		if got := isContinuation(r); got != want {
			t.Errorf("isContinuation(%U) = %v, want %v", r, got, want)
		}
	}
}

func TestIsSpace(t *testing.T) {
	for r, want := range map[rune]bool{
		' ': true, '\n': true, '\r': true, '\t': true, '\u3000': true, '\u2028': true,
		'\u00A0': false, '\u202F': false, '\u2007': false, 'a': false, '\u200B': false,
	} {
		if got := isSpace(r); got != want {
			t.Errorf("isSpace(%U) = %v, want %v", r, got, want)
		}
	}
}

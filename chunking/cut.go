package chunking

import (
	"unicode"
	"unicode/utf8"
)

// cutter cuts a span of valid UTF-8 text into overlapping pieces. Its
// buffers hold the runes of one window (at most Target+Window+1 runes) and
// are reused from chunk to chunk, so cutting allocates nothing per rune.
type cutter struct {
	lim limits
	// rs holds the runes of the current window and off their byte offsets
	// in the text; off has one more entry, the end of the last rune.
	rs  []rune
	off []int
}

func newCutter(o Options) *cutter {
	l := newLimits(o)
	// Sized for the default window; a huge Target grows them only if the
	// text is that long.
	n := min(l.hi+2, 2*MaxRunes)
	return &cutter{
		lim: l,
		rs:  make([]rune, 0, n),
		off: make([]int, 0, n),
	}
}

// isSpace reports whether r is whitespace a line may break at. The no-break
// spaces are excluded: they are there precisely to glue two words.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || ('\t' <= r && r <= '\r')
	}
	return unicode.IsSpace(r) && r != '\u00A0' && r != '\u2007' && r != '\u202F'
}

// Runes that continue the grapheme before them; a cut is never made just
// before one, or a combining accent would land on the next chunk alone.
const (
	zwj  = '\u200D' // joins the runes on both sides (emoji ZWJ sequences)
	zwnj = '\u200C'
)

// isContinuation reports whether r extends the grapheme before it: a
// combining mark (Mn, Mc, Me, which includes the variation selectors), a
// joiner, an emoji skin-tone modifier or a tag character (subdivision flags).
func isContinuation(r rune) bool {
	switch {
	case r < '\u0300': // below the first combining mark; the common case
		return false
	case r == zwj || r == zwnj:
		return true
	case r >= 0x1F3FB && r <= 0x1F3FF: // emoji modifiers, category Sk
		return true
	case r >= 0xE0020 && r <= 0xE007F: // tags, category Cf
		return true
	}
	return unicode.Is(unicode.M, r)
}

func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// load decodes the runes of t[s:b] into c.rs and c.off, stopping after
// limit runes, and returns how many it decoded.
func (c *cutter) load(t string, s, b, limit int) int {
	rs, off := c.rs[:0], c.off[:0]
	i := s
	for i < b && len(rs) < limit {
		if ch := t[i]; ch < utf8.RuneSelf {
			rs = append(rs, rune(ch))
			off = append(off, i)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(t[i:b])
		rs = append(rs, r)
		off = append(off, i)
		i += size
	}
	c.rs, c.off = rs, append(off, i)
	return len(rs)
}

// cuttable reports whether a chunk may end at boundary i of the window
// (before rune i) without splitting a grapheme.
func (c *cutter) cuttable(i int) bool {
	if i <= 0 || i >= len(c.rs) {
		return true
	}
	prev, next := c.rs[i-1], c.rs[i]
	switch {
	case isContinuation(next), prev == zwj:
		return false
	case isRegionalIndicator(prev) && isRegionalIndicator(next): // a flag
		return false
	case prev == '\r' && next == '\n':
		return false
	}
	return true
}

// cut splits t[a:b] into pieces and calls emit with the byte span of each,
// in order. Whitespace at both ends of the span and of each piece is left
// out; the rules are described in the package documentation.
func (c *cutter) cut(t string, a, b int, emit func(start, end int)) {
	a, b = trimSpace(t, a, b)
	lim := c.lim
	s := a // always the start of a non-space rune
	for s < b {
		n := c.load(t, s, b, lim.hi+1)
		atEnd := c.off[n] == b
		if atEnd && n <= lim.target {
			emit(s, b)
			return
		}
		u := c.choose(n, atEnd)
		// e is the end of the piece: u without the whitespace before it.
		// rs[0] is not a space, so e >= 1.
		e := u
		for e > 1 && isSpace(c.rs[e-1]) {
			e--
		}
		emit(s, c.off[e])
		// next is the first non-space at or after u; gapRunes counts the
		// whitespace between e and next, up to lim.gap+1.
		next, gapRunes := c.off[u], u-e
		for i := u; i < n && isSpace(c.rs[i]); i++ {
			next, gapRunes = c.off[i+1], gapRunes+1
		}
		if u == n || (next == c.off[n] && n > 0 && isSpace(c.rs[n-1])) {
			// The whitespace may go on past the window.
			for next < b {
				r, size := utf8.DecodeRuneInString(t[next:b])
				if !isSpace(r) {
					break
				}
				next += size
				if gapRunes <= lim.gap {
					gapRunes++
				}
			}
		}
		if next >= b {
			return
		}
		if lim.overlap == 0 || gapRunes > lim.gap {
			s = next
			continue
		}
		s = c.overlapStart(e, next)
	}
}

// choose returns the boundary of the window (0 < u <= n) to end the piece
// at: the paragraph break nearest to the target, else the word break nearest
// to it, else the grapheme boundary nearest to it, all within [lo, hi]. The
// end of the text, when in the window, counts as a paragraph break.
func (c *cutter) choose(n int, atEnd bool) int {
	lim := c.lim
	top := min(lim.hi, n)
	dist := func(u int) int {
		if u < lim.target {
			return lim.target - u
		}
		return u - lim.target
	}
	para, paraD := -1, 0
	word, wordD := -1, 0
	if atEnd && n <= lim.hi {
		para, paraD = n, dist(n)
	}
	for j := 1; j < n; {
		if !isSpace(c.rs[j]) {
			j++
			continue
		}
		// [j, k) is a maximal whitespace run.
		k, newlines := j, 0
		for k < n && isSpace(c.rs[k]) {
			if c.rs[k] == '\n' {
				newlines++
			}
			k++
		}
		if j <= top && k >= lim.lo && (k == n || !isContinuation(c.rs[k])) {
			// The run's boundary nearest to the target, kept in [lo, top].
			u := min(max(lim.target, j, lim.lo), k, top)
			d := dist(u)
			if newlines >= 2 {
				if para < 0 || d < paraD {
					para, paraD = u, d
				}
			} else if word < 0 || d < wordD {
				word, wordD = u, d
			}
		}
		if j > top {
			break
		}
		j = k
	}
	switch {
	case para >= 0:
		return para
	case word >= 0:
		return word
	}
	// No break at all: cut inside the word, at the grapheme boundary
	// nearest to the target.
	for d := 0; ; d++ {
		lo, hi := lim.target-d, lim.target+d
		if lo < lim.lo && hi > top {
			break
		}
		if lo >= lim.lo && lo <= top && c.cuttable(lo) {
			return lo
		}
		if hi <= top && hi >= lim.lo && c.cuttable(hi) {
			return hi
		}
	}
	// Only continuation runes around the target (say, a wall of combining
	// marks): splitting a grapheme is better than an unbounded chunk.
	return min(lim.target, top)
}

// overlapStart returns where the piece after one ending at window boundary
// e starts: Overlap runes before e, moved by at most snap runes to the
// nearest word start, else to the nearest grapheme boundary, else forward to the first grapheme start; next, the start of the
// text after the cut, when there is none before e.
func (c *cutter) overlapStart(e, next int) int {
	lim := c.lim
	p := e - lim.overlap
	wordStart := func(j int) bool {
		return !isSpace(c.rs[j]) && isSpace(c.rs[j-1]) && !isContinuation(c.rs[j])
	}
	if j, ok := c.nearest(p, lim.snap, e, wordStart); ok {
		return c.off[j]
	}
	graphemeStart := func(j int) bool { return !isSpace(c.rs[j]) && c.cuttable(j) }
	if j, ok := c.nearest(p, lim.snap, e, graphemeStart); ok {
		return c.off[j]
	}
	// Only whitespace or the inside of graphemes around p: take the first
	// start after it. Moving forward only shortens the overlap, so the
	// progress guarantee holds; with no start before e at all, there is
	// no overlap rather than a split grapheme.
	for j := p + lim.snap + 1; j < e; j++ {
		if graphemeStart(j) {
			return c.off[j]
		}
	}
	return next
}

// nearest returns the j in [p-d, p+d] ∩ [1, e) nearest to p for which ok(j)
// holds, the earlier one on a tie (more overlap, never less).
func (c *cutter) nearest(p, d, e int, ok func(int) bool) (int, bool) {
	lo, hi := max(1, p-d), min(e-1, p+d)
	for k := 0; p-k >= lo || p+k <= hi; k++ {
		if j := p - k; j >= lo && j <= hi && ok(j) {
			return j, true
		}
		if j := p + k; j >= lo && j <= hi && ok(j) {
			return j, true
		}
	}
	return 0, false
}

// trimSpace narrows t[a:b] to exclude leading and trailing whitespace.
func trimSpace(t string, a, b int) (int, int) {
	for a < b {
		r, size := utf8.DecodeRuneInString(t[a:b])
		if !isSpace(r) {
			break
		}
		a += size
	}
	for a < b {
		r, size := utf8.DecodeLastRuneInString(t[a:b])
		if !isSpace(r) {
			break
		}
		b -= size
	}
	return a, b
}

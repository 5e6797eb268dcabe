package chunking

import "fmt"

// Default sizes, in runes (Unicode code points), never tokens: the embedder
// changes, the text does not.
const (
	// TargetRunes is the size a chunk is cut at: big enough to carry one idea
	// for the embedder, small enough to be a citation read in seconds.
	TargetRunes = 1200

	// OverlapRunes is how far a chunk reaches back into the previous one
	// (12.5% of TargetRunes): a cut mid-sentence must not lose its antecedent.
	OverlapRunes = 150

	// WindowRunes is the look-around on each side of the target in which a
	// paragraph or word break is searched: a markdown cut inside a table is
	// better than a citation that halves a sentence.
	WindowRunes = 200

	// MaxRunes is the hard cap on a chunk with the default options, so the
	// embedder's context and the citation view can rely on it.
	MaxRunes = TargetRunes + WindowRunes
)

// maxTarget bounds Options.Target so that the per-chunk scratch buffers stay
// small and Target+Window cannot overflow; no sane chunk is a million runes.
const maxTarget = 1 << 20

// Options sets the chunk sizes, in runes. The zero value is invalid; start
// from DefaultOptions.
type Options struct {
	// Target is the chunk size a cut aims at. A section no longer than
	// Target is one chunk.
	Target int
	// Overlap is how many runes a chunk repeats from the end of the previous
	// chunk of the same section. It must be at most Target/2: more would
	// index every rune three times or more.
	Overlap int
	// Window is the look-around on each side of Target in which a cut
	// searches for a break; a chunk is never longer than Target+Window.
	// It must be in [1, Target].
	Window int
}

// DefaultOptions returns the product defaults: TargetRunes, OverlapRunes and
// WindowRunes.
func DefaultOptions() Options {
	return Options{Target: TargetRunes, Overlap: OverlapRunes, Window: WindowRunes}
}

// Validate reports whether o can be used for cutting.
func (o Options) Validate() error {
	switch {
	case o.Target < 1 || o.Target > maxTarget:
		return fmt.Errorf("chunking: target %d runes out of range [1, %d]", o.Target, maxTarget)
	case o.Window < 1 || o.Window > o.Target:
		return fmt.Errorf("chunking: window %d runes out of range [1, target %d]", o.Window, o.Target)
	case o.Overlap < 0 || o.Overlap > o.Target/2:
		return fmt.Errorf("chunking: overlap %d runes out of range [0, target/2 = %d]", o.Overlap, o.Target/2)
	}
	return nil
}

// maxGraphemeRunes is the longest grapheme a chunk start steps over (emoji
// ZWJ sequences run to 10 runes or so); a longer one is a wall of combining
// marks, not text.
const maxGraphemeRunes = 32

// limits are the rune counts the cutter works with, derived from valid
// Options.
type limits struct {
	target, overlap, hi int
	// lo is the shortest cut: Target-Window, raised when needed so that a
	// chunk always brings at least half of Target-Overlap new runes; this
	// keeps the number of chunks, and so the work, linear in the input
	// whatever the options.
	lo int
	// snap is how far a chunk start may move from "Overlap runes before the
	// previous end" to land on a word start, or failing one on a grapheme
	// boundary: Overlap/3, but at least maxGraphemeRunes to get out of any
	// real grapheme, and at most a quarter of lo-Overlap so that a chunk
	// still brings at least half of that as new runes.
	snap int
	// gap is the longest whitespace run at a cut that still gets an overlap;
	// after a longer run the next chunk starts at the next word, because
	// reaching back over the blanks would spend the chunk on them.
	gap int
}

func newLimits(o Options) limits {
	l := limits{target: o.Target, overlap: o.Overlap, hi: o.Target + o.Window}
	l.lo = max(o.Target-o.Window, o.Overlap+max(1, (o.Target-o.Overlap)/2))
	free := l.lo - o.Overlap
	l.snap = min(max(o.Overlap/3, maxGraphemeRunes), free/4)
	l.gap = free / 4
	return l
}

// Package words holds the small helpers of ragd's messages: counts with
// their noun ("1 hit", "2 hits") and the known word a mistyped one was
// meant to be, for the "did you mean" of an error.
package words

import "strconv"

// Plural is n and noun, the noun with an s unless n is 1: "1 hit", "0
// hits", "3 new events". Nouns whose plural is not an added s take their
// own wording.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Nearest returns the word of known closest to w by edit distance when it is
// near enough to be a typo of it: at most maxEdits edits, and fewer than a
// third of the known word's letters (a short word is one letter from many
// others), at least one. "" when none is.
func Nearest(w string, known []string, maxEdits int) string {
	best, bestD := "", maxEdits+1
	for _, k := range known {
		d := Distance(w, k)
		if d == 0 {
			return k
		}
		if d < bestD && d <= max(1, len([]rune(k))/3) {
			best, bestD = k, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	cur := make([]int, len(rb)+1)
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

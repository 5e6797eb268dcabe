package chunking

// goldmark's block parser is superlinear in three constructs that no real
// document has in bulk but any file can: container markers opening one line
// ("> > > > ..." or "- - - 1. ..."), which cost the square of their number;
// lists nested one level per line, each item indented past its parent's,
// where every line is measured again by each open item (about the cube of
// the depth: 1,000 levels, 1 MB, took seconds, 2,000 levels over a minute);
// and a paragraph of link reference definitions, which costs the square of
// its length (each definition found is cut out of the paragraph's line list
// by copying the rest). A 1 MB file of any takes seconds to minutes. tame
// defuses them in a copy of the text that is only parsed, never shown; the
// copy has the same length, so every offset stays valid.
const (
	// maxNesting is the number of container markers a line may open; the
	// rest become spaces. Real documents nest a handful deep.
	maxNesting = 32
	// maxIndent is the column past which a line's indentation (with its
	// container markers) ends: there tame puts a letter, so the parser sees
	// the rest as text of a container at most this deep. 32 levels of
	// four-column list indentation; only top-level headings matter, and
	// they are never indented.
	maxIndent = 4 * maxNesting
	// indentStop is the letter that ends an indentation: text, which opens
	// no block, keeps a line that has text non-blank.
	indentStop = 'x'
	// maxRefRun is the number of consecutive reference-definition lines
	// after which one is blanked, ending the paragraph. A changelog's link
	// block has a few hundred; a lost definition costs at most a heading
	// link resolving to its bracketed text.
	maxRefRun = 256
)

// tame returns md unchanged when it holds neither construct (the common
// case, at the cost of one scan), else a defused copy.
func tame(md []byte) []byte {
	out := md
	refRun := 0
	for start := 0; start < len(md); {
		end := start
		for end < len(md) && md[end] != '\n' {
			end++
		}
		line := md[start:end]
		if i := nestingCut(line); i >= 0 {
			if &out[0] == &md[0] {
				out = append([]byte(nil), md...)
			}
			blankOut(out[start+i : end])
		} else if i := indentCut(line); i >= 0 {
			if &out[0] == &md[0] {
				out = append([]byte(nil), md...)
			}
			out[start+i] = indentStop
		}
		if isRefDefLine(line) {
			refRun++
			if refRun >= maxRefRun {
				if &out[0] == &md[0] {
					out = append([]byte(nil), md...)
				}
				blankOut(out[start:end])
				refRun = 0
			}
		} else {
			refRun = 0
		}
		start = end + 1
	}
	return out
}

// blankOut turns every byte of b but line endings into a space.
func blankOut(b []byte) {
	for i, c := range b {
		if c != '\r' && c != '\n' {
			b[i] = ' '
		}
	}
}

// nestingCut returns where the container marker past maxNesting starts in
// line, or -1 if the line opens no more than maxNesting containers. The
// line is blanked from there on: text nested that deep is no top-level
// heading either way.
func nestingCut(line []byte) int {
	n := 0
	i := 0
	for i < len(line) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		j := markerEnd(line, i)
		if j < 0 {
			return -1
		}
		if n++; n > maxNesting {
			return i
		}
		i = j
	}
	return -1
}

// indentCut returns where the column reaches maxIndent in line's leading
// white space and container markers, or -1 if text starts before it (or
// the line has none: a blank line must stay blank, it ends blocks).
func indentCut(line []byte) int {
	col := 0
	for i := 0; i < len(line); {
		if col >= maxIndent {
			if isBlank(line[i:]) {
				return -1
			}
			return i
		}
		switch line[i] {
		case ' ':
			col++
			i++
			continue
		case '\t':
			col += tabWidth - col%tabWidth
			i++
			continue
		}
		j := markerEnd(line, i)
		if j < 0 {
			return -1
		}
		col += j - i
		i = j
	}
	return -1
}

// tabWidth is CommonMark's tab stop, for the columns of indentation.
const tabWidth = 4

// markerEnd returns the end of the container marker (">", "-", "+", "*",
// "1." or "1)") at line[i], or -1 if none starts there. A list marker must
// be followed by a blank or the line end.
func markerEnd(line []byte, i int) int {
	j := i
	switch c := line[i]; {
	case c == '>':
		return i + 1
	case c == '-' || c == '+' || c == '*':
		j = i + 1
	case c >= '0' && c <= '9':
		for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j == len(line) || (line[j] != '.' && line[j] != ')') {
			return -1
		}
		j++
	default:
		return -1
	}
	if j < len(line) && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' {
		return -1
	}
	return j
}

// isRefDefLine reports whether line looks like the start of a link
// reference definition: up to three spaces, "[label]:" with the label on
// the line.
func isRefDefLine(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i == len(line) || line[i] != '[' {
		return false
	}
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '[':
			return false
		case ']':
			return j > i+1 && j+1 < len(line) && line[j+1] == ':'
		}
	}
	return false
}

package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Detection is the language Detect chose and how sure it is.
type Detection struct {
	Language Language
	// Confidence is in [0, 1]: 0 when the sample gave no evidence and
	// Language is DefaultLanguage, near 1 when one language clearly won.
	Confidence float64
}

// Tuning of Detect.
const (
	// maxDetectBytes bounds the sample read: a few pages decide as well
	// as a whole project, and a caller may pass a concatenation of files.
	maxDetectBytes = 256 << 10
	// minDetectLetters is the fewest letters that decide anything; a
	// shorter sample is a title or a code listing.
	minDetectLetters = 40
	// unspacedShare of letters in scripts written without spaces makes
	// the text Simple: no stemmer fits it, and bigrams serve it in any
	// language.
	unspacedShare = 0.5
	// fullEvidence is the number of stop-word hits at which the margin
	// between the Latin languages is trusted in full; fewer scale the
	// confidence down.
	fullEvidence = 30
)

// Detect guesses the language of a sample of a project's text, as a
// project with no language set is first indexed:
//
//   - mostly Han, kana, Thai…: Simple (no stemmer applies);
//   - more Cyrillic letters than Latin ones: Russian;
//   - otherwise the Latin-script language whose stop words occur most,
//     each word counted shared among the languages that list it.
//
// Confidence is the winner's share of the evidence (letters for scripts,
// stop-word hits for Latin languages), scaled down for small samples. A
// sample without evidence gives DefaultLanguage with confidence 0.
func Detect(sample string) Detection {
	if len(sample) > maxDetectBytes {
		// A rune cut in half decodes as an error rune: not a letter.
		sample = sample[:maxDetectBytes]
	}
	var latin, cyrillic, unspaced, other int
	for _, r := range sample {
		switch {
		case !unicode.IsLetter(r):
		case r < utf8.RuneSelf || unicode.Is(unicode.Latin, r):
			latin++
		case unicode.Is(unicode.Cyrillic, r):
			cyrillic++
		case isUnspaced(r):
			unspaced++
		default:
			other++
		}
	}
	letters := latin + cyrillic + unspaced + other
	if letters < minDetectLetters {
		return Detection{Language: DefaultLanguage}
	}
	if share := float64(unspaced) / float64(letters); share >= unspacedShare {
		return Detection{Language: Simple, Confidence: share}
	}
	if cyrillic > latin {
		return Detection{Language: Russian, Confidence: float64(cyrillic) / float64(cyrillic+latin)}
	}
	if latin == 0 {
		return Detection{Language: DefaultLanguage}
	}
	return detectLatin(sample)
}

// latinLanguages are the languages Detect tells apart by stop words.
var latinLanguages = []Language{English, Portuguese, Spanish, German, French}

// stopOwners maps each stop word of a Latin language to the languages
// listing it.
var stopOwners = func() map[string][]Language {
	m := map[string][]Language{}
	for _, l := range latinLanguages {
		for _, w := range strings.Fields(stopLists[l]) {
			m[w] = append(m[w], l)
		}
	}
	return m
}()

func detectLatin(sample string) Detection {
	score := map[Language]float64{}
	hits := 0
	for w := range strings.FieldsFuncSeq(sample, func(r rune) bool { return !unicode.IsLetter(r) }) {
		owners := stopOwners[strings.ToLower(w)]
		if len(owners) == 0 {
			continue
		}
		hits++
		for _, l := range owners {
			score[l] += 1 / float64(len(owners))
		}
	}
	if hits == 0 {
		return Detection{Language: DefaultLanguage}
	}
	best, total := DefaultLanguage, 0.0
	for _, l := range latinLanguages { // fixed order: ties go to the first
		total += score[l]
		if score[l] > score[best] {
			best = l
		}
	}
	conf := score[best] / total
	if hits < fullEvidence {
		conf *= float64(hits) / fullEvidence
	}
	return Detection{Language: best, Confidence: conf}
}

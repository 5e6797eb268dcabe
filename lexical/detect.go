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
	// fullEvidence is the number of telling stop words (listed by one
	// language only) at which the lead between the Latin languages is
	// trusted in full: a paragraph holds about ten. Fewer scale the
	// confidence down.
	fullEvidence = 10
)

// Detect guesses the language of a sample of a project's text, as a
// project with no language set is first indexed:
//
//   - mostly Han, kana, Thai…: Simple (no stemmer applies);
//   - more Cyrillic letters than Latin ones: Russian;
//   - otherwise the Latin-script language whose stop words occur most,
//     counting only the stop words that one language alone lists.
//
// Confidence is the winner's share of the letters for scripts, and for
// Latin languages its lead over the runner-up relative to its own score
// (Portuguese and Spanish share many stop words, so a share of the hits
// would stay low even when the lead is clear), scaled down for small
// samples. A sample without evidence gives DefaultLanguage with
// confidence 0.
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
		// A word listed by several languages (de, que, a) tells them
		// nothing apart.
		owners := stopOwners[strings.ToLower(w)]
		if len(owners) != 1 {
			continue
		}
		hits++
		score[owners[0]]++
	}
	if hits == 0 {
		return Detection{Language: DefaultLanguage}
	}
	best, second := DefaultLanguage, 0.0
	for _, l := range latinLanguages[1:] { // fixed order: ties go to English
		switch {
		case score[l] > score[best]:
			second, best = score[best], l
		case score[l] > second:
			second = score[l]
		}
	}
	conf := (score[best] - second) / score[best]
	if hits < fullEvidence {
		conf *= float64(hits) / fullEvidence
	}
	return Detection{Language: best, Confidence: conf}
}

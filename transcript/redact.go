package transcript

import (
	"math"
	"regexp"
	"strings"
)

// Kinds of secret Redact recognises, as they appear in "[REDACTED:kind]"
// and in Stats.Redactions.
const (
	KindPrivateKey    = "private-key"
	KindAWSKey        = "aws-access-key"
	KindGitHubToken   = "github-token"
	KindAnthropicKey  = "anthropic-key"
	KindOpenAIKey     = "openai-key"
	KindSlackToken    = "slack-token"
	KindGoogleKey     = "google-api-key"
	KindStripeKey     = "stripe-key"
	KindJWT           = "jwt"
	KindBearer        = "bearer-token"
	KindURLPassword   = "url-password"
	KindAssignedValue = "secret-value"
)

// A secret pattern is a regular expression whose first capturing group,
// if any, is the part replaced (the rest, such as "password=", stays);
// without a group the whole match is replaced. hint is a substring every
// match contains, tested before the expression runs, since most texts
// contain none and strings.Contains is much cheaper than a regexp scan.
type secretPattern struct {
	kind string
	hint string
	re   *regexp.Regexp
}

// The patterns, in order: specific formats first, so that a GitHub token
// after "token=" is counted as a GitHub token.
var secretPatterns = []secretPattern{
	// A whole PEM private key block; a block cut short (a truncated paste)
	// is redacted to the end of the text.
	{KindPrivateKey, "PRIVATE KEY-----", regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\z)`)},
	{KindAWSKey, "", regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`)},
	{KindGitHubToken, "gh", regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`)},
	{KindGitHubToken, "github_pat_", regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,255}`)},
	{KindAnthropicKey, "sk-ant-", regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)},
	{KindOpenAIKey, "sk-", regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`)},
	{KindSlackToken, "xox", regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`)},
	{KindGoogleKey, "AIza", regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	{KindStripeKey, "_live_", regexp.MustCompile(`\b[rs]k_live_[0-9A-Za-z]{16,}`)},
	{KindJWT, "eyJ", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	{KindBearer, "earer", regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`)},
	{KindURLPassword, "://", regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@"'<>]+:([^\s/@"'<>]{3,})@`)},
}

// assignedSecret finds a value after a word naming a secret: an
// identifier ending in key, token, secret, password, ... then "=" or ":"
// (quotes allowed around both), then the value. Whether the value is
// redacted depends on the word and on the value; see secretValue.
var assignedSecret = regexp.MustCompile(`(?i)([a-z0-9_.-]*(?:key|token|secret|passwd|password|pwd|credentials?|auth))["']?[ \t]*(?:=|:)[ \t]*["']?([^\s"'` + "`" + `,;)\]}]+)`)

// secretWords are the words assignedSecret looks for, lower-cased: a text
// without any of them skips that expression.
var secretWords = []string{"key", "token", "secret", "passw", "pwd", "credential", "auth"}

// Entropy thresholds for values after a key or token word. A random
// 16-character base62 token has about 4 bits per character; English words
// and identifiers ("production", "my_access_key") have under 3.2.
const (
	minKeyValueLen     = 16
	minKeyValueEntropy = 3.2
	// minPasswordLen is the shortest value redacted after a password word:
	// passwords are short and low-entropy, so any value counts.
	minPasswordLen = 6
)

// Redact returns s with every value that looks like a secret replaced by
// "[REDACTED:kind]", and adds the count of each kind to counts (which may
// be nil). It recognises common key formats (PEM private keys, AWS access
// keys, GitHub, OpenAI, Anthropic, Slack, Google and Stripe keys, JWTs,
// bearer tokens, passwords in URLs) anywhere, and any value after a word
// naming a secret ("api_key=…", "token: …", "password=…"): after key and
// token words only a value that is long and random-looking (at least 16
// characters, entropy at least 3.2 bits per character), after password and
// secret words any value of 6 characters or more that is not a
// placeholder or a variable reference. Git hashes, UUIDs and base64 of
// ordinary text are left alone unless they follow such a word.
func Redact(s string, counts map[string]int) string {
	for _, p := range secretPatterns {
		if p.hint != "" && !strings.Contains(s, p.hint) {
			continue
		}
		if p.hint == "" && !hasAWSPrefix(s) {
			continue
		}
		s = replaceGroup(s, p.re, p.kind, counts, nil)
	}
	if containsSecretWord(s) {
		s = replaceGroup(s, assignedSecret, KindAssignedValue, counts, secretValue)
	}
	return s
}

func hasAWSPrefix(s string) bool {
	return strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") || strings.Contains(s, "ABIA") || strings.Contains(s, "ACCA")
}

func containsSecretWord(s string) bool {
	// A cheap case-insensitive scan: lower-case only when some byte could
	// start a secret word.
	if !strings.ContainsAny(s, "kKtTsSpPcCaA") || !strings.ContainsAny(s, "=:") {
		return false
	}
	l := strings.ToLower(s)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// replaceGroup replaces the matches of re in s (their first group when re
// has one) by the redaction marker of kind, when keep is nil or says the
// match is a secret.
func replaceGroup(s string, re *regexp.Regexp, kind string, counts map[string]int, keep func(word, value string) bool) string {
	locs := re.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		if len(loc) >= 4 && loc[len(loc)-2] >= 0 {
			// The last group is the value.
			start, end = loc[len(loc)-2], loc[len(loc)-1]
		}
		if keep != nil && !keep(s[loc[2]:loc[3]], s[start:end]) {
			continue
		}
		if start < last || strings.HasPrefix(s[start:], "[REDACTED:") {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString("[REDACTED:")
		b.WriteString(kind)
		b.WriteString("]")
		last = end
		if counts != nil {
			counts[kind]++
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretValue reports whether value, written after word, is a secret.
func secretValue(word, value string) bool {
	if strings.HasPrefix(value, "[REDACTED") || placeholder(value) {
		return false
	}
	if describes(value) {
		return false
	}
	w := strings.ToLower(word)
	if strings.Contains(w, "passw") || strings.Contains(w, "pwd") || strings.Contains(w, "secret") || strings.Contains(w, "credential") {
		// A value of letters only is a name ("UserCredentials",
		// "secret: required"), not a password; a password of letters only
		// is missed, the price of not redacting every identifier.
		return len(value) >= minPasswordLen && !lettersOnly(value)
	}
	return len(value) >= minKeyValueLen && entropy(value) >= minKeyValueEntropy && hasDigitAndLetter(value)
}

// minDescriptiveWords is how many words (three letters or more) between
// separators make a value a description rather than a token: a cache key
// such as "setup-uv-1-x86_64-unknown-linux-gnu-<hash>" is random at its end
// but words before it; keys and tokens are one run ("sk_live_<random>"
// has one word).
const minDescriptiveWords = 3

// describes reports whether v is made of words: see minDescriptiveWords.
func describes(v string) bool {
	words := 0
	for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' }) {
		if len(seg) >= 3 && lettersOnly(seg) {
			words++
		}
	}
	return words >= minDescriptiveWords
}

func lettersOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// placeholder reports whether v is a reference or stand-in rather than a
// value: $VAR, ${VAR}, <your-key>, {{ .Key }}, os.environ[...], ***, xxx,
// true/false/null, a function call.
func placeholder(v string) bool {
	switch {
	case strings.HasPrefix(v, "$"), strings.HasPrefix(v, "<"), strings.HasPrefix(v, "{"),
		strings.HasPrefix(v, "%"), strings.HasPrefix(v, "process.env"), strings.HasPrefix(v, "os."),
		strings.HasPrefix(v, "env."), strings.HasPrefix(v, "getenv"), strings.HasPrefix(v, "*"):
		return true
	case strings.Trim(strings.ToLower(v), "x.-_") == "":
		return true
	case strings.Contains(v, "("):
		return true
	}
	l := strings.ToLower(v)
	switch l {
	case "true", "false", "null", "none", "nil", "undefined", "required", "optional", "string", "redacted":
		return true
	}
	for _, p := range []string{"your", "example", "placeholder", "changeme", "dummy", "fake", "sample"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var freq [256]int
	for i := 0; i < len(s); i++ {
		freq[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range freq {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func hasDigitAndLetter(s string) bool {
	var digit, letter bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		digit = digit || c >= '0' && c <= '9'
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return digit && letter
}

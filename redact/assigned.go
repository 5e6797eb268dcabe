package redact

import (
	"strings"
)

// assignedSpans finds values after a name naming a secret: an
// identifier containing key, token, secret, pass, password, pwd,
// credential(s) or auth as a part of its own (see namesSecret), then "="
// or ":" (a quote or an escaped quote and spaces allowed around it), then
// the value, up to a space, a quote, a backslash or a closing bracket.
// Whether the value is redacted depends on the name and on the value; see
// secretValue. It scans by hand: a regular expression with a leading
// identifier class tries every byte as a start, and cost a third of the
// redaction time.
func assignedSpans(s string, prio int, out []span) []span {
	if !containsSecretWord(s) {
		return out
	}
	next := 0 // the end of the last value taken: separators in it are not looked at
	for off := 0; off < len(s); {
		k := strings.IndexAny(s[off:], "=:")
		if k < 0 {
			break
		}
		sep := off + k
		off = sep + 1
		if sep < next {
			continue
		}
		// The name: back over spaces, an optional quote (maybe escaped),
		// then identifier bytes.
		end := sep
		for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t') {
			end--
		}
		if end > 0 && (s[end-1] == '"' || s[end-1] == '\'') {
			end--
			if end > 0 && s[end-1] == '\\' {
				end--
			}
		}
		start := end
		for start > 0 && identByte(s[start-1]) {
			start--
		}
		// A .env or shell assignment of a password variable: its own rule
		// (see envPassword), names such as PGPASSWORD included.
		envAssign := start < end && end == sep && s[sep] == '=' && envPasswordName(s[start:end])
		if start == end || !envAssign && !namesSecret(s[start:end]) || publicKeyName(s[:start], s[start:end]) {
			continue
		}
		// The value: over spaces and an optional (escaped) quote.
		v := sep + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		if v < len(s) && s[v] == '\\' && v+1 < len(s) && (s[v+1] == '"' || s[v+1] == '\'') {
			v += 2
		} else if v < len(s) && (s[v] == '"' || s[v] == '\'') {
			v++
		}
		ve := v
		for ve < len(s) && !valueStop(s[ve]) {
			ve++
		}
		if ve == v {
			continue
		}
		next = ve
		if envAssign && envPassword(s[v:ve]) || !envAssign && secretValue(s[start:end], s[v:ve]) {
			out = append(out, span{start: v, end: ve, kind: KindAssignedValue, prio: prio})
		}
	}
	return out
}

func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// valueStop reports whether c ends a value after a secret name.
func valueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\f', '\v', '"', '\'', '\\', '`', ',', ';', ')', ']', '}':
		return true
	}
	return false
}

// secretWords are the words assignedSecret looks for, lower-cased: a text
// without any of them skips that expression.
var secretWords = []string{"key", "token", "secret", "pass", "pwd", "credential", "auth"}

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

func containsSecretWord(s string) bool {
	// A cheap case-insensitive scan: lower-case only when some byte could
	// start a secret word.
	if !strings.ContainsAny(s, "kKtTsSpPcCaA") || !strings.ContainsAny(s, "=:") {
		return false
	}
	l := asciiLower(s)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// namesSecret reports whether an identifier names a secret: it holds one
// of the secret words as a part of its own (api_key, DB_PASS,
// GPG_PASSPHRASE, TF_TOKEN_app_x, SECRET_KEY_BASE, AccountKey), not
// inside another word (keyboard, bypass, compass, tokenizer, author).
func namesSecret(word string) bool {
	l := strings.ToLower(word)
	for _, w := range []string{"password", "passwd", "passphrase", "pass", "pwd", "secret", "token", "key", "credentials", "credential", "auth"} {
		for off := 0; ; {
			i := strings.Index(l[off:], w)
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			before := i == 0 || !isLower(l[i-1]) || isUpperAt(word, i)
			j := i + len(w)
			after := j == len(l) || !isLower(l[j]) || isUpperAt(word, j)
			if w == "auth" {
				// "auth" alone or "authorization"/"auth_token", not "author".
				after = after || strings.HasPrefix(l[j:], "orization")
			}
			if before && after {
				return true
			}
		}
	}
	return false
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// isUpperAt reports whether word[i] starts a camel-case part (AccountKey).
func isUpperAt(word string, i int) bool {
	return i < len(word) && word[i] >= 'A' && word[i] <= 'Z' && i > 0 && word[i-1] >= 'a' && word[i-1] <= 'z'
}

// publicKeyName reports whether name (with before, the text before it)
// names a public key ("public key:", PUBLIC_KEY, publicKey, pubkey): the
// half of a key pair meant to be shown.
func publicKeyName(before, name string) bool {
	l := strings.ToLower(name)
	if strings.Contains(l, "public") || strings.Contains(l, "pubkey") {
		return true
	}
	b := strings.ToLower(strings.TrimRight(before, " \t"))
	return strings.HasSuffix(b, "public") && len(b) < len(before)
}

// minEnvPasswordLen is the shortest value redacted in a .env line
// setting a password (DB_PASSWORD=…): there a value is a value, never a
// description, and short random ones are common.
const minEnvPasswordLen = 4

// envPasswordSuffixes end the names of .env variables holding a password.
var envPasswordSuffixes = []string{"PASSWORD", "PASSWD", "PASS", "PWD", "PASSPHRASE", "SECRET"}

// envPasswordName reports whether name is an upper-case variable ending
// in a password word (DB_PASSWORD, PGPASSWORD, SMTP_PWD, APP_SECRET).
func envPasswordName(name string) bool {
	if strings.ToUpper(name) != name {
		return false
	}
	for _, suf := range envPasswordSuffixes {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}

// envPassword reports whether value, set by NAME=value ("=" right after
// the name, as in a .env file or a shell) for a name envPasswordName
// accepts, is a password: any value of minEnvPasswordLen or more that is
// not a placeholder or a description, letters only or digits only
// included.
func envPassword(value string) bool {
	value = strings.Trim(value, `"'`)
	return len(value) >= minEnvPasswordLen && !strings.HasPrefix(value, Marker) && !placeholder(value) && !describes(value)
}

// secretValue reports whether value, written after word, is a secret.
func secretValue(word, value string) bool {
	value = strings.Trim(value, `"'`)
	if strings.HasPrefix(value, Marker) || placeholder(value) {
		return false
	}
	if describes(value) {
		return false
	}
	w := strings.ToLower(word)
	for _, suf := range []string{"file", "path", "dir"} {
		// DB_PASSWORD_FILE=/run/secrets/db names where the secret is.
		if strings.HasSuffix(w, suf) {
			return false
		}
	}
	if strings.Contains(w, "pass") || strings.Contains(w, "pwd") || strings.Contains(w, "secret") || strings.Contains(w, "credential") {
		// A value of letters only is a name ("UserCredentials",
		// "secret: required"), not a password; a password of letters only
		// is missed, the price of not redacting every identifier.
		return len(value) >= minPasswordLen && !lettersOnly(value) && !numeric(value)
	}
	return len(value) >= minKeyValueLen && shannon(value) >= minKeyValueEntropy && hasDigitAndLetter(value)
}

// minDescriptiveWords is how many words (three letters or more) between
// separators make a value a description rather than a token: a cache key
// such as "setup-uv-1-x86_64-unknown-linux-gnu-<hash>" is random at its end
// but words before it; keys and tokens are one run ("sk_live_<random>"
// has one word).
const minDescriptiveWords = 3

// describes reports whether v is made of words: see minDescriptiveWords.
// Values with a known secret prefix ("AGE-SECRET-KEY-1…") are never
// descriptions.
func describes(v string) bool {
	if strings.HasPrefix(v, "AGE-SECRET-KEY-") {
		return false
	}
	words := 0
	segs := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' })
	for _, seg := range segs {
		if len(seg) >= 3 && lettersOnly(seg) {
			words++
		}
	}
	return words >= minDescriptiveWords || words >= 2 && len(segs) >= minDescriptiveSegments
}

// minDescriptiveSegments is how many separated parts make a value with
// two words a description too (a cache key "setup-go-linux-x86_64-go-1.26-
// <hash>"): a token has one to three parts.
const minDescriptiveSegments = 6

func lettersOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

func numeric(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
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
		strings.HasPrefix(v, "env."), strings.HasPrefix(v, "getenv"), strings.HasPrefix(v, "*"),
		strings.HasPrefix(v, "["):
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

func hasDigitAndLetter(s string) bool {
	var digit, letter bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		digit = digit || c >= '0' && c <= '9'
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return digit && letter
}

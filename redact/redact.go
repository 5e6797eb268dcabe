// Package redact finds secrets in text and replaces them with
// "[REDACTED:kind]". It is the one redaction every write into ragd's
// session scope goes through: transcript readers, event appends and
// imports, transcript checkpoints, error messages and logs.
//
// # Rules
//
// The rules are, in order of precedence:
//
//   - ragd's own formats: whole private key blocks (PEM, PGP, PuTTY, even
//     cut short), the common provider keys (AWS, GitHub, OpenAI,
//     Anthropic, Slack, Google, Stripe, HuggingFace), JWTs, bearer and
//     basic authorization, passwords in URLs, netrc entries, Docker
//     registry auths, Azure SAS signatures, Telegram and Discord bot
//     tokens and webhooks, and passwords on command lines (mysql -p,
//     sshpass -p, curl -u, redis-cli -a, --password);
//   - the default rule set of gitleaks (v8.30.1: about 220 provider
//     formats, each with its keyword prefilter, entropy threshold and
//     allowlists), less its generic-api-key rule, which the next rule
//     replaces;
//   - ragd's keyword-plus-entropy rule: a value after a name naming a
//     secret ("api_key=", "DB_PASS:", "TF_TOKEN_x=", "password": "…").
//
// Each rule's kind is ragd's name for it or gitleaks' rule id
// ("gitlab-pat", "slack-webhook-url", ...). Matches that overlap are
// merged: no part of a secret survives because two rules disagreed on
// where it ends.
//
// # JSON
//
// Text often carries JSON encoded inside it (a tool call's input, a
// command's JSON output), where a quote is \" and a newline \n. String
// decodes each escaped JSON string literal it finds and redacts the
// decoded text, so that "DB_PASSWORD=\"hunter22\"" loses its value as
// the unescaped text would. JSON redacts a whole JSON document string by
// string, and a value under a key naming a secret.
package redact

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ragd/ragd"
)

// Marker is how a redacted value starts: "[REDACTED:kind]".
const Marker = "[REDACTED:"

// maxDepth bounds how deep JSON encoded inside JSON strings is decoded:
// a tool's JSON output quoted in a tool call quoted in a payload is
// three levels.
const maxDepth = 4

// String returns s with every secret replaced by "[REDACTED:kind]", and
// adds the count of each kind to counts (which may be nil). It is
// idempotent: a marker is not a secret, and redacting twice changes
// nothing. s is returned as is (no copy) when it holds no secret.
func String(s string, counts map[string]int) string {
	return redactText(s, counts, 0)
}

func redactText(s string, counts map[string]int, depth int) string {
	if len(s) < minSecretLen {
		return s
	}
	if depth < maxDepth && strings.IndexByte(s, '\\') >= 0 && strings.IndexByte(s, '"') >= 0 {
		s = redactEscapedLiterals(s, counts, depth)
	}
	spans := findSpans(s)
	if len(spans) == 0 {
		return s
	}
	return replaceSpans(s, spans, counts)
}

// minSecretLen is the shortest text that can hold a secret the rules
// find ("pwd=abcdef" is 10 bytes): shorter texts skip the scan.
const minSecretLen = 8

// A span is a part of a text a rule found to be a secret.
type span struct {
	start, end int
	kind       string
	// prio is the rule's precedence, lower first: of two spans starting
	// at the same byte the kind of the more specific rule is kept.
	prio int
}

// replaceSpans replaces spans of s by markers, merging overlapping ones
// and skipping any that touch a marker already in s.
func replaceSpans(s string, spans []span, counts map[string]int) string {
	slices.SortFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.prio - b.prio
	})
	markers := existingMarkers(s)
	var merged []span
	for _, sp := range spans {
		if sp.end <= sp.start || overlapsAny(sp, markers) {
			continue
		}
		if n := len(merged); n > 0 && sp.start < merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	if len(merged) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range merged {
		// A span may only end inside a marker we are about to write if
		// spans were merged across one; existing markers were skipped.
		b.WriteString(s[last:sp.start])
		b.WriteString(Marker)
		b.WriteString(sp.kind)
		b.WriteString("]")
		last = sp.end
		if counts != nil {
			counts[sp.kind]++
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// existingMarkers returns the spans of the markers already in s.
func existingMarkers(s string) []span {
	var out []span
	for off := 0; ; {
		i := strings.Index(s[off:], Marker)
		if i < 0 {
			return out
		}
		start := off + i
		end := strings.IndexByte(s[start:], ']')
		if end < 0 {
			return out
		}
		out = append(out, span{start: start, end: start + end + 1})
		off = start + end + 1
	}
}

func overlapsAny(sp span, others []span) bool {
	for _, o := range others {
		if sp.start < o.end && o.start < sp.end {
			return true
		}
	}
	return false
}

// redactEscapedLiterals decodes each JSON string literal of s that has
// escapes, redacts the decoded text and writes it back encoded.
func redactEscapedLiterals(s string, counts map[string]int, depth int) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			break
		}
		start := i + q
		end, escaped := literalEnd(s, start)
		if end < 0 {
			break
		}
		i = end
		if !escaped {
			continue
		}
		var dec string
		if json.Unmarshal([]byte(s[start:end]), &dec) != nil {
			// Not a JSON literal (a quote in prose): start again just
			// after its opening quote.
			i = start + 1
			continue
		}
		red := redactText(dec, counts, depth+1)
		if red == dec {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(encodeString(red))
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// literalEnd returns the offset just past the closing quote of the
// string literal opening at s[start], and whether it holds escapes; -1
// when it does not close.
func literalEnd[T string | []byte](s T, start int) (int, bool) {
	escaped := false
	for j := start + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		case '\n':
			// JSON strings hold no raw newline: this is prose.
			return -1, false
		}
	}
	return -1, false
}

// encodeString encodes s as a JSON string literal without HTML escapes.
func encodeString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		// Encode fails only on invalid UTF-8, which it replaces instead.
		return `"` + strings.ToValidUTF8(s, "\uFFFD") + `"`
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// JSON returns the JSON document raw with every string redacted: its
// decoded text through String, and a string value under a key naming a
// secret ({"password": "…"}, {"GITHUB_TOKEN": "…"}) by the rule for
// values after such names. Keys, numbers and layout are kept. raw is
// returned as is when nothing changed; text that is not JSON is redacted
// as text.
func JSON(raw []byte, counts map[string]int) []byte {
	if len(raw) < minSecretLen {
		return raw
	}
	if !json.Valid(raw) {
		s := string(raw)
		if r := String(s, counts); r != s {
			return []byte(r)
		}
		return raw
	}
	var out []byte
	last := 0
	key := ""
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		start := i
		end, _ := literalEnd(raw, start)
		if end < 0 {
			break // valid JSON: not reached
		}
		i = end - 1
		var dec string
		if json.Unmarshal(raw[start:end], &dec) != nil {
			continue
		}
		if isKey(raw, end) {
			key = dec
			continue
		}
		red := redactText(dec, counts, 0)
		if red == dec && key != "" && namesSecret(key) && secretValue(key, dec) {
			red = Marker + KindAssignedValue + "]"
			if counts != nil {
				counts[KindAssignedValue]++
			}
		}
		key = ""
		if red == dec {
			continue
		}
		out = append(out, raw[last:start]...)
		out = append(out, encodeString(red)...)
		last = end
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// isKey reports whether the literal ending at end is an object key: the
// next byte that is not space is a colon.
func isKey(raw []byte, end int) bool {
	for j := end; j < len(raw); j++ {
		switch raw[j] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// Event redacts e's text, title and payload in place, counting in counts.
// Ids, types and actors are names, not content, and are kept.
func Event(e *ragd.Event, counts map[string]int) {
	e.Text = String(e.Text, counts)
	e.Title = String(e.Title, counts)
	if e.Payload != nil {
		e.Payload = JSON(e.Payload, counts)
	}
}

package ragd

import "strings"

// EmbeddingText returns the text ragd embeds for a chunk of scope: for a
// document's chunk (docs, adr), its content after the document's title
// and the section's heading path, those the content does not already
// hold ("Title > Section > Subsection", a blank line, the content); for a
// session's chunk, its content alone.
//
// A chunk seldom names what it is about: the third chunk of "Retries"
// under "Kafka sink" says "the default is 5" and nothing of Kafka. Its
// words are searched with its title and heading (the lexical table holds
// both); its vector, read from the content alone, was not. The header is
// only in the embedded text: the stored content, its hash and the
// citation are unchanged, so a chunk keeps its id and its votes.
// Measured in docs/quality.md ("The section's context in the embedded
// text"). Session chunks' titles name the session, not the message, and
// were not measured: they are embedded as they are.
func EmbeddingText(scope, title string, headingPath []string, content string) string {
	if scope == ScopeSession {
		return content
	}
	var parts []string
	if t := strings.TrimSpace(title); t != "" && !strings.Contains(content, t) {
		parts = append(parts, t)
	}
	for _, h := range headingPath {
		if h = strings.TrimSpace(h); h != "" && !strings.Contains(content, h) {
			parts = append(parts, h)
		}
	}
	if len(parts) == 0 {
		return content
	}
	return strings.Join(parts, embeddingPathSeparator) + "\n\n" + content
}

// embeddingPathSeparator joins a header's title and headings: a breadcrumb,
// as documentation sites print one.
const embeddingPathSeparator = " > "

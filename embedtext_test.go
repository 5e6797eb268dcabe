package ragd_test

import (
	"testing"

	"github.com/ragd/ragd"
)

func TestEmbeddingText(t *testing.T) {
	for _, tc := range []struct {
		name, scope, title string
		path               []string
		content, want      string
	}{
		{"a later chunk of a section", ragd.ScopeDocs, "Kafka sink", []string{"Configuration", "Retries"},
			"The default is 5.", "Kafka sink > Configuration > Retries\n\nThe default is 5."},
		{"the section's first chunk holds its heading", ragd.ScopeADR, "ADR 7: Queues", []string{"Decision"},
			"## Decision\n\nWe use NATS.", "ADR 7: Queues\n\n## Decision\n\nWe use NATS."},
		{"the title's own chunk", ragd.ScopeDocs, "Kafka sink", nil, "# Kafka sink\n\nWrites events.", "# Kafka sink\n\nWrites events."},
		{"no title, no path", ragd.ScopeDocs, "", nil, "plain text", "plain text"},
		{"blank headings are skipped", ragd.ScopeDocs, "  ", []string{"", " Setup "}, "Run make.", "Setup\n\nRun make."},
		{"a session's chunk is its content", ragd.ScopeSession, "Session about retries", []string{"x"}, "hello", "hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ragd.EmbeddingText(tc.scope, tc.title, tc.path, tc.content); got != tc.want {
				t.Errorf("EmbeddingText(%q, %q, %q, %q) = %q, want %q", tc.scope, tc.title, tc.path, tc.content, got, tc.want)
			}
		})
	}
}

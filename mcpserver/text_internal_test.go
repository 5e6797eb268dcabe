package mcpserver

import (
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
)

// TestResultWording: the reindex result says each scope once, and one
// hit is "1 hit".
func TestResultWording(t *testing.T) {
	for _, tc := range []struct {
		sc   api.ScopeReport
		want string
	}{
		{api.ScopeReport{Scope: "docs", Status: api.StatusOK, Summary: "docs: 6 files, 14 chunks (14 new, 0 kept, 0 deleted)"},
			"docs: 6 files, 14 chunks (14 new, 0 kept, 0 deleted)"},
		{api.ScopeReport{Scope: "adr", Status: api.StatusFailed, Error: "boom", Summary: "adr: failed: boom"}, "adr: failed: boom"},
		{api.ScopeReport{Scope: "session", Status: api.StatusFailed, Error: "boom"}, "session: failed: boom"},
	} {
		if got := scopeLine(&tc.sc); got != tc.want {
			t.Errorf("scopeLine = %q, want %q", got, tc.want)
		}
	}
	text := searchText("q", SearchOutput{Project: "demo", Hits: []Hit{{Rank: 1, ChunkID: "c1", Citation: "docs/a.md"}}})
	if first, _, _ := strings.Cut(text, "\n"); !strings.HasPrefix(first, `1 hit for "q" in project demo`) {
		t.Errorf("search text starts %q", first)
	}
}

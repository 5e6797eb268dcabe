package index

import (
	"strings"
	"testing"

	"github.com/ragd/ragd"
)

// Issue 35 item 19: a scope's notes do not read as the reason for its
// skips: "2 skipped (.adr-dir names …)" was read as why two were skipped.
func TestSummarize_NotesAreNotTheSkipsReason(t *testing.T) {
	sr := &ragd.ScopeReport{Scope: "adr", Status: ragd.StatusOK, Files: 3,
		Skipped: []ragd.Input{{Path: "a.md"}, {Path: "b.md"}},
		Notes:   []string{".adr-dir names README.md/, which holds no prose files: not used"}}
	summarize(sr)
	if strings.Contains(sr.Summary, "skipped (") || !strings.Contains(sr.Summary, "note: .adr-dir names README.md/") {
		t.Errorf("summary %q: want the note said as a note, apart from the skips", sr.Summary)
	}
}

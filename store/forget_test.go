package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

// TestForgetSession_Erases: the text of a forgotten session (its events,
// its chunks, the terms of the lexical index) is in no byte of the
// database or its WAL afterwards, while the store is open and after it
// closed; the other session's text is.
func TestForgetSession_Erases(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ragd.db")
	s := mustOpenAt(t, path, 4)
	p := mustProject(t, s, "p")
	forgotten := []string{"Zanzibarquokka", "quillfeathermarmot", "Vexillologywombat"}
	var evs []ragd.Event
	for i, w := range forgotten {
		evs = append(evs, ev(fmt.Sprintf("f%d", i), "gone", ragd.TypeChatMessage, "remember "+w+" for the tests", 0))
	}
	kept := ev("k1", "stays", ragd.TypeChatMessage, "keep Ptarmiganlantern around", 0)
	evs = append(evs, kept)
	if _, err := s.AppendSession(ctx, p.ID, evs, testdb.ChunksOf(evs...)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetSession(ctx, p.ID, "gone"); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		var all []byte
		for _, suffix := range []string{"", "-wal", "-shm"} {
			b, err := os.ReadFile(path + suffix)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		all = bytes.ToLower(all)
		for _, w := range forgotten {
			// The lexical index holds stems: look for the word's start.
			if stem := strings.ToLower(w[:9]); bytes.Contains(all, []byte(stem)) {
				t.Errorf("%s: %q of the forgotten session is still in the files", when, stem)
			}
		}
		if !bytes.Contains(all, []byte("ptarmiganlantern")) {
			t.Errorf("%s: the kept session's text is not in the files: the check reads nothing", when)
		}
	}
	check("open")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	check("closed")
}

// BenchmarkForgetSession forgets one session of 50 messages from a project
// of sessions×50 messages with their chunks: the cost of erasing (zeroed
// pages, the lexical index rewritten, the WAL truncated).
func BenchmarkForgetSession(b *testing.B) {
	ctx := context.Background()
	const sessions, perSession = 200, 50
	s := mustOpen(b, 4)
	p := mustProject(b, s, "p")
	for si := range sessions {
		var evs []ragd.Event
		for m := range perSession {
			evs = append(evs, ev(fmt.Sprintf("e%d-%d", si, m), fmt.Sprintf("s%d", si), ragd.TypeChatMessage,
				fmt.Sprintf("message %d of session %d about the importer, the lexical index and word%d", m, si, si*perSession+m), 0))
		}
		if _, err := s.AppendSession(ctx, p.ID, evs, testdb.ChunksOf(evs...)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if i >= sessions {
			b.Fatalf("more iterations than sessions (%d): use -benchtime of at most %dx", sessions, sessions)
		}
		if _, err := s.ForgetSession(ctx, p.ID, fmt.Sprintf("s%d", i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

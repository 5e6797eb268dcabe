package engines

import (
	"errors"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, path := range []string{"/var/lib/ragd/ragd.db", "ragd.db", "./odd:name.db", "data/ragd.db"} {
		open, err := Lookup(path)
		if err != nil || open == nil {
			t.Errorf("Lookup(%q): %v, want the SQLite engine", path, err)
		}
	}
	for _, url := range []string{"postgres://u@h/db", "PostgreSQL://h/db"} {
		if open, err := Lookup(url); err != nil || open == nil {
			t.Errorf("Lookup(%q): %v, want the PostgreSQL engine", url, err)
		}
	}
	for _, url := range []string{"mysql://u:secret@h/db", "file:ragd.db", "sqlite:ragd.db"} {
		_, err := Lookup(url)
		if !errors.Is(err, ErrUnknownScheme) || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "postgres://…") {
			t.Errorf("Lookup(%q): %v, want ErrUnknownScheme naming the accepted URLs, no password", url, err)
		}
	}
}

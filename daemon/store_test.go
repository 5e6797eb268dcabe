package daemon_test

import (
	"strings"
	"testing"

	"github.com/ragd/ragd"
)

func TestDatabaseScheme(t *testing.T) {
	for _, tc := range []struct{ database, want string }{
		{"/home/me/.local/share/ragd/ragd.db", ""},
		{"ragd.db", ""},
		{"./odd:name.db", ""},
		{"data dir:x", ""},
		{"1x:y", ""},
		{":memory:", ""},
		{"", ""},
		{"postgres://u@h/db", "postgres"},
		{"PostgreSQL://h/db", "postgresql"},
		{"postgres:", "postgres"},
		{"file:ragd.db", "file"},
		{"git+ssh://h/r", "git+ssh"},
	} {
		if got := ragd.DatabaseScheme(tc.database); got != tc.want {
			t.Errorf("DatabaseScheme(%q) = %q, want %q", tc.database, got, tc.want)
		}
	}
}

func TestRedactDatabase(t *testing.T) {
	for _, tc := range []struct{ database, want string }{
		{"/a/ragd.db", "/a/ragd.db"},
		{"postgres://ragd:secret@db.example:5432/ragd?sslmode=require", "postgres://ragd:xxxxx@db.example:5432/ragd?sslmode=require"},
		{"postgres://db.example/ragd", "postgres://db.example/ragd"},
		{"postgres://ragd:sec%zzret@h/db", "postgres://…"},
		{"postgres://h/db?password=pw&x=1", "postgres://h/db?password=xxxxx&x=1"},
		{"postgresql://u:p%40w@h/db?sslmode", "postgresql://u:xxxxx@h/db?sslmode"},
	} {
		if got := ragd.RedactDatabase(tc.database); got != tc.want {
			t.Errorf("ragd.RedactDatabase(%q) = %q, want %q", tc.database, got, tc.want)
		}
	}
}

// FuzzDatabaseScheme: a scheme is the lowercased text before the value's
// first colon, or none.
func FuzzDatabaseScheme(f *testing.F) {
	for _, s := range []string{"/a/b.db", "postgres://u:p@h/d", "file:x", "./a:b", ":x", "Ab+c-d.e:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, database string) {
		s := ragd.DatabaseScheme(database)
		if s == "" {
			return
		}
		if before, _, ok := strings.Cut(database, ":"); !ok || strings.ToLower(before) != s {
			t.Fatalf("DatabaseScheme(%q) = %q: not the text before its first colon", database, s)
		}
		if strings.ContainsAny(s, "/ \\") || s[0] < 'a' || s[0] > 'z' {
			t.Fatalf("DatabaseScheme(%q) = %q: not a URL scheme", database, s)
		}
	})
}

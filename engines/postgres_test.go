package engines

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The password files pgx reads (passfile, PGPASSFILE, ~/.pgpass; a
// service file when a service is named) must be the user's alone; a
// password in the URL or PGPASSWORD means no password file is read.
func TestCheckCredentialFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("*:*:*:ragd:hunter2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	open, private := file("open", 0o644), file("private", 0o600)
	groupOnly := file("group", 0o640)
	t.Setenv("HOME", t.TempDir()) // no ~/.pgpass of the machine's user
	for _, tc := range []struct {
		name     string
		database string
		env      map[string]string
		refused  string // the file named by the error, "" when accepted
	}{
		{"PGPASSFILE open to others", "postgres://ragd@db/ragd", map[string]string{"PGPASSFILE": open}, open},
		{"PGPASSFILE open to the group", "postgres://ragd@db/ragd", map[string]string{"PGPASSFILE": groupOnly}, groupOnly},
		{"PGPASSFILE private", "postgres://ragd@db/ragd", map[string]string{"PGPASSFILE": private}, ""},
		{"passfile parameter open", "postgres://ragd@db/ragd?passfile=" + open, nil, open},
		{"passfile parameter wins over PGPASSFILE", "postgres://ragd@db/ragd?passfile=" + private, map[string]string{"PGPASSFILE": open}, ""},
		{"password in the URL: no password file read", "postgres://ragd:pw@db/ragd", map[string]string{"PGPASSFILE": open}, ""},
		{"PGPASSWORD: no password file read", "postgres://ragd@db/ragd", map[string]string{"PGPASSFILE": open, "PGPASSWORD": "pw"}, ""},
		{"no password file", "postgres://ragd@db/ragd", map[string]string{"PGPASSFILE": filepath.Join(dir, "absent")}, ""},
		{"service file open, service named", "postgres://db/ragd?service=team", map[string]string{"PGPASSFILE": private, "PGSERVICEFILE": open}, open},
		{"service file open, PGSERVICE", "postgres://db/ragd", map[string]string{"PGPASSFILE": private, "PGSERVICEFILE": open, "PGSERVICE": "team"}, open},
		{"service file open, no service", "postgres://db/ragd", map[string]string{"PGPASSFILE": private, "PGSERVICEFILE": open}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkCredentialFiles(tc.database, func(k string) string { return tc.env[k] })
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted %s, which others can read", tc.refused)
			}
			for _, want := range []string{tc.refused, "chmod 600 " + tc.refused, "others can read it"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

func TestPoolSize(t *testing.T) {
	for _, tc := range []struct {
		database string
		want     int32
		err      bool
	}{
		{"postgres://db/ragd", 0, false},
		{"postgres://db/ragd?pool_max_conns=3", 3, false},
		{"postgres://u:hunter2@db/ragd?pool_max_conns=0", 0, true},
		{"postgres://u:hunter2@db/ragd?pool_max_conns=many", 0, true},
	} {
		n, err := poolSize(tc.database)
		if n != tc.want || (err != nil) != tc.err {
			t.Errorf("poolSize(%q) = %d, %v; want %d, error %v", tc.database, n, err, tc.want, tc.err)
		}
		if err != nil && (strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "pool_max_conns")) {
			t.Errorf("poolSize(%q) error %q: want pool_max_conns named, no password", tc.database, err)
		}
	}
}

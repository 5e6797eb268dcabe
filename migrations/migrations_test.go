package migrations

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// The embedded sets load in order, gapless from 1, each file with its SQL.
func TestLoad_EmbeddedSets(t *testing.T) {
	for name, fsys := range map[string]fs.FS{"main": Main, "telemetry": Telemetry} {
		files, err := Load(fsys)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %d files, %v", name, len(files), err)
		}
		for i, f := range files {
			if f.Version != i+1 || !strings.HasSuffix(f.Name, ".sql") || strings.TrimSpace(f.SQL) == "" {
				t.Errorf("%s: file %d is %d %q with %d bytes of SQL", name, i, f.Version, f.Name, len(f.SQL))
			}
		}
	}
	main, _ := Load(Main)
	if main[0].Name != "0001_initial.sql" || !strings.Contains(main[0].SQL, "CREATE TABLE") {
		t.Errorf("main's first migration: %q", main[0].Name)
	}
}

// Files are ordered by version, not by name, and only *.sql files at the
// root count.
func TestLoad_Order(t *testing.T) {
	files, err := Load(fstest.MapFS{
		"0002_b.sql":     {Data: []byte("B")},
		"0010_j.sql":     {Data: []byte("J")},
		"0001_a.sql":     {Data: []byte("A")},
		"README.md":      {Data: []byte("not a migration")},
		"sub/0003_c.sql": {Data: []byte("elsewhere")},
	})
	if err == nil {
		t.Fatalf("versions 1, 2, 10 loaded: %+v", files)
	}
	files, err = Load(fstest.MapFS{
		"02_b.sql":       {Data: []byte("B")},
		"0001_a.sql":     {Data: []byte("A")},
		"0003_c.sql":     {Data: []byte("C")},
		"README.md":      {Data: []byte("not a migration")},
		"sub/0004_d.sql": {Data: []byte("elsewhere")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Name+"="+f.SQL)
	}
	if strings.Join(got, " ") != "0001_a.sql=A 02_b.sql=B 0003_c.sql=C" {
		t.Errorf("loaded %v", got)
	}
}

// A name without NNNN_, a version 0, a gap and a duplicate are refused,
// naming the file.
func TestLoad_BadSets(t *testing.T) {
	for name, tc := range map[string]struct {
		fsys fstest.MapFS
		want string
	}{
		"no number":  {fstest.MapFS{"initial.sql": {}}, `"initial.sql"`},
		"no _":       {fstest.MapFS{"0001.sql": {}}, `"0001.sql"`},
		"version 0":  {fstest.MapFS{"0000_zero.sql": {}}, `"0000_zero.sql"`},
		"gap":        {fstest.MapFS{"0001_a.sql": {}, "0003_c.sql": {}}, "0003_c.sql: version 3, want 2"},
		"duplicate":  {fstest.MapFS{"0001_a.sql": {}, "0001_b.sql": {}}, "version 1, want 2"},
		"not from 1": {fstest.MapFS{"0002_b.sql": {}}, "0002_b.sql: version 2, want 1"},
	} {
		if _, err := Load(tc.fsys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}

// An empty set loads as no migration.
func TestLoad_Empty(t *testing.T) {
	if files, err := Load(fstest.MapFS{}); err != nil || len(files) != 0 {
		t.Errorf("empty set: %v, %v", files, err)
	}
}

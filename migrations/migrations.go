// Package migrations holds ragd's database schema as numbered SQL files,
// embedded in the binary.
//
// Each file is named NNNN_description.sql and is applied once, in order, in
// its own transaction, by store.Open. Files are append-only: a released
// migration is never edited; a change to the schema is a new file.
//
// There are two sets: Main for the main database, Telemetry for the search
// telemetry, which lives in a file of its own so that a search's telemetry
// write does not cool the next search's caches (docs/adr/0004).
//
// The sqlite-vec table is not here: its dimensions come from the configured
// embedding space, so the store creates it at open time (docs/adr/0002).
package migrations

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed *.sql telemetry/*.sql
var files embed.FS

// Main holds the main database's migrations.
var Main fs.FS = must(fs.Sub(files, "."))

// Telemetry holds the telemetry database's migrations.
var Telemetry fs.FS = must(fs.Sub(files, "telemetry"))

func must(f fs.FS, err error) fs.FS {
	if err != nil {
		panic(err) // a wrong constant path above: caught by any test
	}
	return f
}

// File is one numbered migration: its version (the NNNN of its name), its
// name and its SQL.
type File struct {
	Version int
	Name    string
	SQL     string
}

// Load reads and orders the migration files at the root of fsys (this
// package's sets, or another engine's). Names must be NNNN_description.sql
// with unique, gapless versions starting at 1.
func Load(fsys fs.FS) ([]File, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var out []File
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migration %q: name must be NNNN_description.sql", name)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		out = append(out, File{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, f := range out {
		if f.Version != i+1 {
			return nil, fmt.Errorf("migration %s: version %d, want %d (versions are gapless and unique)", f.Name, f.Version, i+1)
		}
	}
	return out, nil
}

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
	"io/fs"
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

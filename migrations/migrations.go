// Package migrations holds ragd's database schema as numbered SQL files,
// embedded in the binary.
//
// Each file is named NNNN_description.sql and is applied once, in order, in
// its own transaction, by store.Open. Files are append-only: a released
// migration is never edited; a change to the schema is a new file.
//
// The sqlite-vec table is not here: its dimensions come from the configured
// embedding space, so the store creates it at open time (see docs/adr).
package migrations

import "embed"

// FS holds the migration files.
//
//go:embed *.sql
var FS embed.FS

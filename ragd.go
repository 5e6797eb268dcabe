// Package ragd holds the domain every layer of ragd shares: scopes,
// projects, chunks and their citations, session events, what the layers
// answer (a search's result, a reindex's report, a project's coverage, the
// index's sizes), and the sentinel errors callers branch on. It has no SQL,
// no HTTP and no flags; the packages below it (source, store, index,
// search, daemon) speak these types so that none of them imports another
// just for a type, and package api gives each answer its wire form.
package ragd

import "errors"

// Sentinel errors. Packages wrap them with what failed and with what input;
// callers test them with errors.Is, and the daemon maps them to statuses in
// one place.
var (
	// ErrNotFound means the thing asked for (a project, an event, a search,
	// a chunk) does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists means a project with that name or path is already registered.
	ErrExists = errors.New("already exists")
	// ErrInvalid means a request broke an input rule.
	ErrInvalid = errors.New("invalid request")
	// ErrUnavailable means the database could not be reached (a server
	// engine's connection refused or lost): the request may succeed later,
	// and the call that failed wrote nothing.
	ErrUnavailable = errors.New("database unavailable")
	// ErrIndexCorrupt means a project's index was found corrupt on disk
	// (the SQLite engine's FTS5 table): searches of that project fail
	// until a reindex rebuilds it.
	ErrIndexCorrupt = errors.New("index corrupt")
	// ErrVectorsUnavailable means the database cannot hold or compare
	// vectors now (PostgreSQL's vector extension dropped under the
	// daemon): searches answer lexical-only, saying so.
	ErrVectorsUnavailable = errors.New("vectors unavailable")
	// ErrInvalidEvent is wrapped by the errors of Event.Validate and of the
	// event file parsers.
	ErrInvalidEvent = errors.New("invalid event")
	// ErrEventConflict means an event id is already stored with other content.
	ErrEventConflict = errors.New("event id already stored with other content")
	// ErrAlreadyRunning means a reindex of the project is in progress.
	ErrAlreadyRunning = errors.New("reindex already running")

	// The store engines' errors (package store, store/postgres), declared
	// once so that errors.Is answers the same on every engine.

	// ErrSchemaTooNew means the database was migrated by a newer ragd.
	ErrSchemaTooNew = errors.New("database schema is newer than this ragd")
	// ErrSpaceMismatch means the database's vectors belong to another
	// embedding space than the configured one.
	ErrSpaceMismatch = errors.New("database vectors belong to another embedding space")
	// ErrBadVector reports a vector an engine refuses: wrong length, NaN,
	// Inf or zero norm.
	ErrBadVector = errors.New("bad vector")
)

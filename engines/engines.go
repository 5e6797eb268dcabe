// Package engines opens ragd's store engines: Open takes a database value
// (a SQLite file's path or a server's URL) and one engine.Options, and
// dispatches by the value's scheme (ragd.DatabaseScheme) through the
// registry below. The daemon's command, eval, ragd-bench and the test
// harness all open their database here.
//
// A new engine is its package (implementing engine.Store, passing
// internal/storetest), its opener (a file here mapping engine.Options onto
// the package's own) and its line in registry.
package engines

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
)

// registry maps a database value's scheme to the opener of its engine; ""
// is a plain path.
var registry = map[string]engine.Opener{
	"":           openSQLite,
	"postgres":   openPostgres,
	"postgresql": openPostgres,
}

// ErrUnknownScheme means a database value is a URL of a scheme no engine
// opens.
var ErrUnknownScheme = errors.New("unknown scheme")

// Open opens database on the engine of its scheme: a plain path is a
// SQLite file, a postgres:// or postgresql:// URL a PostgreSQL database.
// Any other scheme is refused before anything is created.
func Open(ctx context.Context, database string, opt engine.Options) (engine.Store, error) {
	open, err := Lookup(database)
	if err != nil {
		return nil, err
	}
	return open(ctx, database, opt)
}

// Lookup returns the opener of database's engine, or an error wrapping
// ErrUnknownScheme that names the value (its password hidden) and the
// accepted forms, so that a URL is never taken for a file's path.
func Lookup(database string) (engine.Opener, error) {
	scheme := ragd.DatabaseScheme(database)
	if open, ok := registry[scheme]; ok {
		return open, nil
	}
	return nil, fmt.Errorf("database %q: %w %q: give the path of a SQLite file (a file whose name has a colon is written ./NAME) or a URL of %s",
		ragd.RedactDatabase(database), ErrUnknownScheme, scheme, strings.Join(URLs(), ", "))
}

// URLs lists the URL forms the engines accept ("postgres://…"), sorted.
func URLs() []string {
	var out []string
	for scheme := range registry {
		if scheme != "" {
			out = append(out, scheme+"://…")
		}
	}
	slices.Sort(out)
	return out
}

// nilOnError returns a nil interface, not an interface holding a nil
// store, when opening failed.
func nilOnError[S engine.Store](st S, err error) (engine.Store, error) {
	if err != nil {
		return nil, err
	}
	return st, nil
}

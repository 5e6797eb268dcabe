package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// The SQLite store is an engine the daemon can run on.
var (
	_ daemon.Store        = (*store.Store)(nil)
	_ daemon.VecVersioner = (*store.Store)(nil)
	_ search.Store        = (*store.Store)(nil)
	_ index.Store         = (*store.Store)(nil)
	_ index.BackfillStore = (*store.Store)(nil)
)

// engines opens, by URL scheme, the databases that are not a plain path (a
// SQLite file, openSQLite). An engine's package adds its opener here.
var engines = map[string]daemon.Opener{
	"postgres":   notBuiltIn("postgres"),
	"postgresql": notBuiltIn("postgres"),
}

// notBuiltIn is the opener of an engine this build lacks.
func notBuiltIn(name string) daemon.Opener {
	return func(context.Context, string, daemon.EngineOptions) (daemon.Store, error) {
		return nil, fmt.Errorf("%s engine not built in", name)
	}
}

// chooseEngine returns the opener of database ([daemon] database,
// RAGD_DB): a plain path is a SQLite file; a URL goes to the engine of its
// scheme; any other scheme is refused, before anything is created.
func chooseEngine(database string) (daemon.Opener, error) {
	scheme := daemon.DatabaseScheme(database)
	if scheme == "" {
		return openSQLite, nil
	}
	if open, ok := engines[scheme]; ok {
		return open, nil
	}
	return nil, fmt.Errorf("daemon.database (RAGD_DB) %q: unknown scheme %q: give the path of a SQLite file (a file whose name has a colon is written ./NAME) or a URL of %s",
		daemon.DisplayDatabase(database), scheme, strings.Join(engineURLs(), ", "))
}

// engineURLs lists the URL forms engines accept, sorted.
func engineURLs() []string {
	var out []string
	for scheme := range engines {
		out = append(out, scheme+"://…")
	}
	slices.Sort(out)
	return out
}

// openSQLite opens the SQLite store at path.
func openSQLite(ctx context.Context, path string, opt daemon.EngineOptions) (daemon.Store, error) {
	vectors, err := store.ParseVectorMode(opt.Vectors)
	if err != nil {
		return nil, fmt.Errorf("config [search]: %w", err)
	}
	s, err := store.Open(ctx, path, store.Options{
		Space: opt.Space, Dims: opt.Dims, ResetSpace: opt.ResetSpace, Logger: opt.Logger, Vectors: vectors})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// permissionWarnings says, for ragd doctor, what of the database other
// users can reach, each with the chmod that fixes it: for a SQLite file; a
// server's database is the server's to guard.
func permissionWarnings(database string) []string {
	if daemon.DatabaseScheme(database) != "" {
		return nil
	}
	return store.PermissionWarnings(database)
}

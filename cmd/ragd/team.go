package main

import (
	"context"
	"fmt"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
)

// teamStore is an engine several people share, whose admin sets a team up
// (the PostgreSQL engine).
type teamStore interface {
	TeamInit(ctx context.Context) error
	TeamAdd(ctx context.Context, role string) error
}

var teamCommand = command{
	name:    "team",
	summary: "make a PostgreSQL database a team's (its admin): team init, team add ROLE",
	usage: `Usage: ragd team init [flags]
       ragd team add ROLE [flags]

For a team on one PostgreSQL database, run by the admin role that owns
ragd's tables. init (once) creates the schema, the vector column of the
configured embedding space, and the group role ragd_member, which may read
and write rows but change no table. add grants it to ROLE, an existing
login role (CREATE ROLE alice LOGIN PASSWORD '…'). Each member's daemon then
connects as their own role: row-level security lets a role read its own
sessions, searches and votes and what others shared; docs and ADRs are
everyone's. Both are safe to run again.
`,
	examples: `  ragd team init --database postgres://admin@db.internal:5432/ragd
  ragd team add alice --database postgres://admin@db.internal:5432/ragd
`,
	run: cmdTeam,
}

func cmdTeam(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	var database string
	fs.StringVar(&database, "database", "", "the database, as its admin role: a postgres:// URL (default: [daemon] database, RAGD_DB)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 1 && pos[0] == "init", len(pos) == 2 && pos[0] == "add":
	default:
		return usageError{"want `ragd team init` or `ragd team add ROLE`"}
	}
	cfg, paths, err := e.load()
	if err != nil {
		return err
	}
	if database == "" {
		database = paths.Database
	}
	if s := domain.DatabaseScheme(database); s != "postgres" && s != "postgresql" {
		return fmt.Errorf("ragd team: database %q is not a PostgreSQL URL: give --database postgres://ADMIN@HOST/DB (a SQLite file is one person's)",
			domain.RedactDatabase(database))
	}
	space := embedding.SpaceFor(cfg.Embedding.Service(nil))
	opened, err := engines.Open(ctx, database, engine.Options{Space: space.String(), Dims: space.Dims, MaxConns: 2})
	if err != nil {
		return err
	}
	defer opened.Close()
	s, ok := opened.(teamStore)
	if !ok {
		return fmt.Errorf("ragd team: the engine of %s keeps no team", opened.Path())
	}
	if pos[0] == "init" {
		if err := s.TeamInit(ctx); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "team database ready: %s (embedding space %s); add each member with `ragd team add ROLE`\n", opened.Path(), space)
		return nil
	}
	if err := s.TeamAdd(ctx, pos[1]); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s is a member of %s: their daemon connects as %s, its sessions their own\n", pos[1], opened.Path(), pos[1])
	return nil
}

package engines

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/store/postgres"
)

// The PostgreSQL store implements the contract, with checks of its own for
// ragd doctor.
var (
	_ engine.Store   = (*postgres.Store)(nil)
	_ engine.Checker = (*postgres.Store)(nil)
)

// openPostgres opens the PostgreSQL store at the URL database. The
// password comes from the URL, PGPASSWORD or a password file (PGPASSFILE,
// else ~/.pgpass), the connection's other settings from the URL,
// PGSERVICEFILE's service and the PG* variables, as pgx reads them.
//
// The pool holds opt.MaxConns connections, else the URL's pool_max_conns
// (pgx's parameter), else postgres.DefaultMaxConns. A password file or a service file
// that others may read is refused, before any connection.
func openPostgres(ctx context.Context, database string, opt engine.Options) (engine.Store, error) {
	if err := checkCredentialFiles(database, os.Getenv); err != nil {
		return nil, err
	}
	conns := opt.MaxConns
	if conns == 0 {
		var err error
		if conns, err = poolSize(database); err != nil {
			return nil, err
		}
	}
	return nilOnError(postgres.Open(ctx, database, postgres.Options{
		Space: opt.Space, Dims: opt.Dims, ResetSpace: opt.ResetSpace, Logger: opt.Logger,
		Owner: opt.Owner, ShareSessions: opt.ShareSessions, MaxConns: conns}))
}

// poolSize returns the pool size database's pool_max_conns asks for, 0
// (the engine's default) without one.
func poolSize(database string) (int32, error) {
	u, err := url.Parse(database)
	if err != nil {
		return 0, nil // the engine says what is wrong with the URL
	}
	v := u.Query().Get("pool_max_conns")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("database %s: pool_max_conns %q: want a number of connections, 1 or more",
			ragd.RedactDatabase(database), v)
	}
	return int32(n), nil
}

// checkCredentialFiles refuses the files pgx would read a password from
// for database when others than the user may read them: the password file
// (the URL's passfile, else PGPASSFILE, else ~/.pgpass), read when neither
// the URL nor PGPASSWORD gives a password, and the service file (the URL's
// servicefile, else PGSERVICEFILE, else ~/.pg_service.conf) when a service
// is named, since one may hold a password too. libpq ignores such a
// password file with a warning; the daemon says how to fix it instead. A
// file that does not exist is no error: pgx reads none.
func checkCredentialFiles(database string, getenv func(string) string) error {
	u, err := url.Parse(database)
	if err != nil {
		return nil // the engine says what is wrong with the URL
	}
	q := u.Query()
	first := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	home, _ := os.UserHomeDir()
	inHome := func(name string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(home, name)
	}
	_, urlPassword := u.User.Password()
	if !urlPassword && !q.Has("password") && getenv("PGPASSWORD") == "" {
		if err := privateFile("password file", first(q.Get("passfile"), getenv("PGPASSFILE"), inHome(".pgpass"))); err != nil {
			return err
		}
	}
	if first(q.Get("service"), getenv("PGSERVICE")) != "" {
		if err := privateFile("service file", first(q.Get("servicefile"), getenv("PGSERVICEFILE"), inHome(".pg_service.conf"))); err != nil {
			return err
		}
	}
	return nil
}

// privateFile fails when the file at path exists and its group or others
// may read or write it.
func privateFile(what, path string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil // absent or unreadable: pgx reads nothing from it
	}
	if mode := fi.Mode().Perm(); mode&0o077 != 0 {
		return fmt.Errorf("PostgreSQL %s %s may hold a password and others can read it (mode %04o): run `chmod 600 %s`",
			what, path, mode, path)
	}
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Servers whose connections share one session. pgx's default query mode
// prepares each statement once per connection under a name made from its
// SQL; where two connections reach one session — PGlite (PostgreSQL in
// WebAssembly, one backend for every connection) or a pooler in
// transaction mode (PgBouncer before 1.21's max_prepared_statements) — the
// second connection's PREPARE finds the name taken (SQLSTATE 42P05,
// "prepared statement ... already exists"), or a statement prepared on one
// backend is executed on another (26000, "... does not exist"). The URL's
// default_query_exec_mode chooses another mode; Open chooses pgx's simple
// protocol by itself when the server says it is PGlite and the URL names
// no mode, and an error of the class says what to add to the URL.

// execModeParam is pgx's URL parameter for its query mode.
const execModeParam = "default_query_exec_mode"

// sharedSessionFix is what an error of a shared session tells the user.
const sharedSessionFix = "the server shares sessions between connections (PGlite, or a pooler such as PgBouncer in " +
	"transaction mode): add " + execModeParam + "=simple_protocol (or =exec) to the database URL"

// SQLSTATEs of a prepared statement that one connection's session does not
// hold as pgx expects.
const (
	codeDuplicatePrepared = "42P05" // duplicate_prepared_statement
	codeInvalidStatement  = "26000" // invalid_sql_statement_name
)

// chooseExecMode sets the pool's query mode to the simple protocol when the
// URL names no mode and the server is PGlite (its version string says it
// was compiled to WebAssembly). It costs one connection at Open.
func chooseExecMode(ctx context.Context, rawURL string, cfg *pgxpool.Config) error {
	if u, err := url.Parse(rawURL); err == nil && u.Query().Has(execModeParam) {
		return nil
	}
	conf := cfg.ConnConfig.Copy()
	conf.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, conf)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	var version string
	if err := c.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return err
	}
	if isPGlite(version) {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	return nil
}

// isPGlite reports whether version (SELECT version()) is PGlite's:
// "PostgreSQL 17.5 on wasm32-unknown-linux-gnu, compiled by emcc …".
func isPGlite(version string) bool {
	return strings.Contains(version, "wasm32") || strings.Contains(version, "compiled by emcc")
}

// sharedSessionError wraps err with sharedSessionFix when it is of the
// shared-session class, and returns it unchanged otherwise.
func sharedSessionError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == codeDuplicatePrepared || pgErr.Code == codeInvalidStatement) {
		return fmt.Errorf("%w (%s)", err, sharedSessionFix)
	}
	return err
}

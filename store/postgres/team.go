package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A team on one database, with privacy the database enforces (issue 33).
// The admin role that owns the tables runs TeamInit once (`ragd team
// init`): the schema (migrations, the vector column), and MemberRole, a
// group role holding the members' privileges — reading and writing rows,
// never DDL. TeamAdd grants it to a member's login role (`ragd team add
// ROLE`). Migration 0002's row-level security policies then let a member
// read only its own session rows and what their owners shared; a store
// connected as a member writes current_user as the owner of its rows and
// refuses another configured owner (ErrOwnerMismatch). The tables' owner
// and superusers bypass row security: a database one person uses as its
// owner works as before, its owner the configured one.

// MemberRole is the group role of a team's members.
const MemberRole = "ragd_member"

// Errors of a team database.
var (
	// ErrOwnerMismatch means the configured owner is not the role the
	// store connected as, on a database that enforces row security.
	ErrOwnerMismatch = errors.New("the configured owner is not the database role")
	// ErrNotMember means the role may not read ragd's tables.
	ErrNotMember = errors.New("the database role is not a member of the ragd team")
)

// codeInsufficientPrivilege is SQLSTATE insufficient_privilege.
const codeInsufficientPrivilege = "42501"

// isPermissionDenied reports whether err is the server refusing a
// privilege.
func isPermissionDenied(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == codeInsufficientPrivilege
}

// ErrNoVector means the database lacks pgvector's extension and the
// store could not create it.
var ErrNoVector = errors.New("the database has no vector extension (pgvector)")

// codeFeatureNotSupported is SQLSTATE feature_not_supported: CREATE
// EXTENSION of an extension the server does not have installed.
const codeFeatureNotSupported = "0A000"

// memberError says what to do when err is the vector extension missing
// or the connected role lacking the member grant, and returns err
// unchanged otherwise.
func (s *Store) memberError(ctx context.Context, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && strings.Contains(pgErr.Message, `extension "vector"`) {
		if pgErr.Code == codeFeatureNotSupported || strings.Contains(pgErr.Message, "not available") {
			return fmt.Errorf("open store %s: %w: pgvector is not installed on the server: install it (0.8 or newer; Debian and Ubuntu: the postgresql-NN-pgvector package), then a superuser runs CREATE EXTENSION vector in the database (%w)",
				s.url, ErrNoVector, err)
		}
		return fmt.Errorf("open store %s: %w, and this role may not create it: a superuser runs CREATE EXTENSION vector in the database, then ragd opens it (%w)",
			s.url, ErrNoVector, err)
	}
	if !isPermissionDenied(err) {
		return err
	}
	role := "?"
	s.pool.QueryRow(ctx, "SELECT current_user").Scan(&role)
	return fmt.Errorf("open store %s: %w: role %q: an admin runs `ragd team init` once, then `ragd team add %s` (%w)",
		s.url, ErrNotMember, role, role, err)
}

// rowSecurity reports the role the store connected as, and whether row
// security applies to it (it neither owns the tables nor bypasses it).
func (s *Store) rowSecurity(ctx context.Context) (role string, applies bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT current_user::text,
		NOT (c.relowner = r.oid OR r.rolsuper OR r.rolbypassrls)
		FROM pg_class c, pg_roles r WHERE c.oid = 'chunks'::regclass AND r.rolname = current_user`).Scan(&role, &applies)
	if err != nil {
		return "", false, s.describe("read the database role", err)
	}
	return role, applies, nil
}

// settleOwner makes the store's owner the connected role when row security
// applies to it, refusing a configured owner that is another name;
// configured is the Options.Owner given ("" when none was).
func (s *Store) settleOwner(ctx context.Context, configured string) error {
	role, applies, err := s.rowSecurity(ctx)
	if err != nil {
		return err
	}
	if !applies {
		return nil
	}
	s.rowSecure = true
	if configured != "" && configured != role {
		return fmt.Errorf("open store %s: %w: owner %q, connected as role %q: on a team database a member's sessions are their role's; "+
			"remove [daemon] owner from the configuration, or connect as %q", s.url, ErrOwnerMismatch, configured, role, configured)
	}
	s.owner = role
	return nil
}

// TeamInit makes the database a team's: it creates MemberRole when missing
// and grants it the use of the store's schema, its tables (rows only: the
// migrations' row security decides which) and sequences. Run by the role
// that owns the tables (the one that opened the store first), with
// CREATEROLE; running it again changes nothing.
func (s *Store) TeamInit(ctx context.Context) error {
	_, applies, err := s.rowSecurity(ctx)
	if err != nil {
		return err
	}
	if applies {
		return fmt.Errorf("team init on %s: the role does not own ragd's tables: run it as the admin role that created them", s.url)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.describe("team init: begin", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
		return s.describe("team init: lock", err)
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", MemberRole).Scan(&exists); err != nil {
		return s.describe("team init: look up "+MemberRole, err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, "CREATE ROLE "+MemberRole+" NOLOGIN"); err != nil {
			return s.describe("team init: create role "+MemberRole+" (the admin role needs CREATEROLE)", err)
		}
	}
	var schema string
	if err := tx.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return s.describe("team init: current schema", err)
	}
	sch := pgx.Identifier{schema}.Sanitize()
	for _, q := range []string{
		"GRANT USAGE ON SCHEMA " + sch + " TO " + MemberRole,
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + sch + " TO " + MemberRole,
		// The schema's version and the embedding space are the admin's.
		"REVOKE INSERT, UPDATE, DELETE ON schema_version, meta FROM " + MemberRole,
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA " + sch + " TO " + MemberRole,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return s.describe("team init: "+q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.describe("team init: commit", err)
	}
	return nil
}

// TeamAdd grants MemberRole to role, an existing login role; granting it
// again changes nothing.
func (s *Store) TeamAdd(ctx context.Context, role string) error {
	if role == "" || strings.ContainsRune(role, 0) {
		return fmt.Errorf("team add: role %q: want a role's name", role)
	}
	var login, exists, member bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1),
		coalesce((SELECT rolcanlogin FROM pg_roles WHERE rolname = $1), false),
		EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2)`, role, MemberRole).Scan(&exists, &login, &member)
	if err != nil {
		return s.describe("team add: look up role "+role, err)
	}
	if !member {
		return fmt.Errorf("team add %s on %s: no role %s: run `ragd team init` first", role, s.url, MemberRole)
	}
	if !exists {
		return fmt.Errorf("team add on %s: no role %q: create it first (CREATE ROLE %s LOGIN PASSWORD '…')", s.url, role, pgx.Identifier{role}.Sanitize())
	}
	if !login {
		return fmt.Errorf("team add on %s: role %q cannot log in: ALTER ROLE %s LOGIN", s.url, role, pgx.Identifier{role}.Sanitize())
	}
	if _, err := s.pool.Exec(ctx, "GRANT "+MemberRole+" TO "+pgx.Identifier{role}.Sanitize()); err != nil {
		return s.describe("team add: grant "+MemberRole+" to "+role, err)
	}
	return nil
}

// foreignOwner stands for the owner of a session or event row security
// hides: another owner, unnamed.
const foreignOwner = "\x00another owner"

// addForeignIDs adds to known and sessions the ids among events and
// sessionIDs another owner holds where row security hid them, as another
// owner's (their content unread), so that an append naming them is a
// conflict as it is where the store sees every row.
func (s *Store) addForeignIDs(ctx context.Context, tx pgx.Tx, projectID int64, sessionIDs, events []string,
	known map[string]storedEvent, sessions map[string]*sessionState) error {
	if !s.rowSecure {
		return nil
	}
	rows, err := tx.Query(ctx, "SELECT kind, id FROM ragd_foreign_ids($1, $2, $3, $4)", projectID, s.owner, sessionIDs, events)
	if err != nil {
		return fmt.Errorf("ids other owners hold: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, id string
		if err := rows.Scan(&kind, &id); err != nil {
			return fmt.Errorf("ids other owners hold: %w", err)
		}
		switch _, seen := sessions[id]; {
		case kind == "session" && !seen:
			sessions[id] = &sessionState{owner: foreignOwner}
		case kind == "event":
			if _, ok := known[id]; !ok {
				known[id] = storedEvent{owner: foreignOwner}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ids other owners hold: %w", err)
	}
	return nil
}

// Package postgres is ragd's PostgreSQL engine: the same store as package
// store's SQLite one, on a server a team shares. Chunks keep their vector
// in pgvector (HNSW, cosine) and their analysed text in a tsvector (GIN,
// each term's ts_rank weighed by its idf); a search's queries run in one REPEATABLE READ READ ONLY
// transaction.
//
// The vector column. A database holds one embedding space, as the SQLite
// engine's file does: its name and length are recorded in the meta table,
// and the first Open adds chunks.embedding vector(dims) with its HNSW
// index (an HNSW index needs a typed length, so the column cannot be in
// the migrations). Keeping the vector in the chunks row lets one scan
// filter by project, scope and owner while it walks the index (pgvector
// 0.8's iterative scan, set per snapshot). Opening with another space
// fails with ragd.ErrSpaceMismatch while any vector is held; Options.ResetSpace
// drops the column and every vector, and adds the new space's column.
//
// The lexical column. chunks.tsv is to_tsvector('simple', …) of the text
// package lexical analysed in the project's language, exactly the title,
// headings and content SQLite's FTS5 table gets, so both engines match
// the same chunks for the same query; 'simple' adds no analysis of its own.
// A query is rendered as a tsquery of quoted lexemes (lexical.go) and
// ranked by Σ idf · ts_rank of its terms (rank.go: bm25's idf from the
// snapshot's counts, title, headings and content weighed alike); no term
// is left out as too frequent (ragd.LexicalMatches.Dropped is nil).
//
// A team. Projects are keyed by name: one shared index of a repository's
// docs and ADRs, each owner's local path kept beside it. Options.Owner is
// written on sessions, their events and chunks, index runs, searches and
// votes; a snapshot returns a session chunk only to its owner, or to
// anyone when it is shared. ReplaceScope takes a transaction-scoped
// advisory lock on (project, scope), so two daemons' reindexes of one scope
// serialise instead of mixing.
//
// Connections. Every write is one transaction on one connection, so a
// connection lost midway leaves nothing half-written (the server rolls
// back); the call fails with an error wrapping ErrConnection, and the
// pool dials again at the next call. Options.MaxConns bounds the pool:
// a Snapshot holds one connection until closed, a write another.
//
// PGlite (PostgreSQL 17 in WebAssembly, served by pglite-server, the
// tests' server before a real one) differs from a real server in three
// ways that matter here, found on 0.4.6 with pglite-socket 0.1.6: it
// accepts -m connections (1 by default; one more is closed at once, which
// pgx reports as an unexpected EOF); all of them share ONE backend
// session, so session state is common (SET, prepared statements: Open
// chooses pgx's simple protocol when the server says it is PGlite, see
// sharedsession.go); and while one connection has a transaction open,
// every other connection's query waits until it ends. So on PGlite a write waits for
// an open snapshot, and code that holds a snapshot while it calls the
// store on another connection deadlocks. It ignores a connection's
// startup parameters (the URL's search_path). A connection that drops
// inside a transaction has it rolled back, as on a server.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxvec "github.com/pgvector/pgvector-go/pgx"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/migrations"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Defaults for Options.
const (
	// DefaultMaxConns is the pool size when Options.MaxConns is 0: a
	// daemon's concurrent searches and one writer, without holding many of
	// a shared server's connections.
	DefaultMaxConns = 8
	// maxDims is the longest vector accepted: pgvector's HNSW index takes
	// up to 2,000 dimensions of type vector.
	maxDims = 2000
)

// The HNSW graph's build parameters (pgvector's defaults: m 16,
// ef_construction 64). A write inserts each new chunk into the graph row
// by row, and with m 16 that was nearly all of a write's time: on 10k
// random unit vectors of 768 dims, 9.5–13.5 ms a row; with m 8 and
// ef_construction 48, 2.0–2.8 ms (1,000 rows inserted in psql, rolled back,
// load 8–10; docs/engines.md, branch pgq). m bounds each element's
// neighbours (2m in the bottom layer), and an insert updates each new
// neighbour's list, pruned by distances among them: its cost grows about
// with m². The sparser graph needs a longer search for the same recall
// (minEfSearch, hnswSearchFactor): recall@12 0.971 at ef_search 80 on real
// embeddings, against 0.974 at 48 with m 16. ef_construction 32 inserted
// no faster at m 8, and recall@12 at 80 was 0.946. A database whose
// graph was built before keeps its parameters until an admin rebuilds it
// (docs/engines.md).
const (
	hnswM              = 8
	hnswEfConstruction = 48
)

// Errors callers branch on, beside the domain's (ragd.ErrSchemaTooNew,
// ragd.ErrSpaceMismatch, ragd.ErrBadVector). Each is wrapped with the
// database and what to do.
var (
	// ErrConnection means the server could not be reached or the
	// connection was lost: nothing was written by the call that failed.
	// It wraps ragd.ErrUnavailable, which the daemon answers with a 503.
	ErrConnection = fmt.Errorf("database connection failed (%w)", ragd.ErrUnavailable)
	// ErrSchemaGone means the server answers but ragd's tables or the
	// right to use them are gone: the database was dropped and recreated
	// empty, the schema dropped, or the role's privileges revoked under a
	// running daemon. It wraps ragd.ErrUnavailable: every request fails
	// alike until the database is restored (or ragd restarted on an empty
	// one, which creates the schema), so none is the daemon's own failure.
	ErrSchemaGone = fmt.Errorf("ragd's tables are missing or not accessible: was the database recreated, "+
		"or the role's privileges revoked? Restore it, or restart ragd to create the schema in an empty one (%w)", ragd.ErrUnavailable)
)

// ErrVectorsGone means the vector extension (pgvector), and with it the
// vector column, went away under a running daemon (DROP EXTENSION vector
// CASCADE): searches answer lexical-only; Open creates the extension
// again, or says how to, and repairs the schema.
var ErrVectorsGone = fmt.Errorf("the database's vector extension (pgvector) is gone: searches are lexical-only until it is back "+
	"(CREATE EXTENSION vector in the database, then restart ragd: it repairs the schema) (%w)", ragd.ErrVectorsUnavailable)

// vectorsGone reports whether pgErr is a statement failing for want of
// pgvector: the vector column, type or operator undefined.
func vectorsGone(pgErr *pgconn.PgError) bool {
	msg := pgErr.Message
	switch pgErr.Code {
	case "42703": // undefined_column
		return strings.Contains(msg, "embedding") || strings.Contains(msg, "vector")
	case "42704", "42883": // undefined_object (the type), undefined_function (<=>)
		return strings.Contains(msg, "vector") || strings.Contains(msg, "<=>")
	}
	return false
}

// schemaGoneCodes are the SQLSTATEs of a statement on a database whose
// ragd schema or privileges went away: undefined_table,
// invalid_schema_name, insufficient_privilege, invalid_catalog_name.
var schemaGoneCodes = []string{"42P01", "3F000", "42501", "3D000"}

// Options configure Open.
type Options struct {
	// Space names the embedding space of the vectors (model/dims). Required.
	Space string
	// Dims is the vector length of Space. Required: 1 to 2,000.
	Dims int
	// Owner is whose sessions, runs, searches and votes this store writes,
	// and whose session chunks its snapshots return. Optional: the OS user.
	// Connected as a team member (row security applies: team.go), the
	// owner is the role, and another name given here is refused.
	Owner string
	// ShareSessions marks the sessions (and their chunks) this store
	// writes as shared: every owner's searches find them.
	ShareSessions bool
	// MaxConns is the connection pool's size. Optional: DefaultMaxConns.
	MaxConns int32
	// Logger. Optional: slog.Default().
	Logger *slog.Logger
	// ResetSpace drops every stored vector when the database holds another
	// space, instead of refusing to open. Chunks stay (lexical search keeps
	// working) until a reindex or the fill gives them vectors of the new
	// space.
	ResetSpace bool
}

// Store is an open ragd database on a PostgreSQL server. It is safe for
// concurrent use.
type Store struct {
	pool   *pgxpool.Pool
	url    string // redacted: no password
	space  string
	dims   int
	owner  string
	share  bool
	logger *slog.Logger
	// rowSecure is set when row security applies to the connected role
	// (a team member: team.go).
	rowSecure bool
	// iterative is set when pgvector has iterative index scans (0.8):
	// a filtered HNSW search then finds k rows whenever k exist.
	iterative bool

	// stats are the lexical ranking's statistics kept across snapshots
	// (rank.go).
	stats statsCache

	// afterLock, when set (tests only), runs in ReplaceScope's transaction
	// right after the scope's lock is taken.
	afterLock func(ctx context.Context, tx pgx.Tx) error
}

// Open connects to the database at rawURL (postgres:// or postgresql://),
// applies pending migrations and makes sure the vector column matches the
// configured embedding space. The password may come from the URL, from
// PGPASSWORD or from a ~/.pgpass file (pgx reads both).
func Open(ctx context.Context, rawURL string, opt Options) (_ *Store, err error) {
	shown := ragd.RedactDatabase(rawURL)
	if opt.Space == "" {
		return nil, fmt.Errorf("open store %s: no embedding space given", shown)
	}
	if opt.Dims < 1 || opt.Dims > maxDims {
		return nil, fmt.Errorf("open store %s: embedding dimensions %d out of range 1..%d (pgvector's HNSW limit)", shown, opt.Dims, maxDims)
	}
	if opt.MaxConns < 0 {
		return nil, fmt.Errorf("open store %s: %d connections: want 0 (the default) or more", shown, opt.MaxConns)
	}
	if opt.MaxConns == 0 {
		opt.MaxConns = DefaultMaxConns
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	configuredOwner := opt.Owner
	if opt.Owner == "" {
		opt.Owner = osUser()
	}
	cfg, err := parseConfig(rawURL)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = opt.MaxConns
	if err := chooseExecMode(ctx, rawURL, cfg); err != nil {
		return nil, describeAt(shown, "open store", err)
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		// The vector type's OID differs per database: registered per
		// connection, once the extension exists (migration 1 creates it).
		var has bool
		if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'vector')").Scan(&has); err != nil {
			return err
		}
		if !has {
			return nil
		}
		return pgxvec.RegisterTypes(ctx, c)
	}
	s := &Store{url: shown, space: opt.Space, dims: opt.Dims, owner: opt.Owner, share: opt.ShareSessions,
		logger: opt.Logger.With("system", "store", "engine", "postgres")}
	s.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", shown, err)
	}
	defer func() {
		if err != nil {
			s.pool.Close()
		}
	}()
	if err := s.pool.Ping(ctx); err != nil {
		return nil, s.describe("open store", err)
	}
	if err := s.migrate(ctx); err != nil {
		return nil, s.memberError(ctx, err)
	}
	if err := s.ensureVectorExtension(ctx); err != nil {
		return nil, err
	}
	if err := s.registerVector(ctx); err != nil {
		return nil, err
	}
	if err := s.ensureSpace(ctx, opt.ResetSpace); err != nil {
		return nil, s.memberError(ctx, err)
	}
	if err := s.settleOwner(ctx, configuredOwner); err != nil {
		return nil, err
	}
	v, err := s.VectorVersion(ctx)
	if err != nil {
		return nil, err
	}
	s.iterative = versionAtLeast(v, 0, 8)
	return s, nil
}

// ensureVectorExtension puts back what DROP EXTENSION vector CASCADE took
// under an earlier daemon: the extension (created again when the role
// may, else an error saying how), then the vector columns it dropped, whose
// vectors are gone: the chunks are marked without one (the background fill
// embeds them again), the embedding cache is emptied, and the space is
// forgotten so that ensureSpace adds the column and its index again.
func (s *Store) ensureVectorExtension(ctx context.Context) error {
	var has bool
	if err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')").Scan(&has); err != nil {
		return s.describe("look for the vector extension", err)
	}
	if !has {
		if _, err := s.pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
			return fmt.Errorf("open store %s: %w, and creating it failed: %w; "+
				"run `CREATE EXTENSION vector;` in this database as its owner or a superuser (pgvector must be installed on the server), "+
				"then start ragd again", s.url, ErrNoVector, err)
		}
		s.logger.Warn("the vector extension was missing: created it again", "database", s.url)
	}
	column := func(table, name string) (bool, error) {
		var ok bool
		err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2)`, table, name).Scan(&ok)
		return ok, err
	}
	var space string
	if err := s.pool.QueryRow(ctx, "SELECT coalesce((SELECT value FROM meta WHERE key = 'space'), '')").Scan(&space); err != nil {
		return s.describe("read embedding space", err)
	}
	chunks, err := column("chunks", "embedding")
	if err != nil {
		return s.describe("look for the vector column", err)
	}
	cache, err := column("embedding_cache", "vector")
	if err != nil {
		return s.describe("look for the embedding cache's vector column", err)
	}
	var repairs []string
	if space != "" && !chunks {
		repairs = append(repairs, "UPDATE chunks SET embedding_space = NULL WHERE embedding_space IS NOT NULL",
			"DELETE FROM meta WHERE key IN ('space', 'dims')")
	}
	if !cache {
		repairs = append(repairs, "DELETE FROM embedding_cache", "ALTER TABLE embedding_cache ADD COLUMN vector vector NOT NULL")
	}
	if len(repairs) == 0 {
		return nil
	}
	s.logger.Warn("repairing the schema after the vector extension was dropped: the vectors are filled again in the background", "database", s.url)
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.describe("repair the vector columns: begin", err)
	}
	defer tx.Rollback(ctx)
	for _, q := range repairs {
		if _, err := tx.Exec(ctx, q); err != nil {
			return s.describe("repair the vector columns: "+q, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return s.describe("repair the vector columns: commit", err)
	}
	return nil
}

// registerVector registers pgvector's types on the pool's idle
// connections, which were opened before migration 1 created the extension
// (later ones register in AfterConnect). Closing them instead would make
// the pool reconnect, which a one-connection server refuses until it has
// seen the close.
func (s *Store) registerVector(ctx context.Context) error {
	for _, c := range s.pool.AcquireAllIdle(ctx) {
		err := pgxvec.RegisterTypes(ctx, c.Conn())
		c.Release()
		if err != nil {
			return s.describe("register the vector type", err)
		}
	}
	return nil
}

// parseConfig checks the URL's scheme and parses it, with errors that name
// the URL without its password.
func parseConfig(rawURL string) (*pgxpool.Config, error) {
	shown := ragd.RedactDatabase(rawURL)
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("open store %s: not a URL: %w", shown, errors.Unwrap(err))
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, fmt.Errorf("open store %s: scheme %q: want postgres:// or postgresql://", shown, u.Scheme)
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		// pgx's parse errors may quote the connection string: say what is
		// wrong without it.
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) && pe.Unwrap() != nil {
			return nil, fmt.Errorf("open store %s: bad connection URL: %v", shown, pe.Unwrap())
		}
		return nil, fmt.Errorf("open store %s: bad connection URL", shown)
	}
	return cfg, nil
}

func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// describe wraps an error of the server with what failed, saying so when
// the connection is what failed.
func (s *Store) describe(what string, err error) error { return describeAt(s.url, what, err) }

// describeAt is describe for the database shown, before a Store exists.
func describeAt(shown, what string, err error) error {
	if isConnError(err) {
		return fmt.Errorf("%s on %s: %w: %w", what, shown, ErrConnection, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && vectorsGone(pgErr) {
		return fmt.Errorf("%s on %s: %w: %w", what, shown, ErrVectorsGone, err)
	}
	if errors.As(err, &pgErr) && slices.Contains(schemaGoneCodes, pgErr.Code) {
		return fmt.Errorf("%s on %s: %w: %w", what, shown, ErrSchemaGone, err)
	}
	return fmt.Errorf("%s on %s: %w", what, shown, sharedSessionError(err))
}

// isConnError reports whether err is the connection failing rather than
// the server refusing a statement.
func isConnError(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08: connection exception; 57P01..03: the server shutting down.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	}
	var ne net.Error
	var ce *pgconn.ConnectError
	return errors.As(err, &ne) || errors.As(err, &ce) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF")
}

// Path returns the database URL without its password.
func (s *Store) Path() string { return s.url }

// Space returns the embedding space of the store's vectors.
func (s *Store) Space() string { return s.space }

// Dims returns the vector length of the store's embedding space.
func (s *Store) Dims() int { return s.dims }

// Owner returns whose rows this store writes.
func (s *Store) Owner() string { return s.owner }

// Close closes the connection pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// migration is one numbered SQL file of migrations/.
type migration = migrations.File

// loadMigrations reads and orders the embedded migration files, named as
// package migrations names the SQLite engine's (migrations.Load).
func loadMigrations(fsys fs.FS) ([]migration, error) {
	sub, err := fs.Sub(fsys, "migrations")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	return migrations.Load(sub)
}

// migrateLock is the advisory lock key every ragd takes while it migrates
// a database, so that two daemons starting at once apply each migration
// once. Other keys of the engine are (project, scope) pairs, in the
// two-integer key space; this one is in the one-bigint space.
const migrateLock = 0x72616764 // "ragd"

// migrate applies the pending migrations, each in its own transaction
// together with its row in schema_version, and refuses a database that a
// newer ragd has migrated.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		return err
	}
	// A team member's role may not create tables (team.go): ask first.
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass('schema_version') IS NOT NULL").Scan(&exists); err != nil {
		return s.describe("read schema_version", err)
	}
	if exists {
		// Nothing to create.
	} else if _, err := s.pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		if isUniqueViolation(err) {
			// Another daemon created it at the same moment: it exists.
			err = nil
		} else {
			return s.describe("create schema_version", err)
		}
	}
	for {
		applied, err := s.applyNext(ctx, ms)
		if err != nil {
			return err
		}
		if !applied {
			return nil
		}
	}
}

// applyNext applies the first pending migration, holding the migration
// lock, and reports whether there was one.
func (s *Store) applyNext(ctx context.Context, ms []migration) (bool, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return false, s.describe("migrate: begin", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
		return false, s.describe("migrate: lock", err)
	}
	var current int
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&current); err != nil {
		return false, s.describe("read schema version", err)
	}
	if current > len(ms) {
		return false, fmt.Errorf("open store %s: %w: schema version %d, this binary knows up to %d: upgrade ragd, or use another database", s.url, ragd.ErrSchemaTooNew, current, len(ms))
	}
	if current == len(ms) {
		return false, nil
	}
	m := ms[current]
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return false, s.describe("migration "+m.Name, err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO schema_version (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
		return false, s.describe("migration "+m.Name+": record", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, s.describe("migration "+m.Name+": commit", err)
	}
	s.logger.Info("applied migration", "database", s.url, "version", m.Version, "name", m.Name)
	return true, nil
}

// SchemaVersion returns the highest applied migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&v); err != nil {
		return 0, s.describe("read schema version", err)
	}
	return v, nil
}

// ensureSpace makes the vector column match the configured space: added
// at the first Open, kept when the space is the same, replaced (every
// vector dropped) under ResetSpace, refused otherwise.
func (s *Store) ensureSpace(ctx context.Context, reset bool) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.describe("check embedding space: begin", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLock)); err != nil {
		return s.describe("check embedding space: lock", err)
	}
	var space, dims string
	err = tx.QueryRow(ctx, "SELECT (SELECT value FROM meta WHERE key = 'space'), (SELECT value FROM meta WHERE key = 'dims')").Scan(nullString{&space}, nullString{&dims})
	if err != nil {
		return s.describe("read embedding space", err)
	}
	want := strconv.Itoa(s.dims)
	if space == s.space && dims == want {
		return nil
	}
	// An index without a single vector (built lexical-only) has nothing of
	// the old space to lose: it takes the configured one.
	held := false
	if space != "" {
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM chunks WHERE embedding_space IS NOT NULL)").Scan(&held); err != nil {
			return s.describe("count vectors of "+space, err)
		}
	}
	switch {
	case held && !reset:
		return fmt.Errorf("open store %s: %w: it holds %q (%s dims), configured %q (%d dims): configure that model again, "+
			"or use another database, or start ragd once with `ragd serve --reset-vectors` and then reindex: "+
			"that drops the vectors of every project on this database, for everyone who shares it, "+
			"and their daemons answer keyword-only until the vectors are filled again in the new model",
			s.url, ragd.ErrSpaceMismatch, space, dims, s.space, s.dims)
	}
	if space != "" {
		if held {
			s.logger.Warn("dropping every vector: the embedding space changed", "database", s.url, "from", space, "to", s.space)
		} else {
			s.logger.Info("embedding space changed on an index without vectors", "database", s.url, "from", space, "to", s.space)
		}
		for _, q := range []string{
			"DROP INDEX IF EXISTS chunks_embedding",
			"ALTER TABLE chunks DROP COLUMN IF EXISTS embedding",
			"UPDATE chunks SET embedding_space = NULL WHERE embedding_space IS NOT NULL",
			"DELETE FROM unembeddable_chunks",
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return s.describe("reset embedding space: "+q, err)
			}
		}
	}
	for _, q := range []string{
		"ALTER TABLE chunks ADD COLUMN embedding vector(" + want + ")",
		fmt.Sprintf("CREATE INDEX chunks_embedding ON chunks USING hnsw (embedding vector_cosine_ops) WITH (m = %d, ef_construction = %d)",
			hnswM, hnswEfConstruction),
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return s.describe("create vector column: "+q, err)
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('space', $1), ('dims', $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, s.space, want); err != nil {
		return s.describe("record embedding space", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.describe("record embedding space: commit", err)
	}
	return nil
}

// nullString scans a nullable text into a string, NULL as "".
type nullString struct{ p *string }

func (n nullString) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*n.p = ""
	case string:
		*n.p = v
	default:
		return fmt.Errorf("scan %T into a string", src)
	}
	return nil
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// nowUTC is the time every written row is stamped with, from this process:
// the server's clock may differ, and Go's values round-trip exactly at
// microseconds.
func nowUTC() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

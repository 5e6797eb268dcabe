// Package store is ragd's SQLite database: chunks with their vectors in
// sqlite-vec and their text in FTS5, sessions and their events, index runs,
// and the search telemetry.
//
// The store returns raw candidates (chunk id and distance, chunk id and
// bm25); fusing them is the search package's job. Everything that speaks SQL
// lives here, and nothing here speaks HTTP.
//
// A Store holds two connection pools on one file: a single writer connection
// whose transactions start IMMEDIATE (so writers queue on the busy timeout
// instead of failing on a lock upgrade), and a pool of read-only connections
// for searches, which in WAL mode never wait for the writer.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"
	"github.com/ragd/ragd/store/rules"
)

// driverName is go-sqlite3 registered with ragd's per-connection set-up.
const driverName = "ragd_sqlite3"

func init() {
	// Every connection opened by this process gets sqlite-vec: it is linked
	// into the same SQLite build, so no extension loading is involved.
	sqlitevec.Auto()
	// And ragd_bm25, the top-k pass's scoring (lexicalbm25.go).
	if err := registerBM25(); err != nil {
		panic(err)
	}
	sql.Register(driverName, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		// A KNN query reads every vector of the project: 300 MB at 100k x
		// 768. Through SQLite's small default page cache each read is a
		// syscall and a copy; memory-mapped, it runs near memory bandwidth
		// (docs/adr/0003-vector-distance.md has the figures).
		_, err := c.Exec("PRAGMA mmap_size = "+strconv.FormatInt(mmapSize, 10), nil)
		return err
	}})
}

// mmapSize bounds SQLite's memory map of the database file. It reserves
// address space, not memory: pages are shared with the OS page cache.
const mmapSize = 16 << 30

// Defaults for Options.
const (
	// DefaultBusyTimeout is how long a writer waits for another before failing:
	// long enough to sit out a reindex's replace transaction.
	DefaultBusyTimeout = 10 * time.Second
)

// Errors callers branch on, beside the domain's (ragd.ErrSchemaTooNew,
// ragd.ErrSpaceMismatch, ragd.ErrBadVector). Each is wrapped with the path
// and what to do.
var (
	// ErrNotDatabase means the file exists but is not a SQLite database.
	ErrNotDatabase = errors.New("not a SQLite database")
)

// Options configure Open.
type Options struct {
	// Space names the embedding space of the vectors (model/dims), e.g.
	// "nomic-embed-text/768". Required: the embedding package owns the
	// default model, and a store never guesses one.
	Space string
	// Dims is the vector length of Space. Required.
	Dims int
	// ResetSpace drops every stored vector when the database holds another
	// space, instead of refusing to open. Chunks stay (lexical search keeps
	// working) until a reindex fills the vectors of the new space.
	ResetSpace bool
	// ReadConns is the size of the read pool. Optional: GOMAXPROCS, at least 2.
	ReadConns int
	// BusyTimeout for writers. Optional: DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Logger. Optional: slog.Default().
	Logger *slog.Logger
	// Vectors is the vector search mode. Optional: VectorsQuantized.
	Vectors VectorMode
	// QuantizeFrom is the number of a project's vectors from which a
	// quantized store searches it through the codes. Optional: 20,000
	// (below, the exact scan is cheap); 1 searches every project through
	// them (to measure what the codes cost in quality). Vectors shorter
	// than 256 dims are always scanned exactly.
	QuantizeFrom int
}

// Store is an open ragd database. It is safe for concurrent use.
type Store struct {
	path string
	// telemetryPath is the telemetry database beside path.
	telemetryPath string
	space         string
	dims          int
	db            *sql.DB // writer: one connection
	rdb           *sql.DB // readers
	tdb           *sql.DB // the telemetry database: one connection
	logger        *slog.Logger
	// codes are the quantized vectors of VectorsQuantized; nil in exact
	// mode.
	codes     *codeIndex
	stopCodes context.CancelFunc
	projects  projectCache
	// quantizedMin is the project size from which searches use the codes
	// (tests lower it).
	quantizedMin int
	// shortlistFactor and minShortlist are the constants (tests vary them).
	shortlistFactor, minShortlist int

	// failAfterInsert, when set (tests only), is called after each chunk
	// insert of ReplaceScope; an error aborts the replace there.
	failAfterInsert func(n int) error
}

// Open opens or creates the database at path, applies pending migrations and
// makes sure the vector table matches the configured embedding space.
func Open(ctx context.Context, path string, opt Options) (_ *Store, err error) {
	if opt.Space == "" {
		return nil, fmt.Errorf("open store %s: no embedding space given", path)
	}
	if opt.Dims < 1 || opt.Dims > 8192 {
		return nil, fmt.Errorf("open store %s: embedding dimensions %d out of range 1..8192", path, opt.Dims)
	}
	if opt.ReadConns <= 0 {
		opt.ReadConns = max(2, runtime.GOMAXPROCS(0))
	}
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = DefaultBusyTimeout
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.QuantizeFrom < 0 {
		return nil, fmt.Errorf("open store %s: quantize from %d vectors: want 0 (the default) or more", path, opt.QuantizeFrom)
	}
	if opt.Vectors, err = ParseVectorMode(string(opt.Vectors)); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := checkPath(path); err != nil {
		return nil, err
	}

	s := &Store{path: path, telemetryPath: TelemetryPath(path), space: opt.Space, dims: opt.Dims, logger: opt.Logger.With("system", "store")}
	for _, p := range []string{s.path, s.telemetryPath} {
		if err := makePrivate(p, s.logger); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()

	s.db, err = sql.Open(driverName, dsn(path, opt.BusyTimeout, false))
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s.db.SetMaxOpenConns(1)
	s.db.SetConnMaxIdleTime(0)

	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode = wal").Scan(&mode); err != nil {
		return nil, describeOpenError(path, err)
	}
	if mode != "wal" {
		return nil, fmt.Errorf("open store %s: journal_mode is %q, want wal (is the file on a filesystem without shared memory?)", path, mode)
	}
	s.tdb, err = sql.Open(driverName, dsn(s.telemetryPath, opt.BusyTimeout, false))
	if err != nil {
		return nil, fmt.Errorf("open telemetry %s: %w", s.telemetryPath, err)
	}
	s.tdb.SetMaxOpenConns(1)
	if err := s.tdb.QueryRowContext(ctx, "PRAGMA journal_mode = wal").Scan(&mode); err != nil {
		return nil, describeOpenError(s.telemetryPath, err)
	}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	if err := s.ensureVectorTable(ctx, opt.ResetSpace); err != nil {
		return nil, err
	}

	s.rdb, err = sql.Open(driverName, dsn(path, opt.BusyTimeout, true))
	if err != nil {
		return nil, fmt.Errorf("open store %s for reading: %w", path, err)
	}
	s.rdb.SetMaxOpenConns(opt.ReadConns)
	s.rdb.SetMaxIdleConns(opt.ReadConns)
	if err := s.rdb.PingContext(ctx); err != nil {
		return nil, describeOpenError(path, err)
	}
	if err := s.dropOrphanVotes(ctx); err != nil {
		return nil, err
	}
	if opt.Vectors == VectorsQuantized {
		s.startCodes(opt.QuantizeFrom)
	}
	return s, nil
}

// TelemetryPath returns the telemetry database that goes with the main
// database at path: ragd.db → ragd-telemetry.db.
func TelemetryPath(path string) string {
	return strings.TrimSuffix(path, ".db") + "-telemetry.db"
}

// checkPath gives a clear error for a missing or unwritable directory before
// SQLite reports "unable to open database file".
func checkPath(path string) error {
	if path == "" {
		return errors.New("open store: empty database path")
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("open store %s: create directory: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("open store %s: is a directory, want a database file", path)
	}
	// SQLite needs to create the -wal and -shm files beside the database.
	probe, err := os.CreateTemp(dir, ".ragd-probe-*")
	if err != nil {
		return fmt.Errorf("open store %s: directory %s is not writable: %w", path, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

func dsn(path string, busy time.Duration, readOnly bool) string {
	v := url.Values{}
	v.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
	v.Set("_foreign_keys", "on")
	v.Set("_synchronous", "NORMAL")
	if readOnly {
		v.Set("_query_only", "true")
	} else {
		v.Set("_txlock", "immediate")
		// What a write frees is overwritten with zeros, so that forgotten
		// sessions and redacted secrets leave nothing readable in the
		// file's free space (ragd sessions forget, ragd sessions redact).
		v.Set("_secure_delete", "on")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + v.Encode()
}

// describeOpenError turns SQLite's terse open errors into ones that name the
// path and what to do.
func describeOpenError(path string, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB, sqlite3.ErrCorrupt:
			return fmt.Errorf("open store %s: %w (%v): move the file away or point ragd at another database path", path, ErrNotDatabase, err)
		case sqlite3.ErrCantOpen, sqlite3.ErrPerm, sqlite3.ErrReadonly:
			return fmt.Errorf("open store %s: cannot open for writing (%v): check the file and directory permissions", path, err)
		}
	}
	return fmt.Errorf("open store %s: %w", path, err)
}

// Path returns the database file path.
func (s *Store) Path() string { return s.path }

// Space returns the embedding space of the store's vectors.
func (s *Store) Space() string { return s.space }

// Dims returns the vector length of the store's embedding space.
func (s *Store) Dims() int { return s.dims }

// Close closes both connection pools.
func (s *Store) Close() error {
	if s.codes != nil {
		s.stopCodes()
		<-s.codes.done
	}
	var errs []error
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	if s.tdb != nil {
		errs = append(errs, s.tdb.Close())
	}
	return errors.Join(errs...)
}

// IntegrityCheck runs PRAGMA integrity_check and returns an error listing the
// problems, if any.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	if err := integrityCheck(ctx, s.db, s.path); err != nil {
		return err
	}
	return integrityCheck(ctx, s.tdb, s.telemetryPath)
}

func integrityCheck(ctx context.Context, db *sql.DB, path string) error {
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("integrity check %s: %w", path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("integrity check %s: %w", path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check %s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check %s: %s", path, strings.Join(problems, "; "))
	}
	return nil
}

// VecVersion returns the version of the linked sqlite-vec, for `ragd doctor`.
func (s *Store) VecVersion(ctx context.Context) (string, error) {
	var v string
	if err := s.rdb.QueryRowContext(ctx, "SELECT vec_version()").Scan(&v); err != nil {
		return "", fmt.Errorf("sqlite-vec version: %w", err)
	}
	return v, nil
}

// now is the time format of every timestamp column: RFC 3339 in UTC with
// fixed-width nanoseconds, so text order is time order.
func now() string { return formatTime(time.Now()) }

func formatTime(t time.Time) string { return rules.FormatTime(t) }

func parseTime(s string) time.Time { return rules.ParseTime(s) }

package postgres

import (
	"context"

	"fmt"
	"strconv"
	"strings"

	"github.com/ragd/ragd"
)

// ServerInfo is what `ragd doctor` reports of the database.
type ServerInfo struct {
	// Server is the server's version string (SELECT version()).
	Server string
	// Vector is the installed pgvector extension's version.
	Vector string
	// Schema is the database's schema version; Known the newest this
	// binary knows.
	Schema, Known int
	// Space and Dims are the embedding space the vectors belong to.
	Space string
	Dims  int
	// Owner is whose sessions, searches and votes this store reads.
	Owner string
}

// Checks are the engine's lines of `ragd doctor` (engine.Checker): the
// server, pgvector, the schema version and the indexes searches need.
func (s *Store) Checks(ctx context.Context) []ragd.DatabaseCheck {
	info, err := s.Info(ctx)
	server := ragd.DatabaseCheck{Name: "PostgreSQL server", OK: info.Server != "", Detail: info.Server + " at " + s.url}
	if info.Server == "" {
		server.Detail = s.url + ": " + errText(err)
		server.Fix = "check that the server runs and that the URL, PGPASSWORD or ~/.pgpass give this user access"
		return []ragd.DatabaseCheck{server}
	}
	vector := ragd.DatabaseCheck{Name: "pgvector", OK: info.Vector != "", Detail: info.Vector}
	if info.Vector == "" {
		vector.Detail, vector.Fix = errText(err), "install pgvector on the server and run CREATE EXTENSION vector in the database"
	}
	schema := ragd.DatabaseCheck{Name: "schema", OK: info.Schema == info.Known && info.Schema > 0,
		Detail: fmt.Sprintf("version %d of %d, space %s (%d dims), owner %s", info.Schema, info.Known, info.Space, info.Dims, info.Owner)}
	if !schema.OK {
		schema.Fix = "start this ragd's daemon once to migrate, or upgrade ragd if the database is newer"
	}
	indexes := ragd.DatabaseCheck{Name: "indexes", OK: true, Detail: "chunks_embedding (HNSW), chunks_tsv (GIN) valid"}
	if err := s.IntegrityCheck(ctx); err != nil {
		indexes.OK, indexes.Detail, indexes.Fix = false, err.Error(), "REINDEX the index named"
	}
	return []ragd.DatabaseCheck{server, vector, schema, indexes}
}

func errText(err error) string {
	if err == nil {
		return "unknown"
	}
	return err.Error()
}

// Info reads the server's, pgvector's and the schema's versions; an error
// when one cannot be read or the schema is not one this binary knows.
func (s *Store) Info(ctx context.Context) (ServerInfo, error) {
	info := ServerInfo{Space: s.space, Dims: s.dims, Owner: s.owner}
	if err := s.pool.QueryRow(ctx, "SELECT version()").Scan(&info.Server); err != nil {
		return info, s.describe("server version", err)
	}
	var err error
	if info.Vector, err = s.VectorVersion(ctx); err != nil {
		return info, err
	}
	if info.Schema, err = s.SchemaVersion(ctx); err != nil {
		return info, err
	}
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		return info, err
	}
	info.Known = len(ms)
	if info.Schema != info.Known {
		return info, fmt.Errorf("database %s: schema version %d, this ragd knows %d", s.url, info.Schema, info.Known)
	}
	return info, nil
}

// VectorVersion returns the installed pgvector's version.
func (s *Store) VectorVersion(ctx context.Context) (string, error) {
	var v string
	if err := s.pool.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&v); err != nil {
		if errNoRows(err) {
			return "", fmt.Errorf("database %s: the vector extension (pgvector) is not installed", s.url)
		}
		return "", s.describe("pgvector version", err)
	}
	return v, nil
}

// indexes are the indexes searches need valid.
var indexes = []string{"chunks_embedding", "chunks_tsv"}

// IntegrityCheck checks that the indexes searches rely on exist and are
// valid.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	var problems []string
	for _, name := range indexes {
		var valid bool
		err := s.pool.QueryRow(ctx, `SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relname = $1 AND pg_table_is_visible(c.oid)`, name).Scan(&valid)
		switch {
		case errNoRows(err):
			problems = append(problems, "index "+name+" is missing")
		case err != nil:
			return s.describe("check index "+name, err)
		case !valid:
			problems = append(problems, "index "+name+" is invalid: REINDEX INDEX "+name)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity check %s: %s", s.url, strings.Join(problems, "; "))
	}
	return nil
}

// versionAtLeast reports whether a "major.minor[.patch]" version is at
// least major.minor.
func versionAtLeast(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	a, err1 := strconv.Atoi(parts[0])
	b, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return a > major || a == major && b >= minor
}

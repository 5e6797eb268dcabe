package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
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

// Checks reads the server's, pgvector's and the schema's versions, and
// checks that the schema is one this binary knows and that the vector and
// text indexes are valid (a failed CREATE INDEX CONCURRENTLY, say, leaves
// an invalid one that the planner ignores).
func (s *Store) Checks(ctx context.Context) (ServerInfo, error) {
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
	return info, s.IntegrityCheck(ctx)
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

// VecVersion is VectorVersion under the SQLite engine's name.
func (s *Store) VecVersion(ctx context.Context) (string, error) { return s.VectorVersion(ctx) }

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

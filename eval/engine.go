package eval

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/store"
	"github.com/ragd/ragd/store/postgres"
)

// StoreOptions configure OpenStore: the embedding space of the vectors, and
// the SQLite engine's vector search (store.Options of those names; the
// PostgreSQL engine searches its HNSW index and ignores them).
type StoreOptions struct {
	Space        string
	Dims         int
	Logger       *slog.Logger
	Vectors      store.VectorMode
	QuantizeFrom int
}

// OpenStore opens the database an evaluation reads and writes: a
// postgres:// or postgresql:// URL on the PostgreSQL engine, a plain path a
// SQLite file. Any other scheme is refused before anything is created, as
// the daemon refuses it, so that a URL is never taken for a file path.
func OpenStore(ctx context.Context, database string, opt StoreOptions) (engine.Store, error) {
	switch scheme := ragd.DatabaseScheme(database); scheme {
	case "":
		st, err := store.Open(ctx, database, store.Options{Space: opt.Space, Dims: opt.Dims, Logger: opt.Logger,
			Vectors: opt.Vectors, QuantizeFrom: opt.QuantizeFrom})
		if err != nil {
			return nil, err
		}
		return st, nil
	case "postgres", "postgresql":
		st, err := postgres.Open(ctx, database, postgres.Options{Space: opt.Space, Dims: opt.Dims, Logger: opt.Logger})
		if err != nil {
			return nil, err
		}
		return st, nil
	default:
		return nil, fmt.Errorf("database %q: unknown scheme %q: give the path of a SQLite file (a file whose name has a colon is written ./NAME) or a postgres:// URL",
			postgres.Redact(database), scheme)
	}
}

// IsURL reports whether database names a server's database (it has a URL
// scheme) rather than a SQLite file.
func IsURL(database string) bool { return ragd.DatabaseScheme(database) != "" }

package engines

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/store"
)

// The SQLite store implements the contract, shows its sqlite-vec version
// and loads its quantized codes in the background.
var (
	_ engine.Store             = (*store.Store)(nil)
	_ engine.VecVersioner      = (*store.Store)(nil)
	_ engine.VectorIndexWaiter = (*store.Store)(nil)
)

// openSQLite opens the SQLite store at path.
func openSQLite(ctx context.Context, path string, opt engine.Options) (engine.Store, error) {
	vectors, err := store.ParseVectorMode(opt.Vectors)
	if err != nil {
		return nil, fmt.Errorf("config [search]: %w", err)
	}
	return nilOnError(store.Open(ctx, path, store.Options{Space: opt.Space, Dims: opt.Dims, ResetSpace: opt.ResetSpace,
		Logger: opt.Logger, Vectors: vectors, QuantizeFrom: opt.QuantizeFrom}))
}

package daemon

import (
	"net/http"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/store"
)

// Health is the answer of GET /v1/health.
type Health struct {
	Version   string           `json:"version"`
	Socket    string           `json:"socket"`
	Database  DatabaseHealth   `json:"database"`
	Embedding embedding.Health `json:"embedding"`
	Index     store.Stats      `json:"index"`
}

// DatabaseHealth describes the store.
type DatabaseHealth struct {
	Path          string `json:"path"`
	SchemaVersion int    `json:"schemaVersion"`
	SqliteVec     string `json:"sqliteVec"`
	Space         string `json:"space"`
}

func (d *Daemon) handleHealth(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	h := Health{Version: Version, Socket: d.paths.Socket}
	h.Database.Path = d.store.Path()
	h.Database.Space = d.store.Space()
	var err error
	if h.Database.SchemaVersion, err = d.store.SchemaVersion(ctx); err != nil {
		return err
	}
	if h.Database.SqliteVec, err = d.store.VecVersion(ctx); err != nil {
		return err
	}
	if h.Index, err = d.store.Stats(ctx); err != nil {
		return err
	}
	h.Embedding = d.embedder.Health(ctx)
	writeJSON(w, http.StatusOK, h)
	return nil
}

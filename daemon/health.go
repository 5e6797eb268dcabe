package daemon

import (
	"net/http"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/engine"
)

func (d *Daemon) handleHealth(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	h := api.Health{Version: Version, Socket: d.paths.Socket, Config: api.ConfigHealth{Path: d.paths.Config, ModTime: d.configModTime}}
	h.Database.Path = d.store.Path()
	h.Database.Space = d.store.Space()
	var err error
	if h.Database.SchemaVersion, err = d.store.SchemaVersion(ctx); err != nil {
		return err
	}
	if vv, ok := d.store.(engine.VecVersioner); ok {
		if h.Database.SqliteVec, err = vv.VecVersion(ctx); err != nil {
			return err
		}
	}
	if c, ok := d.store.(engine.Checker); ok && r.URL.Query().Has(api.HealthChecks) {
		h.Database.Checks = api.FromDatabaseChecks(c.Checks(ctx))
	}
	stats, err := d.store.Stats(ctx)
	if err != nil {
		return err
	}
	h.Index = api.FromIndexStats(stats)
	h.Embedding = api.FromEmbeddingHealth(d.embedder.Health(ctx))
	bp, err := d.backfill.Progress(ctx)
	if err != nil {
		return err
	}
	backfill := api.FromBackfillProgress(bp)
	h.Backfill = &backfill
	space, err := d.spaceProfile(ctx, d.searcher.Config)
	if err != nil {
		return err
	}
	h.Space = api.FromSpaceProfile(space)
	writeJSON(w, http.StatusOK, h)
	return nil
}

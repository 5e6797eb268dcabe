package daemon_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// The document prefix is frozen with the embedding space: vectors indexed
// with the model's convention are not mixed with vectors of another
// prompt; the daemon refuses to start until the vectors are reset.
func TestDaemon_DocumentPrefixIsPartOfTheSpace(t *testing.T) {
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	w := daemontest.NewWorld(t)
	cfg := daemontest.Config(srv.URL)
	d := daemontest.Start(t, w, cfg)
	repo := daemontest.Repo(t, daemontest.Docs)
	if _, err := d.Client.AddProject(t.Context(), api.AddProjectRequest{Path: repo.Dir, Name: "demo"}); err != nil {
		t.Fatal(err)
	}
	if rep, err := d.Client.Reindex(t.Context(), "demo", api.ReindexRequest{Scope: "docs"}); err != nil || !rep.Complete {
		t.Fatalf("reindex: %v %+v", err, rep)
	}
	d.Stop(t)

	none := ""
	cfg.Embedding.DocumentPrefix = &none
	_, err := daemon.Open(context.Background(), daemon.Options{Config: cfg, Paths: w.Paths, Open: daemontest.OpenSQLite, Logger: daemontest.Logger()})
	if !errors.Is(err, ragd.ErrSpaceMismatch) {
		t.Fatalf("open with another document prefix: %v, want ErrSpaceMismatch", err)
	}
	// The query prefix is not part of it.
	cfg.Embedding.DocumentPrefix, cfg.Embedding.QueryPrefix = nil, &none
	daemontest.Start(t, w, cfg)
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"syscall"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/engines"
)

var serveCommand = command{
	name:    "serve",
	summary: "run the daemon in the foreground",
	usage: `Usage: ragd serve [flags]

Run the daemon in the foreground: it listens on the socket (mode 0600),
answers the other commands, and reindexes projects added with
--auto-reindex when their HEAD moves, until SIGINT or SIGTERM, when it
finishes or stops what it is doing and exits. It logs to standard error at
the configured level. One daemon runs per database. To run it in the
background, see ragd service.
`,
	examples: `  ragd serve
  ragd serve --config ~/.config/ragd/test.toml
  ragd serve --reset-vectors                  # after changing the model; then ragd reindex
`,
	run: cmdServe,
}

func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	reset := fs.Bool("reset-vectors", false, "drop stored vectors of another embedding space (then reindex)")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	cfg, sources, paths, err := e.loadSources()
	if err != nil {
		return err
	}
	open, err := engines.Lookup(paths.Database)
	if err != nil {
		return fmt.Errorf("daemon.database (RAGD_DB): %w", err)
	}
	// Every file the daemon creates holds indexed text or past queries:
	// private to the user whatever the login shell's umask.
	syscall.Umask(0o077)
	logger := newLogger(e.stderr, cfg.Daemon.LogLevel)
	choice := chooseProvider(ctx, cfg, sources)
	d, err := daemon.Open(ctx, daemon.Options{Config: choice.cfg, Paths: paths, Open: open, ResetVectors: *reset, Logger: logger})
	if err != nil && choice.other != nil && !*reset && isSpaceMismatch(err) {
		// A chosen (not configured) provider whose space is not the
		// database's: keep serving the vectors the database holds.
		logger.Info("the database holds the other provider's vectors: keeping it", "wanted", choice.cfg.Embedding.Provider, "err", err)
		choice = providerChoice{cfg: *choice.other, why: choice.why + "; but the database holds " + choice.other.Embedding.Provider + "'s vectors (`ragd serve --reset-vectors` to switch)"}
		d, err = daemon.Open(ctx, daemon.Options{Config: choice.cfg, Paths: paths, Open: open, Logger: logger})
	}
	if err != nil {
		return err
	}
	logger.Info("embedding provider", "provider", choice.cfg.Embedding.Provider, "model", choice.cfg.Embedding.Model, "why", choice.why)
	// A configured built-in model without its weights: fetched once, in
	// the background (model_url = "off" forbids it).
	fetched := fetchMissingModel(ctx, choice.cfg, logWriter{logger})
	go func() {
		if err := <-fetched; err != nil {
			logger.Error("built-in model not installed: run `ragd model install`", "err", err)
		}
	}()
	select {
	case <-ctx.Done():
		logger.Info("signal received: shutting down")
		return d.Close(context.Background())
	case err := <-d.Done():
		d.Close(context.Background())
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	}
}

// logWriter writes each line of an install's progress as a log record.
type logWriter struct{ l *slog.Logger }

func (w logWriter) Write(b []byte) (int, error) {
	w.l.Info("built-in model", "install", strings.TrimSpace(string(b)))
	return len(b), nil
}

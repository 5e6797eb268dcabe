package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/daemon"
)

func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := e.flags("serve")
	reset := fs.Bool("reset-vectors", false, "drop stored vectors of another embedding space (then reindex)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	cfg, paths, err := e.load()
	if err != nil {
		return err
	}
	logger := newLogger(e.stderr, cfg.Daemon.LogLevel)
	d, err := daemon.Open(ctx, daemon.Options{Config: cfg, Paths: paths, ResetVectors: *reset, Logger: logger})
	if err != nil {
		return err
	}
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

func cmdConfig(ctx context.Context, e *env, args []string) error {
	fs := e.flags("config")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	cfg, paths, err := e.load()
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]any{"file": paths.Config, "socket": paths.Socket, "database": paths.Database, "config": cfg})
	}
	fmt.Fprintf(e.stdout, "# file: %s\n# socket: %s\n# database: %s\n\n%s", paths.Config, paths.Socket, paths.Database, daemon.ConfigTemplate)
	return nil
}

func cmdVersion(ctx context.Context, e *env, args []string) error {
	fs := e.flags("version")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]string{"version": daemon.Version})
	}
	fmt.Fprintln(e.stdout, "ragd", daemon.Version)
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/source"
)

// env is what every command shares: the standard streams and the common
// flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	// cmd is the command being run.
	cmd *command

	json bool
	// safe is set once stdout and stderr go through terminal.Writer.
	safe       bool
	socket     string
	configPath string
	project    string

	// used is the daemon client the command used, and configFile the
	// configuration file it resolved; see warnStaleConfig.
	used       *client.Client
	configFile string
}

// paths and config as the daemon would compute them.
func (e *env) load() (daemon.Config, daemon.Paths, error) {
	cfg, _, paths, err := e.loadSources()
	return cfg, paths, err
}

// loadSources is load, also saying where each setting came from.
func (e *env) loadSources() (daemon.Config, daemon.Sources, daemon.Paths, error) {
	paths, err := daemon.DefaultPaths()
	if err != nil {
		return daemon.Config{}, nil, paths, err
	}
	if e.configPath != "" {
		paths.Config = e.configPath
	} else if v := os.Getenv("RAGD_CONFIG"); v != "" {
		paths.Config = v
	}
	cfg, sources, err := daemon.LoadConfigSources(paths.Config)
	if err != nil {
		return cfg, sources, paths, err
	}
	if e.socket != "" {
		cfg.Daemon.Socket = e.socket
		sources["daemon.socket"] = "flag --socket"
	}
	if cfg.Daemon.Socket != "" {
		paths.Socket = cfg.Daemon.Socket
	}
	if cfg.Daemon.Database != "" {
		paths.Database = cfg.Daemon.Database
	}
	return cfg, sources, paths, nil
}

// client returns a client of the configured daemon. A configuration file
// that does not parse does not stop a command that only talks to the daemon
// (it may be how the user repairs the file): it is said on standard error,
// and the socket comes from --socket, RAGD_SOCKET or the default.
func (e *env) client() (*client.Client, error) {
	_, paths, err := e.load()
	if err != nil {
		if paths, err = e.fallbackPaths(err); err != nil {
			return nil, err
		}
	}
	e.used = client.New(paths.Socket)
	e.configFile = paths.Config
	return e.used, nil
}

// warnStaleConfig says when the configuration file changed after the daemon
// the command talked to read it: the daemon runs on the old settings until
// it restarts, and nothing else would tell.
func (e *env) warnStaleConfig(ctx context.Context) {
	if e.used == nil || e.configFile == "" {
		return
	}
	fi, err := os.Stat(e.configFile)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, staleConfigCheck)
	defer cancel()
	h, err := e.used.Health(ctx)
	if err != nil || h.Config.Path != e.configFile {
		return
	}
	if h.Config.ModTime == nil || fi.ModTime().After(*h.Config.ModTime) {
		fmt.Fprintf(e.stderr, "ragd: warning: %s changed after the daemon started: it still runs on the settings it read then; "+
			"restart it (ragd service stop && ragd service start, or restart ragd serve) to apply the file\n", e.configFile)
	}
}

// staleConfigCheck bounds the check after a command: a warning is not worth
// waiting for.
const staleConfigCheck = time.Second

// fallbackPaths are the paths when the configuration file is broken.
func (e *env) fallbackPaths(cause error) (daemon.Paths, error) {
	paths, err := daemon.DefaultPaths()
	if err != nil {
		return paths, err
	}
	switch {
	case e.socket != "":
		paths.Socket = e.socket
	case os.Getenv("RAGD_SOCKET") != "":
		paths.Socket = os.Getenv("RAGD_SOCKET")
	}
	fmt.Fprintf(e.stderr, "ragd: warning: %v\nragd: using the socket %s (fix the file; `ragd config --defaults` prints every key)\n", cause, paths.Socket)
	return paths, nil
}

// projectClient returns a client of the daemon and the id of the project
// the command is about (see projectID).
func (e *env) projectClient(ctx context.Context) (*client.Client, string, error) {
	c, err := e.client()
	if err != nil {
		return nil, "", err
	}
	id, err := e.projectID(ctx, c)
	if err != nil {
		return nil, "", err
	}
	return c, id, nil
}

// projectRef returns what names the project the command is about: --project
// (a name, or a path inside a repository, given as its root), or else the
// root of the git repository containing the current directory.
func (e *env) projectRef() (string, error) {
	want := e.project
	if want == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		root, err := source.Root(wd)
		if err != nil {
			return "", usagef("no --project given and %s is not inside a git repository", wd)
		}
		return root, nil
	}
	if abs, err := filepath.Abs(want); err == nil && (filepath.IsAbs(want) || fileExists(want)) {
		if root, err := source.Root(abs); err == nil {
			return root, nil
		}
	}
	return want, nil
}

// projectID resolves projectRef to the id the daemon knows.
func (e *env) projectID(ctx context.Context, c *client.Client) (string, error) {
	want, err := e.projectRef()
	if err != nil {
		return "", err
	}
	list, err := c.Projects(ctx)
	if err != nil {
		return "", err
	}
	for _, p := range list {
		if p.ID == want || p.Path == want {
			return p.ID, nil
		}
	}
	if filepath.IsAbs(want) {
		return "", fmt.Errorf("project %q is not registered: run `ragd add %s`", want, want)
	}
	return "", fmt.Errorf("no project named %q: `ragd projects` lists them, `ragd add PATH` registers one", want)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// printJSON writes v indented.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/daemon"
)

var configCommand = command{
	name:    "config",
	summary: "print the configuration in effect, or every default",
	usage: `Usage: ragd config [flags]

Print where the configuration file, the socket and the database are, then
the configuration in effect: the file over the defaults, then the
environment, each setting with what it means and where its value came from
([default], [file] or [env NAME]). With --defaults, a configuration file
with every setting at its default, read from nothing: a starting point for
your own, and what to fall back on when the file does not parse. With
--json, the same as JSON (camelCase keys) with the sources by key.
`,
	examples: `  ragd config
  ragd config --defaults > ~/.config/ragd/config.toml
  RAGD_FUSION=rrf ragd config --json
`,
	run: cmdConfig,
}

func cmdConfig(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	defaults := fs.Bool("defaults", false, "print every default, ignoring the file and the environment")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if *defaults {
		cfg := daemon.DefaultConfig()
		if e.json {
			return e.printJSON(map[string]any{"config": cfg})
		}
		_, err := fmt.Fprint(e.stdout, daemon.ConfigTemplate)
		return err
	}
	cfg, sources, paths, err := e.loadSources()
	if err != nil {
		return err // it names the file, the line and `ragd config --defaults`
	}
	if e.json {
		return e.printJSON(map[string]any{"file": paths.Config, "socket": paths.Socket, "database": paths.Database,
			"config": cfg, "sources": sources})
	}
	fmt.Fprintf(e.stdout, "# file: %s\n# socket: %s\n# database: %s\n\n%s", paths.Config, paths.Socket, paths.Database,
		daemon.Template(cfg, sources))
	return nil
}

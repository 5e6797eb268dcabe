package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/daemon"
)

var configCommand = command{
	name:    "config",
	summary: "print the configuration file with every default",
	usage: `Usage: ragd config [flags]

Print where the configuration file, the socket and the database are, then a
configuration file with every setting at its default and what it means: a
starting point for your own. With --json, the configuration in effect
(the file over the defaults) and the paths.
`,
	examples: `  ragd config > ~/.config/ragd/config.toml
  ragd config --config ./ragd.toml --json
`,
	run: cmdConfig,
}

func cmdConfig(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	if _, err := e.parse(fs, args); err != nil {
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

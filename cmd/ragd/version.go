package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/daemon"
)

var versionCommand = command{
	name:    "version",
	summary: "print the version",
	usage: `Usage: ragd version [flags]

Print ragd's version (the daemon's, as ragd doctor reports it, may differ
when it runs an older binary).
`,
	examples: `  ragd version
  ragd version --json
`,
	run: cmdVersion,
}

func cmdVersion(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]string{"version": daemon.Version})
	}
	fmt.Fprintln(e.stdout, "ragd", daemon.Version)
	return nil
}

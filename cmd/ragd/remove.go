package main

import (
	"context"
	"fmt"
)

var removeCommand = command{
	name:    "remove",
	summary: "unregister a project and drop its index: remove PROJECT",
	usage: `Usage: ragd remove PROJECT [flags]

Unregister PROJECT (its id, or its repository path) and delete everything
indexed for it: chunks, vectors, sessions, reindex runs and its telemetry.
The repository itself is not touched.
`,
	examples: `  ragd remove billing
  ragd remove ~/src/billing --json
`,
	run: cmdRemove,
}

func cmdRemove(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("remove takes one PROJECT")
	}
	e.project = pos[0]
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	out, err := c.RemoveProject(ctx, id)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(out)
	}
	fmt.Fprintf(e.stdout, "removed project %s, its index and its telemetry (%d searches, %d votes)\n", id, out.TelemetrySearches, out.TelemetryVotes)
	return nil
}

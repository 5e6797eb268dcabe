package main

import (
	"context"
	"fmt"
	"os"
)

var sessionsCommand = command{
	name:    "sessions",
	summary: "session events: sessions import FILE | sessions show EVENT_ID",
	usage: `Usage: ragd sessions import FILE [flags]
       ragd sessions show EVENT_ID [flags]

import reads a conversation session's events (JSON lines) from FILE into
the project: events already stored count as duplicates, an event that
differs from the stored one with its id as a conflict, and malformed lines
are reported by number. Make the messages searchable with
ragd reindex --scope session. show prints one stored event.
`,
	examples: `  ragd sessions import ~/transcripts/2026-01-02.jsonl
  ragd sessions show evt-17 --json
`,
	run: cmdSessions,
}

func cmdSessions(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || (pos[0] != "import" && pos[0] != "show") {
		return usagef("sessions import FILE | sessions show EVENT_ID")
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	if pos[0] == "show" {
		ev, err := c.Event(ctx, id, pos[1])
		if err != nil {
			return err
		}
		if e.json {
			return e.printJSON(ev)
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s (%s) in session %s\n\n%s\n", ev.Time.Local().Format("2006-01-02 15:04:05"), ev.ID, ev.Type, ev.Actor, ev.SessionID, ev.Text)
		return nil
	}
	f, err := os.Open(pos[1])
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := c.ImportEvents(ctx, id, f)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(rep)
	}
	fmt.Fprintf(e.stdout, "%s: %d lines, %d events: %d stored (%d messages), %d duplicates, %d conflicts, %d malformed lines\n",
		pos[1], rep.Lines, rep.Events, rep.Appended, rep.Messages, rep.Duplicates, len(rep.Conflicts), rep.Bad)
	for _, le := range rep.LineErrors {
		fmt.Fprintf(e.stdout, "  line %d: %s\n", le.Line, le.Reason)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(e.stdout, "  conflict: %s\n", c.Error)
	}
	if rep.Messages > 0 {
		fmt.Fprintln(e.stdout, "make them searchable: ragd reindex --scope session")
	}
	return nil
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/words"
	"github.com/ragd/ragd/transcript"
)

var sessionsCommand = command{
	name:    "sessions",
	summary: "sessions: list | show SESSION|EVENT_ID | import --from TOOL [PATH…] | import FILE | follow | forget SESSION | redact",
	usage: `Usage: ragd sessions list [--since DUR|TIME] [--from TOOL] [flags]
       ragd sessions show SESSION|EVENT_ID [flags]
       ragd sessions import --from TOOL [PATH…] [flags]
       ragd sessions import FILE [flags]
       ragd sessions follow [flags]
       ragd sessions forget SESSION [flags]
       ragd sessions redact [--project P] [flags]

list shows the project's sessions, the most recent first: the agent they
were imported from, the title, the first and last time, and how many
messages; --since keeps those active since a time (RFC 3339) or for a
duration back ("7d", "12h"), --from those of one tool. show SESSION prints
the whole conversation, prompts and answers, each mechanism event (tool
calls, results) folded to one line; show EVENT_ID prints that one event.

import --from reads a coding agent's transcripts (default: the tool's own
folder, as the daemon's environment gives it; for the tools that keep
them in each repository, Aider and Crush, the registered repositories
too) and appends each session to the registered project whose
repository contains the folder it ran in. Sessions of other folders are
listed, not imported: register the repository (ragd add), or import them
all into one project with --project. Re-running imports only what is new.
Secrets in the text are redacted; --keep-raw also keeps each source
record, unredacted, as the event's payload.

import FILE reads a session event file (JSON lines) into the project.
follow shows which tools' transcripts the daemon follows as they are
written: set [sessions] follow in the configuration and restart the
daemon to change it. forget erases a session's events and chunks; later
imports leave it out. redact re-applies the current redaction rules to what
is stored already (events, chunks, the keyword index, transcript
checkpoints), in every project or the one given with --project: run it
after upgrading ragd, since the rules improve.
Imported messages are searchable at once: their chunks are written as
they are stored.

TOOL is one of: ` + transcript.Names(", ") + `.
`,
	examples: `  ragd sessions list --since 7d
  ragd sessions show claude-code:fe869ecb-c176-478f-9734-7e4b8ef12cff
  ragd sessions import --from claude-code
  ragd sessions import --from codex ~/.codex/sessions/2026 --project billing
  ragd sessions import --from aider .
  ragd sessions import ~/transcripts/2026-01-02.jsonl
  ragd sessions follow
  ragd sessions forget claude-code:fe869ecb-c176-478f-9734-7e4b8ef12cff
  ragd sessions show evt-17 --json
  ragd sessions redact
`,
	run: cmdSessions,
}

func cmdSessions(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	e.projectFlag(fs)
	from := fs.String("from", "", "import (or list) the transcripts of this tool: "+formatNames())
	since := fs.String("since", "", "with list: the sessions active since a time (RFC 3339) or for a duration back (7d, 12h)")
	keepRaw := fs.Bool("keep-raw", false, "with --from: keep each source record, unredacted, as the event's payload")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	const synopsis = "sessions list | sessions show SESSION|EVENT_ID | sessions import FILE | sessions import --from TOOL [PATH…] | sessions follow | sessions forget SESSION | sessions redact"
	if len(pos) == 0 {
		return usagef(synopsis)
	}
	if *from != "" && pos[0] != "import" && pos[0] != "list" {
		return usagef("--from goes with sessions import or sessions list")
	}
	if *since != "" && pos[0] != "list" {
		return usagef("--since goes with sessions list")
	}
	switch {
	case pos[0] == "list" && len(pos) == 1:
		return listSessions(ctx, e, api.SessionsQuery{Since: *since, From: *from})
	case pos[0] == "import" && *from != "":
		return importTranscripts(ctx, e, fs, *from, pos[1:], *keepRaw)
	case pos[0] == "follow" && len(pos) == 1:
		return followStatus(ctx, e)
	case pos[0] == "redact" && len(pos) == 1:
		return redactSessions(ctx, e, fs)
	case len(pos) != 2:
		return usagef(synopsis)
	case pos[0] == "import":
		return importEventFile(ctx, e, pos[1])
	case pos[0] == "show":
		return show(ctx, e, pos[1])
	case pos[0] == "forget":
		return forgetSession(ctx, e, pos[1])
	}
	return usagef(synopsis)
}

func formatNames() string { return transcript.Names(", ") }

func importTranscripts(ctx context.Context, e *env, fs *flag.FlagSet, from string, paths []string, keepRaw bool) error {
	if _, err := transcript.ParseFormat(from); err != nil {
		return usagef("--from %q: want one of %s", from, formatNames())
	}
	req := api.TranscriptImportRequest{Format: from, KeepRaw: keepRaw}
	if keepRaw {
		fmt.Fprintln(e.stderr, "warning: --keep-raw stores each source record verbatim, unredacted, as its event's payload:\n  secrets pasted in these transcripts stay in ragd's database (ragd sessions forget SESSION erases a session)")
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		req.Paths = append(req.Paths, abs)
	}
	c, err := e.client()
	if err != nil {
		return err
	}
	projectGiven := false
	fs.Visit(func(f *flag.Flag) { projectGiven = projectGiven || f.Name == "project" })
	if projectGiven {
		if req.Project, err = e.projectID(ctx, c); err != nil {
			return err
		}
	}
	bar := newProgress(e.stderr, !e.json && isTerminal(e.stderr))
	rep, err := c.ImportTranscripts(ctx, req, func(p api.TranscriptProgress) {
		if !e.json {
			bar.update(api.Progress{Scope: from, Phase: "import", Done: p.Done, Total: p.Total})
		}
	})
	bar.done()
	return finishStream(e, rep, err, printTranscriptReport)
}

// printTranscriptReport writes an import's report for people.
func printTranscriptReport(w io.Writer, rep *api.TranscriptReport) {
	fmt.Fprintf(w, "%s: %d files (%d unchanged, %d resumed), %d sessions read: %d messages indexed, %d mechanism events kept, %d already stored\n",
		rep.Format, rep.Files, rep.Unchanged, rep.Resumed, rep.Sessions, rep.Indexed, rep.Kept, rep.Duplicates)
	if rep.Files == 0 {
		fmt.Fprintf(w, "  no transcripts in %s\n", strings.Join(rep.Paths, ", "))
		if rep.LookedFor != "" {
			fmt.Fprintf(w, "  looked for %s\n", rep.LookedFor)
		}
	}
	for _, p := range rep.Projects {
		fmt.Fprintf(w, "  into %s: %d sessions, %d new events (%d messages)\n", p.Project, p.Sessions, p.Appended, p.Indexed)
	}
	for _, reason := range sortedKeys(rep.Skipped) {
		fmt.Fprintf(w, "  skipped %d: %s\n", rep.Skipped[reason], reason)
	}
	for _, u := range rep.Unreadable {
		fmt.Fprintf(w, "  unreadable, skipped: %s\n", u)
	}
	if rep.UnreadableCount > len(rep.Unreadable) {
		fmt.Fprintf(w, "  … %d unreadable in all\n", rep.UnreadableCount)
	}
	for _, le := range rep.LineErrors {
		fmt.Fprintf(w, "  malformed %s:%d: %s\n", le.File, le.Line, le.Reason)
	}
	if rep.Malformed > len(rep.LineErrors) {
		fmt.Fprintf(w, "  … %d malformed lines in all\n", rep.Malformed)
	}
	if rep.Incomplete > 0 {
		fmt.Fprintf(w, "  %d files end in a line still being written: read next time\n", rep.Incomplete)
	}
	for _, kind := range sortedKeys(rep.Redactions) {
		fmt.Fprintf(w, "  redacted %d: %s\n", rep.Redactions[kind], kind)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(w, "  conflict: %s\n", c.Error)
	}
	if rep.Forgotten > 0 {
		fmt.Fprintf(w, "  %d events of forgotten sessions left out\n", rep.Forgotten)
	}
	if rep.UnregisteredCount > 0 {
		fmt.Fprintf(w, "  not imported, %d sessions of folders no registered project contains (ragd add DIR, or --project NAME):\n", rep.UnregisteredCount)
		for _, u := range rep.Unregistered {
			where := u.Cwd
			if where == "" {
				where = "project hash " + u.ProjectHash
			}
			fmt.Fprintf(w, "    %s in %s\n", u.Session, where)
		}
	}
	if rep.Indexed > 0 {
		fmt.Fprintf(w, "searchable now: %d chunks written\n", rep.Chunks)
	}
}

func followStatus(ctx context.Context, e *env) error {
	c, err := e.client()
	if err != nil {
		return err
	}
	st, err := c.FollowStatus(ctx)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(st)
	}
	following := false
	for _, f := range st.Formats {
		state := "not followed"
		if f.Followed {
			following = true
			state = fmt.Sprintf("followed, %d folders watched", f.Watching)
		}
		fmt.Fprintln(e.stdout, followLine(f.Format, state, f.Paths))
		if f.Last != nil {
			fmt.Fprintf(e.stdout, "             last pass: %d files, %d new events (%d messages)\n", f.Last.Files, f.Last.Appended, f.Last.Indexed)
		}
		if f.Error != "" {
			fmt.Fprintf(e.stdout, "             error: %s\n", f.Error)
		}
	}
	if !following {
		fmt.Fprintln(e.stdout, "to follow, add to the configuration file (`ragd config` says where) and restart the daemon:\n  [sessions]\n  follow = [\"claude-code\", \"codex\"]   # or [\"all\"]")
	}
	return nil
}

func forgetSession(ctx context.Context, e *env, session string) error {
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	fg, err := c.ForgetSession(ctx, id, session)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(fg)
	}
	fmt.Fprintf(e.stdout, "forgot session %s of %s: %d events, %d chunks deleted\n", fg.Session, fg.Project, fg.Events, fg.Chunks)
	return nil
}

// show prints event or session ref: an event id keeps its meaning, and a
// session id prints the whole conversation.
func show(ctx context.Context, e *env, ref string) error {
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	ev, err := c.Event(ctx, id, ref)
	if err == nil {
		return showEvent(e, ev)
	}
	if !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	conv, cerr := c.Conversation(ctx, id, ref)
	if errors.Is(cerr, domain.ErrNotFound) {
		return fmt.Errorf("project %s has neither an event nor a session %q: ragd sessions list shows the sessions: %w", id, ref, cerr)
	}
	if cerr != nil {
		return cerr
	}
	if e.json {
		return e.printJSON(conv)
	}
	printConversation(e.stdout, conv)
	return nil
}

// listSessions prints a project's sessions, the most recent first.
func listSessions(ctx context.Context, e *env, q api.SessionsQuery) error {
	if q.From != "" {
		if _, err := transcript.ParseFormat(q.From); err != nil {
			return usagef("--from %q: want one of %s", q.From, formatNames())
		}
	}
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	list, err := c.Sessions(ctx, id, q)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(list)
	}
	printSessions(e.stdout, list)
	return nil
}

// sessionTimeLayout is how the session views show a time: to the minute,
// in the local zone.
const sessionTimeLayout = "2006-01-02 15:04"

// printSessions writes a session list for people: one line a session.
func printSessions(w io.Writer, list *api.SessionList) {
	if len(list.Sessions) == 0 {
		fmt.Fprintf(w, "no sessions in %s: import some with ragd sessions import --from TOOL\n", list.Project)
		return
	}
	for _, s := range list.Sessions {
		format := s.Format
		if format == "" {
			format = "events"
		}
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(w, "%s – %s  %-11s %12s  %s\n    %s\n", s.First.Local().Format(sessionTimeLayout), s.Last.Local().Format("15:04"),
			format, words.Plural(s.Messages, "message"), title, s.ID)
	}
}

// mechanismRunes bounds the one line a folded mechanism event gets.
const mechanismRunes = 100

// printConversation writes a session for people: each prompt and answer
// whole, each mechanism event on one line.
func printConversation(w io.Writer, conv *api.Conversation) {
	s := conv.Session
	fmt.Fprintf(w, "session %s of %s", s.ID, conv.Project)
	if s.Title != "" {
		fmt.Fprintf(w, " %q", s.Title)
	}
	fmt.Fprintf(w, "\n%s – %s, %s, %s\n", s.First.Local().Format(sessionTimeLayout), s.Last.Local().Format(sessionTimeLayout),
		words.Plural(s.Messages, "message"), words.Plural(s.Events, "event"))
	for _, ev := range conv.Events {
		if domain.Indexed(ev.Type) {
			fmt.Fprintf(w, "\n── %s · %s · %s\n%s\n", ev.Actor, ev.Time.Local().Format("15:04:05"), ev.ID, strings.TrimRight(ev.Text, "\n"))
			continue
		}
		fmt.Fprintf(w, "   · %s\n", api.FoldMechanism(ev, mechanismRunes))
	}
}

func showEvent(e *env, ev *domain.Event) error {
	if e.json {
		return e.printJSON(ev)
	}
	fmt.Fprintf(e.stdout, "%s  %s  %s (%s) in session %s", ev.Time.Local().Format("2006-01-02 15:04:05"), ev.ID, ev.Type, ev.Actor, ev.SessionID)
	if ev.Title != "" {
		fmt.Fprintf(e.stdout, " %q", ev.Title)
	}
	fmt.Fprintln(e.stdout)
	if ev.Text != "" {
		fmt.Fprintf(e.stdout, "\n%s\n", ev.Text)
	}
	if len(ev.Payload) > 0 {
		// Mechanism events (tool.call, tool.result…) carry their substance here.
		var b bytes.Buffer
		if json.Indent(&b, ev.Payload, "", "  ") != nil {
			b.Reset()
			b.Write(ev.Payload)
		}
		fmt.Fprintf(e.stdout, "\npayload:\n%s\n", b.String())
	}
	return nil
}

func importEventFile(ctx context.Context, e *env, path string) error {
	c, id, err := e.projectClient(ctx)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
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
		path, rep.Lines, rep.Events, rep.Appended, rep.Messages, rep.Duplicates, len(rep.Conflicts), rep.Bad)
	for _, le := range rep.LineErrors {
		fmt.Fprintf(e.stdout, "  line %d: %s\n", le.Line, le.Reason)
	}
	for _, c := range rep.Conflicts {
		fmt.Fprintf(e.stdout, "  conflict: %s\n", c.Error)
	}
	for _, kind := range sortedKeys(rep.Redactions) {
		fmt.Fprintf(e.stdout, "  redacted %d: %s\n", rep.Redactions[kind], kind)
	}
	if rep.Messages > 0 {
		fmt.Fprintln(e.stdout, searchableHint(ctx, c, id, rep.AppendResult))
	}
	return nil
}

// searchableHint says how new messages of a project become searchable: at
// once when their chunks were written with them; else by themselves within
// seconds when it reindexes automatically, else the command.
func searchableHint(ctx context.Context, c *client.Client, project string, res api.AppendResult) string {
	if res.Unindexed == 0 {
		return fmt.Sprintf("searchable now: %d chunks written", res.Chunks)
	}
	if p, err := c.Project(ctx, project); err == nil && p.AutoReindex {
		return "auto-reindex is on: the daemon makes them searchable within seconds"
	}
	return "make them searchable: ragd reindex --scope session"
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// followLine is a format's line of `ragd sessions follow`: its name, its
// state and the folders it reads, when it has any.
func followLine(format, state string, paths []string) string {
	line := fmt.Sprintf("%-12s %s", format, state)
	if len(paths) > 0 {
		line += " (" + strings.Join(paths, ", ") + ")"
	}
	return line
}

// redactSessions re-applies the daemon's redaction rules to what it
// stores, in the project given with --project or in every project.
func redactSessions(ctx context.Context, e *env, fs *flag.FlagSet) error {
	c, err := e.client()
	if err != nil {
		return err
	}
	project := ""
	projectGiven := false
	fs.Visit(func(f *flag.Flag) { projectGiven = projectGiven || f.Name == "project" })
	if projectGiven {
		if project, err = e.projectID(ctx, c); err != nil {
			return err
		}
	}
	rep, err := c.RedactSessions(ctx, project)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(rep)
	}
	n := 0
	for _, v := range rep.Redactions {
		n += v
	}
	fmt.Fprintf(e.stdout, "redacted %d secrets in %d projects\n", n, len(rep.Projects))
	for _, p := range rep.Projects {
		fmt.Fprintf(e.stdout, "  %s: %d events, %d session titles, %d chunks, %d checkpoints rewritten\n", p.Project, p.Events, p.Sessions, p.Chunks, p.Checkpoints)
	}
	for _, kind := range sortedKeys(rep.Redactions) {
		fmt.Fprintf(e.stdout, "  redacted %d: %s\n", rep.Redactions[kind], kind)
	}
	return nil
}

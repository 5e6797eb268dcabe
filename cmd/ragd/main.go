// Command ragd is the ragd daemon and its client in one binary.
//
//	ragd serve                 run the daemon in the foreground
//	ragd add [PATH]            register a git repository (default: the one here)
//	ragd search "query"        hybrid search with citations
//
// Run `ragd help` for every command.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	case errors.Is(err, errSilent):
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "ragd:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// errSilent exits non-zero after the command already said why.
var errSilent = errors.New("failed")

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg + " (ragd help)" }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "run the daemon in the foreground", cmdServe},
		{"add", "register a git repository: add [PATH] [--name NAME] [--auto-reindex] [--language L]", cmdAdd},
		{"projects", "list registered projects", cmdProjects},
		{"remove", "unregister a project and drop its index: remove PROJECT", cmdRemove},
		{"reindex", "rebuild a project's index: reindex [--scope docs|adr|session|all]", cmdReindex},
		{"search", `hybrid search: search "query" [--scope S] [--limit N] [--fusion F] [--explain]`, cmdSearch},
		{"coverage", "what is indexed, from which commit, and what is stale", cmdCoverage},
		{"language", "show or set the language of a project's keyword index: language [english|russian|portuguese|spanish|german|french|simple|auto]", cmdLanguage},
		{"feedback", "vote a hit: feedback SEARCH_ID CHUNK_ID useful|irrelevant", cmdFeedback},
		{"sessions", "session events: sessions import FILE | sessions show EVENT_ID", cmdSessions},
		{"measure", "precision@k, latency and degradation over a window: measure [--since 7d]", cmdMeasure},
		{"eval", "retrieval quality on judged queries: eval GOLDEN | --beir DIR | --telemetry [--work DIR]", cmdEval},
		{"calibrate", "search fusion settings on judged queries: calibrate GOLDEN | --beir DIR | --telemetry [--holdout 0.2] [--apply]", cmdCalibrate},
		{"doctor", "check socket, database, sqlite-vec and the embedding provider", cmdDoctor},
		{"service", "per-user background service: service install|uninstall|start|stop|status", cmdService},
		{"config", "print the configuration file with every default", cmdConfig},
		{"version", "print the version", cmdVersion},
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	return usagef("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ragd — local hybrid search over your projects' docs, ADRs and sessions")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: ragd COMMAND [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command accepts --json (machine output), --socket PATH and --config PATH.")
	fmt.Fprintln(w, "The project defaults to the git repository containing the current directory.")
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

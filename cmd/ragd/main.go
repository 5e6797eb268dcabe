// Command ragd is the ragd daemon and its client in one binary.
//
//	ragd serve                 run the daemon in the foreground
//	ragd add [PATH]            register a git repository (default: the one here)
//	ragd search "query"        hybrid search with citations
//
// Run `ragd help` for every command and `ragd help COMMAND` for one. Each
// command lives in a file of its own, with its usage text.
package main

import (
	"context"
	"errors"
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

// commands is the dispatch table, in the order `ragd help` lists them. A
// new command is a file defining its command value, plus one line here.
var commands = []command{
	serveCommand,
	addCommand,
	projectsCommand,
	removeCommand,
	reindexCommand,
	searchCommand,
	coverageCommand,
	languageCommand,
	layoutCommand,
	feedbackCommand,
	sessionsCommand,
	measureCommand,
	evalCommand,
	calibrateCommand,
	mcpCommand,
	doctorCommand,
	serviceCommand,
	configCommand,
	versionCommand,
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 || isHelp(args[0]) || args[0] == "help" && len(args) == 1 {
		usage(stdout)
		return nil
	}
	name, rest := args[0], args[1:]
	if name == "help" {
		// `ragd help CMD` is `ragd CMD -h`.
		name, rest = args[1], []string{"-h"}
	}
	c := lookup(name)
	if c == nil {
		return usagef("unknown command %q", name)
	}
	e.cmd = c
	err := c.run(ctx, e, rest)
	e.warnStaleConfig(ctx)
	if !errors.Is(err, errHelped) {
		return err
	}
	return nil
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "ragd — local hybrid search over your projects' docs, ADRs and sessions")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: ragd COMMAND [flags]")
	fmt.Fprintln(w)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command accepts --json (machine output), --socket PATH and --config PATH.")
	fmt.Fprintln(w, "The project defaults to the git repository containing the current directory.")
	fmt.Fprintln(w, "Run `ragd help COMMAND` (or `ragd COMMAND -h`) for a command's flags and examples.")
}

func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

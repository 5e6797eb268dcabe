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

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/terminal"
	"github.com/ragd/ragd/internal/words"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err == nil {
		return
	}
	if !errors.Is(err, errSilent) {
		// An error may quote a file name or a title: shown as text.
		fmt.Fprintln(os.Stderr, "ragd:", terminal.Safe(err.Error()))
	}
	os.Exit(exitCode(err))
}

// Exit codes: a mistake in the command line is told from a failure.
const (
	exitFailed = 1
	exitUsage  = 2
)

func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailed
}

// errSilent exits non-zero after the command already said why.
var errSilent = errors.New("failed")

// Codes of the JSON errors of the command line's own mistakes and
// failures; the daemon's errors keep the daemon's code (api.Code…).
const (
	codeUsage  = "usage"
	codeFailed = "failed"
)

// printedError is an error already printed as JSON: main exits as err
// says without printing it again.
type printedError struct{ err error }

func (e printedError) Error() string   { return e.err.Error() }
func (e printedError) Unwrap() []error { return []error{e.err, errSilent} }

// printJSONError prints err in the JSON error shape of the socket's
// answers ({"error": {"code", "message"}}) on standard output, where --json
// output goes, and returns it as printed.
func (e *env) printJSONError(err error) error {
	detail := api.ErrorDetail{Code: codeFailed, Message: err.Error()}
	var ce *client.Error
	var ue usageError
	switch {
	case errors.As(err, &ce) && ce.Code != "":
		detail.Code = ce.Code
	case errors.As(err, &ue):
		detail.Code = codeUsage
	}
	e.printJSON(api.ErrorBody{Error: detail}) // the exit code says it too
	return printedError{err}
}

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
	browseCommand,
	measureCommand,
	evalCommand,
	calibrateCommand,
	mcpCommand,
	doctorCommand,
	teamCommand,
	serviceCommand,
	configCommand,
	modelCommand,
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
		names := make([]string, len(commands))
		for i, c := range commands {
			names[i] = c.name
		}
		if near := words.Nearest(name, names, maxCommandTypo); near != "" {
			return usagef("unknown command %q (did you mean %q?)", name, near)
		}
		return usagef("unknown command %q", name)
	}
	e.cmd = c
	err := c.run(ctx, e, rest)
	e.warnStaleConfig(ctx)
	switch {
	case errors.Is(err, errHelped):
		return nil
	case err != nil && e.json && !errors.Is(err, errSilent):
		return e.printJSONError(err)
	}
	return err
}

// maxCommandTypo is the most edits between a mistyped command and the one
// suggested.
const maxCommandTypo = 2

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

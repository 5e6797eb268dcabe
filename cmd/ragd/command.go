package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ragd/ragd/internal/terminal"
	"github.com/ragd/ragd/internal/words"
)

// command is one subcommand, defined in a file of its own.
type command struct {
	name string
	// summary is its line in `ragd help`.
	summary string
	// usage is the synopsis and what the command does, and examples are
	// command lines with a comment each: with the flags between them, they
	// are what `ragd help NAME` and `ragd NAME -h` print.
	usage, examples string
	run             func(ctx context.Context, e *env, args []string) error
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// flags returns the command's flag set with the common flags bound to e.
func (e *env) flags() *flag.FlagSet {
	fs := flag.NewFlagSet("ragd "+e.cmd.name, flag.ContinueOnError)
	// parse prints the usage: on standard output when asked for, on
	// standard error after a mistake, which main prints once, after it.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.BoolVar(&e.json, "json", false, "machine output (JSON)")
	fs.StringVar(&e.socket, "socket", "", "daemon socket (default: from the configuration)")
	fs.StringVar(&e.configPath, "config", "", "configuration file (default: $XDG_CONFIG_HOME/ragd/config.toml)")
	return fs
}

// projectFlag adds --project to fs.
func (e *env) projectFlag(fs *flag.FlagSet) {
	fs.StringVar(&e.project, "project", "", "project name or path (default: the git repository containing the current directory)")
}

// errHelped ends a command whose usage was asked for and printed: not a
// failure.
var errHelped = errors.New("usage printed")

// parse parses args with fs, allowing flags after positional arguments
// (`ragd search "query" --limit 3`). Asked for help (-h), it prints the
// command's usage on standard output and returns errHelped.
func (e *env) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				e.printUsage(e.stdout, fs)
				return nil, errHelped
			}
			if !e.json {
				e.printUsage(e.stderr, fs)
			}
			return nil, usageError{err.Error() + nearFlag(fs, err)}
		}
		args = fs.Args()
		if len(args) == 0 {
			e.safeOutput()
			return pos, nil
		}
		if args[0] == "--" {
			e.safeOutput()
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// printUsage writes the command's usage, its flags and its examples.
func (e *env) printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\nFlags:\n", strings.TrimRight(e.cmd.usage, "\n"))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(e.cmd.examples, "\n"))
}

// nearFlag is the " (did you mean --X?)" of an unknown flag's error when
// fs has a flag that name is a typo of.
func nearFlag(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := words.Nearest(strings.TrimLeft(name, "-"), names, maxCommandTypo); near != "" {
		return fmt.Sprintf(" (did you mean --%s?)", near)
	}
	return ""
}

// safeOutput makes the human-readable output of a command safe for a
// terminal once its flags are parsed: what comes from the index or a file
// name (a title, a snippet, a session's message) goes through
// terminal.Writer, its control characters shown as text. --json is left
// exact (JSON escapes them itself), and so is `ragd mcp`'s, the protocol.
func (e *env) safeOutput() {
	if e.json || e.safe || e.cmd != nil && e.cmd.name == "mcp" {
		return
	}
	e.stdout, e.stderr, e.safe = terminal.Writer(e.stdout), terminal.Writer(e.stderr), true
}

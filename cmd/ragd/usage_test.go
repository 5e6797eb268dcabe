package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestUsage: every command has a summary, a usage text and examples;
// `ragd help CMD`, `ragd CMD -h` and `ragd CMD --help` print them with its
// flags on standard output and succeed, with nothing on standard error.
func TestUsage(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			if seen[c.name] {
				t.Fatalf("command %q registered twice", c.name)
			}
			seen[c.name] = true
			if c.summary == "" || c.run == nil {
				t.Fatalf("command %q: no summary or no run", c.name)
			}
			if !strings.HasPrefix(c.usage, "Usage: ragd "+c.name) || strings.Count(c.usage, "\n") < 3 {
				t.Errorf("usage of %s does not start with its synopsis and say what it does:\n%s", c.name, c.usage)
			}
			if !strings.Contains(c.examples, "ragd "+c.name) {
				t.Errorf("examples of %s show no command line:\n%s", c.name, c.examples)
			}
			var want []byte
			for _, args := range [][]string{{"help", c.name}, {c.name, "-h"}, {c.name, "--help"}} {
				out, errOut, err := ragdErr(t, args...)
				if err != nil || len(errOut) != 0 {
					t.Fatalf("ragd %s: %v, stderr %q", strings.Join(args, " "), err, errOut)
				}
				for _, part := range []string{c.usage, "\nFlags:\n", "-json", "-socket", "-config", "\nExamples:\n", c.examples} {
					if !bytes.Contains(out, []byte(part)) {
						t.Errorf("ragd %s lacks %q:\n%s", strings.Join(args, " "), part, out)
					}
				}
				if want == nil {
					want = out
				} else if !bytes.Equal(out, want) {
					t.Errorf("ragd %s differs from ragd help %s:\n%s", strings.Join(args, " "), c.name, out)
				}
			}
		})
	}

	// The list names every command.
	out, _, err := ragdErr(t, "help")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if !strings.Contains(string(out), "  "+c.name+" ") {
			t.Errorf("ragd help does not list %s:\n%s", c.name, out)
		}
	}
	// Help on a command that does not exist is a usage error.
	var ue usageError
	if _, _, err := ragdErr(t, "help", "bogus"); !errors.As(err, &ue) || !strings.Contains(err.Error(), `"bogus"`) {
		t.Errorf("ragd help bogus: %v", err)
	}
}

// TestUsage_BadFlag: a flag the command does not have is an error, with
// the command's usage on standard error.
func TestUsage_BadFlag(t *testing.T) {
	out, errOut, err := ragdErr(t, "search", "x", "--bogus")
	if err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("ragd search --bogus: %v", err)
	}
	if len(out) != 0 || !strings.Contains(string(errOut), searchCommand.usage) {
		t.Errorf("stdout %q, stderr %q: want the usage on stderr", out, errOut)
	}
}

// TestUsage_ExitCode runs the binary: asking for help exits 0.
func TestUsage_ExitCode(t *testing.T) {
	cmd := exec.Command(os.Args[0], "reindex", "-h")
	cmd.Env = append(os.Environ(), mainChildEnv+"=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("ragd reindex -h: %v", err)
	}
	if !strings.Contains(stdout.String(), reindexCommand.usage) {
		t.Errorf("ragd reindex -h printed:\n%s", stdout.String())
	}
}

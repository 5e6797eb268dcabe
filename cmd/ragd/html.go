package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
)

// htmlFlag adds --html to fs: the report of measure, eval and calibrate as
// one self-contained page with charts (package report).
func htmlFlag(fs *flag.FlagSet) *string {
	return fs.String("html", "", "also write the report as one self-contained HTML page with charts to `FILE` (- for standard output, in place of the table)")
}

// printReport prints a report to standard output, as JSON (v) with --json
// or else as a table; with --html it writes the page too, to its file, or
// to standard output in place of the table.
func (e *env) printReport(htmlPath string, v any, table, page func(io.Writer) error) error {
	if htmlPath == "-" && e.json {
		return usagef("--json and --html - both write to standard output: give --html a file")
	}
	if htmlPath != "" {
		// Rendered whole first: a failure leaves no half-written page.
		var b bytes.Buffer
		if err := page(&b); err != nil {
			return fmt.Errorf("render the HTML report: %w", err)
		}
		if htmlPath == "-" {
			_, err := e.stdout.Write(b.Bytes())
			return err
		}
		if err := os.WriteFile(htmlPath, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("write the HTML report: %w", err)
		}
	}
	if e.json {
		return e.printJSON(v)
	}
	return table(e.stdout)
}

// textOut is where a command's closing words go: standard output, unless
// the page is written there (--html -).
func (e *env) textOut(htmlPath string) io.Writer {
	if htmlPath == "-" {
		return e.stderr
	}
	return e.stdout
}

package transcript

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragd/ragd"
)

// Descriptor is everything ragd knows of one transcript format: its name,
// where the tool keeps its transcripts, how to recognise them, how they
// change, and its reader. A format is one file declaring its Descriptor
// and one line in registry; the daemon, the follower, the command line and
// the configuration template take the list from there.
type Descriptor struct {
	// Name is the format as --from and [sessions] follow spell it.
	Name Format
	// Tool is the tool's name, for people ("Claude Code").
	Tool string
	// Paths returns the default locations of the transcripts on this
	// machine, honouring the tool's environment overrides; getenv is never
	// nil. A per-repository format returns its override only (or nothing):
	// the repositories are added by the caller.
	Paths func(getenv func(string) string) ([]string, error)
	// Match reports whether the file at path (by its name and folder) is a
	// transcript of this format, for walking a folder.
	Match func(path string) bool
	// Looks says what Match looks for, for a report that found nothing
	// ("rollout-*.jsonl files").
	Looks string
	// RepoFiles, set for a per-repository format, are where its transcripts
	// are in a repository (slash-separated, relative to its root): a folder
	// given is a repository, looked up at these paths and not walked.
	RepoFiles []string
	// Rewrites reports whether the file at path is rewritten in place (a
	// JSON document, a database) rather than appended to: it is read whole
	// each time it changes, and its events' ids say which were stored.
	// nil means every file of the format is appended to.
	Rewrites func(path string) bool
	// Read reads one transcript from r; name is its path. See [Read].
	Read func(r io.Reader, name string, opt Options, fn Func) (Stats, error)
	// ReadFile, set for a source that is a database rather than a stream
	// (Read is then nil), reads the file at path without writing to it;
	// see [ReadFile]. Such a source is read whole each time it changes.
	ReadFile func(ctx context.Context, path string, opt Options, fn Func) (Stats, error)
	// Database, for a format of both kinds (Cursor: JSON lines and its
	// editor's state database), reports which files ReadFile reads; nil
	// means all of them, when ReadFile is set.
	Database func(path string) bool
}

// IsDatabase reports whether the file at path is a database of the
// format, read by path (ReadFile) rather than as a stream.
func (d *Descriptor) IsDatabase(path string) bool {
	return d.ReadFile != nil && (d.Database == nil || d.Database(path))
}

// HasDatabases reports whether some of the format's files are databases.
func (d *Descriptor) HasDatabases() bool { return d.ReadFile != nil }

// PerRepository reports whether the format keeps its transcripts in each
// repository rather than in a per-user folder.
func (d *Descriptor) PerRepository() bool { return len(d.RepoFiles) > 0 }

// IsRewritten reports whether the file at path is rewritten in place.
func (d *Descriptor) IsRewritten(path string) bool {
	return d.IsDatabase(path) || (d.Rewrites != nil && d.Rewrites(path))
}

// registry lists every format, in the order commands show them. Adding a
// format adds one line here.
var registry = []*Descriptor{
	&claudeCodeFormat,
	&codexFormat,
	&geminiFormat,
	&aiderFormat,
	&copilotCLIFormat,
	&qwenFormat,
	&droidFormat,
	&cursorFormat,
	&ampFormat,
	&continueFormat,
	&clineFormat,
	&copilotFormat,
	&crushFormat,
	&openCodeFormat,
}

// Formats lists every Format, in the order commands show them.
var Formats = formatNames()

func formatNames() []Format {
	out := make([]Format, len(registry))
	for i, d := range registry {
		out[i] = d.Name
	}
	return out
}

// Names returns the formats' names joined by sep, for help texts.
func Names(sep string) string {
	names := make([]string, len(registry))
	for i, d := range registry {
		names[i] = string(d.Name)
	}
	return strings.Join(names, sep)
}

// Lookup returns the descriptor of format f, or an error wrapping
// ragd.ErrInvalid that lists the known ones.
func Lookup(f Format) (*Descriptor, error) {
	for _, d := range registry {
		if d.Name == f {
			return d, nil
		}
	}
	return nil, fmt.Errorf("%w: unknown transcript format %q (known: %s)", ragd.ErrInvalid, string(f), Names(", "))
}

// Descriptors returns every format's descriptor, in the order of Formats.
func Descriptors() []*Descriptor { return append([]*Descriptor(nil), registry...) }

// ParseFormat returns the Format named s, or an error wrapping
// ragd.ErrInvalid that lists the known ones.
func ParseFormat(s string) (Format, error) {
	d, err := Lookup(Format(s))
	if err != nil {
		return "", err
	}
	return d.Name, nil
}

// homePath returns $HOME joined with elems, or an error naming the format
// when $HOME is not set.
func homePath(f Format, getenv func(string) string, elems ...string) (string, error) {
	home := getenv("HOME")
	if home == "" {
		return "", fmt.Errorf("transcript: no home directory for the %s transcripts ($HOME is not set)", f)
	}
	return filepath.Join(append([]string{home}, elems...)...), nil
}

// envOrHome returns $env joined with under when env is set, else $HOME
// joined with def.
func envOrHome(f Format, getenv func(string) string, env string, under, def []string) ([]string, error) {
	if d := getenv(env); d != "" {
		return []string{filepath.Join(append([]string{d}, under...)...)}, nil
	}
	p, err := homePath(f, getenv, def...)
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}

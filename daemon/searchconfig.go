package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragd/ragd/search"
)

// SearchConfig returns the [search] section as the search package's
// configuration, validated.
func (c SearchConfig) SearchConfig() (search.Config, error) { return c.searchConfig() }

// WriteSearchConfig sets the fusion keys of the [search] section of the
// configuration file at path (fusion, vector_weight, lexical_weight,
// threshold, rrf_k, candidates, normalization, fill) to c, keeping every
// other key, section and comment as written. A missing file is created
// from ConfigTemplate. The new text is parsed back and checked (the
// [search] section holds c, every other setting is unchanged) before it
// atomically replaces the file. The daemon reads its configuration at
// start: it uses the new settings once restarted.
func WriteSearchConfig(path string, c search.Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("write [search] of %s: %w", path, err)
	}
	old, err := os.ReadFile(path)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = []byte(ConfigTemplate)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("write [search] of %s: %w", path, err)
		}
	case err != nil:
		return fmt.Errorf("write [search] of %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	before := DefaultConfig()
	if err := ParseConfig(strings.NewReader(string(old)), &before); err != nil {
		return fmt.Errorf("write [search] of %s: the file does not parse, fix it first: %w", path, err)
	}
	text := setSearchKeys(string(old), searchValues(c))

	after := DefaultConfig()
	if err := ParseConfig(strings.NewReader(text), &after); err != nil {
		return fmt.Errorf("write [search] of %s: the edited file would not parse (%v): set the [search] keys by hand", path, err)
	}
	got, err := after.Search.searchConfig()
	if err != nil || got != c {
		return fmt.Errorf("write [search] of %s: the edited file would not hold the settings (%+v): set the [search] keys by hand", path, got)
	}
	want := before
	want.Search = after.Search
	want.Search.Limit = before.Search.Limit
	if !reflect.DeepEqual(after, want) {
		return fmt.Errorf("write [search] of %s: the edit would change settings outside [search]: set the [search] keys by hand", path)
	}

	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.toml")
	if err != nil {
		return fmt.Errorf("write [search] of %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return fmt.Errorf("write [search] of %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write [search] of %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write [search] of %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write [search] of %s: %w", path, err)
	}
	return nil
}

// searchValues returns the TOML values of c's keys, in file order.
func searchValues(c search.Config) [][2]string {
	float := func(x float64) string {
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	}
	return [][2]string{
		{"fusion", strconv.Quote(string(c.Fusion))},
		{"vector_weight", float(c.VectorWeight)},
		{"lexical_weight", float(c.LexicalWeight)},
		{"threshold", float(c.Threshold)},
		{"rrf_k", strconv.Itoa(c.RRFK)},
		{"candidates", strconv.Itoa(c.Candidates)},
		{"normalization", strconv.Quote(string(c.Normalization))},
		{"fill", strconv.FormatBool(c.Fill)},
	}
}

var (
	tableHeader  = regexp.MustCompile(`^\s*\[`)
	searchHeader = regexp.MustCompile(`^\s*\[\s*search\s*\]\s*(#.*)?$`)
)

// setSearchKeys sets keys in the [search] table of text: a key already
// there gets the new value with its comment kept, a missing key is added
// after the table's last key, and a missing table is appended.
func setSearchKeys(text string, values [][2]string) string {
	lines := strings.Split(text, "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		if start < 0 && searchHeader.MatchString(l) {
			start = i
			continue
		}
		if start >= 0 && tableHeader.MatchString(l) {
			end = i
			break
		}
	}
	if start < 0 {
		var b strings.Builder
		b.WriteString(strings.TrimRight(text, "\n"))
		b.WriteString("\n\n[search]\n")
		for _, kv := range values {
			fmt.Fprintf(&b, "%s = %s\n", kv[0], kv[1])
		}
		return b.String()
	}
	last := start
	for i := start + 1; i < end; i++ {
		if t := strings.TrimSpace(lines[i]); t != "" && !strings.HasPrefix(t, "#") {
			last = i
		}
	}
	var missing []string
	for _, kv := range values {
		re := regexp.MustCompile(`^(\s*` + regexp.QuoteMeta(kv[0]) + `\s*=\s*)("[^"]*"|'[^']*'|[^\s#]+)(.*)$`)
		found := false
		for i := start + 1; i < end; i++ {
			if m := re.FindStringSubmatch(lines[i]); m != nil {
				lines[i] = m[1] + kv[1] + keepComment(m[3], len(m[2]), len(kv[1]))
				found = true
			}
		}
		if !found {
			missing = append(missing, kv[0]+" = "+kv[1])
		}
	}
	if len(missing) > 0 {
		lines = append(lines[:last+1], append(missing, lines[last+1:]...)...)
	}
	return strings.Join(lines, "\n")
}

// keepComment returns the rest of a key's line after its value, keeping a
// comment aligned where it was when the value's width changes.
func keepComment(rest string, oldWidth, newWidth int) string {
	t := strings.TrimLeft(rest, " \t")
	if t == "" {
		return ""
	}
	pad := len(rest) - len(t) + oldWidth - newWidth
	return strings.Repeat(" ", max(1, pad)) + t
}

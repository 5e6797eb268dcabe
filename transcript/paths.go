package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// AiderHistoryFile is the name of Aider's chat history in a repository.
const AiderHistoryFile = ".aider.chat.history.md"

// DefaultPaths returns where format f keeps its transcripts on this
// machine, honouring each tool's override (see each Descriptor's Paths):
// for a per-repository format such as Aider only its override, if set;
// pass the repositories to Discover. getenv is os.Getenv in use; tests
// pass their own.
func DefaultPaths(f Format, getenv func(string) string) ([]string, error) {
	d, err := Lookup(f)
	if err != nil {
		return nil, err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return d.Paths(getenv)
}

// IsTranscript reports whether the file at path (by its name and the
// folder it is in) is a transcript of format f.
func IsTranscript(f Format, path string) bool {
	d, err := Lookup(f)
	return err == nil && d.Match(path)
}

// Discover lists the transcripts of format f under paths, sorted: a path
// that is a file is listed as it is (whatever its name); a folder is
// walked for the files IsTranscript accepts. For a per-repository format
// (Aider) a repository (a folder with .git) is looked up at the format's
// RepoFiles: it is not walked, since a repository's tree can be large. A path
// that does not exist is skipped: a tool not installed has no
// transcripts. Folders it cannot read are skipped: DiscoverAll says which.
func Discover(f Format, paths []string) ([]string, error) {
	d, err := DiscoverAll(f, paths)
	return d.Files, err
}

// Discovery is what DiscoverAll found.
type Discovery struct {
	// Files are the transcripts, sorted.
	Files []string
	// Unreadable are the paths and folders that could not be read, each
	// as its error ("open /proc/1/fdinfo: permission denied"), in walk
	// order: they were skipped.
	Unreadable []string
}

// DiscoverAll is Discover, saying which folders it skipped as unreadable:
// a walk from / meets folders of other users, and they are no reason to
// list nothing. Symbolic links are not followed in a walk, nor is a
// repository file (an Aider history) that is one: in a repository others
// may write to, a link to another of the owner's files would import it. A
// path given is followed, link or not: it is its giver's to give.
func DiscoverAll(f Format, paths []string) (Discovery, error) {
	var d Discovery
	desc, err := Lookup(f)
	if err != nil {
		return d, err
	}
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			d.Unreadable = append(d.Unreadable, err.Error())
			continue
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		if desc.PerRepository() && IsRepository(p) {
			for _, rf := range desc.RepoFiles {
				h := filepath.Join(p, filepath.FromSlash(rf))
				if hi, err := os.Lstat(h); err == nil && hi.Mode().IsRegular() {
					out = append(out, h)
				}
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, de fs.DirEntry, err error) error {
			if err != nil {
				// A folder that cannot be read (WalkDir then skips it) or
				// an entry gone since its folder was read.
				if !errors.Is(err, fs.ErrNotExist) {
					d.Unreadable = append(d.Unreadable, err.Error())
				}
				return nil
			}
			if de.Type().IsRegular() && desc.Match(path) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return d, fmt.Errorf("transcript: discover %s: %w", p, err)
		}
	}
	slices.Sort(out)
	d.Files = slices.Compact(out)
	return d, nil
}

// IsRepository reports whether dir is the top of a git working tree (it
// has .git): a per-repository format looks it up rather than walks it.
func IsRepository(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

// MatchProject returns the root, among roots (the registered projects'
// repository roots), that the session belongs to: the deepest root
// containing the session's cwd, for a Gemini session without a cwd the
// root whose GeminiProjectHash is the session's ProjectHash, and for a
// session known by its folder's slug only (Cursor) the root of that slug. ok is false
// when none matches. Paths are compared cleaned, not resolved: pass roots
// as the tools would have seen them (absolute, symlinks resolved the same
// way).
func MatchProject(s Session, roots []string) (root string, ok bool) {
	if s.Cwd == "" && s.Slug != "" {
		for _, r := range roots {
			if PathSlug(r) == PathSlug(s.Slug) {
				return r, true
			}
		}
		return "", false
	}
	if s.Cwd == "" {
		if s.ProjectHash == "" {
			return "", false
		}
		for _, r := range roots {
			if GeminiProjectHash(r) == s.ProjectHash || GeminiProjectHash(filepath.Clean(r)) == s.ProjectHash {
				return r, true
			}
		}
		return "", false
	}
	return DeepestRoot(s.Cwd, roots)
}

// PathSlug is a path as Cursor names a project's folder: every run of
// characters other than letters and digits one dash, none at the ends.
// Both sides of a comparison are slugged, so a slug is its own slug.
func PathSlug(p string) string {
	var b strings.Builder
	dash := false
	for _, r := range p {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// DeepestRoot returns the deepest of roots that contains dir (dir itself
// or a folder above it), and whether there is one.
func DeepestRoot(dir string, roots []string) (string, bool) {
	dir = filepath.Clean(dir)
	best, bestLen := "", -1
	for _, r := range roots {
		c := filepath.Clean(r)
		if !within(dir, c) {
			continue
		}
		if len(c) > bestLen {
			best, bestLen = r, len(c)
		}
	}
	return best, bestLen >= 0
}

// within reports whether dir is root or below it, by whole path elements.
func within(dir, root string) bool {
	if dir == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(dir, root)
	}
	return strings.HasPrefix(dir, root+string(filepath.Separator))
}

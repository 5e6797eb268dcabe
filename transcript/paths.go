package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// AiderHistoryFile is the name of Aider's chat history in a repository.
const AiderHistoryFile = ".aider.chat.history.md"

// DefaultPaths returns where format f keeps its transcripts on this
// machine, honouring each tool's override: $CLAUDE_CONFIG_DIR/projects
// (default ~/.claude/projects), $CODEX_HOME/sessions (default
// ~/.codex/sessions), $GEMINI_CLI_HOME/.gemini/tmp (default
// ~/.gemini/tmp). Aider keeps its history in each repository, so for Aider
// it returns $AIDER_CHAT_HISTORY_FILE when set and otherwise nothing: pass
// the repositories to Discover. getenv is os.Getenv in use; tests pass
// their own.
func DefaultPaths(f Format, getenv func(string) string) ([]string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	need := func() error {
		if home == "" {
			return fmt.Errorf("transcript: no home directory for the %s transcripts ($HOME is not set)", f)
		}
		return nil
	}
	switch f {
	case ClaudeCode:
		if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return []string{filepath.Join(d, "projects")}, nil
		}
		if err := need(); err != nil {
			return nil, err
		}
		return []string{filepath.Join(home, ".claude", "projects")}, nil
	case Codex:
		if d := getenv("CODEX_HOME"); d != "" {
			return []string{filepath.Join(d, "sessions")}, nil
		}
		if err := need(); err != nil {
			return nil, err
		}
		return []string{filepath.Join(home, ".codex", "sessions")}, nil
	case Gemini:
		if d := getenv("GEMINI_CLI_HOME"); d != "" {
			home = d
		}
		if err := need(); err != nil {
			return nil, err
		}
		return []string{filepath.Join(home, ".gemini", "tmp")}, nil
	case Aider:
		if p := getenv("AIDER_CHAT_HISTORY_FILE"); p != "" {
			return []string{p}, nil
		}
		return nil, nil
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// IsTranscript reports whether the file at path (by its name and the
// folder it is in) is a transcript of format f: Claude Code *.jsonl
// (subagent files included), Codex rollout-*.jsonl, Gemini session-*.json
// and session-*.jsonl in a chats folder, Aider's .aider.chat.history.md.
func IsTranscript(f Format, path string) bool {
	base := filepath.Base(path)
	switch f {
	case ClaudeCode:
		return strings.HasSuffix(base, ".jsonl")
	case Codex:
		return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl")
	case Gemini:
		return strings.HasPrefix(base, "session-") && (strings.HasSuffix(base, ".json") || strings.HasSuffix(base, ".jsonl")) &&
			filepath.Base(filepath.Dir(path)) == "chats"
	case Aider:
		return base == AiderHistoryFile
	}
	return false
}

// Discover lists the transcripts of format f under paths, sorted: a path
// that is a file is listed as it is (whatever its name); a folder is
// walked for the files IsTranscript accepts. For Aider a folder is a
// repository, whose history is at its top: Aider's folders are not walked,
// since a repository's tree can be large and holds one history. A path
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
// list nothing. Symbolic links are not followed in a walk, nor is an
// Aider history that is one: in a repository others may write to, a link
// to another of the owner's files would import it. A path given is
// followed, link or not: it is its giver's to give.
func DiscoverAll(f Format, paths []string) (Discovery, error) {
	var d Discovery
	if _, err := ParseFormat(string(f)); err != nil {
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
		if f == Aider {
			h := filepath.Join(p, AiderHistoryFile)
			if hi, err := os.Lstat(h); err == nil && hi.Mode().IsRegular() {
				out = append(out, h)
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
			if de.Type().IsRegular() && IsTranscript(f, path) {
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

// MatchProject returns the root, among roots (the registered projects'
// repository roots), that the session belongs to: the deepest root
// containing the session's cwd, or for a Gemini session without a cwd the
// root whose GeminiProjectHash is the session's ProjectHash. ok is false
// when none matches. Paths are compared cleaned, not resolved: pass roots
// as the tools would have seen them (absolute, symlinks resolved the same
// way).
func MatchProject(s Session, roots []string) (root string, ok bool) {
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

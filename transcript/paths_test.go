package transcript_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ragd/ragd/transcript"
)

func TestDefaultPaths(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	cases := []struct {
		f      transcript.Format
		getenv func(string) string
		want   []string
	}{
		{transcript.ClaudeCode, env("HOME", "/h"), []string{"/h/.claude/projects"}},
		{transcript.ClaudeCode, env("HOME", "/h", "CLAUDE_CONFIG_DIR", "/c"), []string{"/c/projects"}},
		{transcript.Codex, env("HOME", "/h"), []string{"/h/.codex/sessions"}},
		{transcript.Codex, env("HOME", "/h", "CODEX_HOME", "/x"), []string{"/x/sessions"}},
		{transcript.Gemini, env("HOME", "/h"), []string{"/h/.gemini/tmp"}},
		{transcript.Gemini, env("HOME", "/h", "GEMINI_CLI_HOME", "/g"), []string{"/g/.gemini/tmp"}},
		{transcript.Aider, env("HOME", "/h"), nil},
		{transcript.Aider, env("AIDER_CHAT_HISTORY_FILE", "/r/h.md"), []string{"/r/h.md"}},
		{transcript.CopilotCLI, env("HOME", "/h"), []string{"/h/.copilot/session-state"}},
		{transcript.CopilotCLI, env("HOME", "/h", "COPILOT_HOME", "/p"), []string{"/p/session-state"}},
		{transcript.Qwen, env("HOME", "/h"), []string{"/h/.qwen/projects"}},
		{transcript.Droid, env("HOME", "/h"), []string{"/h/.factory/sessions"}},
		{transcript.Cursor, env("HOME", "/h"), []string{"/h/.cursor/projects"}},
		{transcript.Amp, env("HOME", "/h"), []string{"/h/.local/share/amp/threads"}},
		{transcript.Amp, env("HOME", "/h", "XDG_DATA_HOME", "/d"), []string{"/d/amp/threads"}},
		{transcript.Continue, env("HOME", "/h"), []string{"/h/.continue/sessions"}},
		{transcript.Continue, env("HOME", "/h", "CONTINUE_GLOBAL_DIR", "/k"), []string{"/k/sessions"}},
	}
	for _, c := range cases {
		got, err := transcript.DefaultPaths(c.f, c.getenv)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("DefaultPaths(%s) = %v, %v; want %v", c.f, got, err, c.want)
		}
	}
	if _, err := transcript.DefaultPaths(transcript.ClaudeCode, env()); err == nil {
		t.Error("DefaultPaths without HOME: no error")
	}
	if _, err := transcript.DefaultPaths("vim", env("HOME", "/h")); err == nil {
		t.Error("DefaultPaths of an unknown format: no error")
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"claude/projects/-home-dev-proj/s1.jsonl",
		"claude/projects/-home-dev-proj/s1/subagents/agent-a1.jsonl",
		"claude/projects/-home-dev-proj/notes.txt",
		"codex/sessions/2026/01/03/rollout-2026-01-03T09-00-00-abc.jsonl",
		"codex/sessions/2026/01/03/other.jsonl",
		"gemini/tmp/hash/chats/session-1.json",
		"gemini/tmp/hash/chats/session-2.jsonl",
		"gemini/tmp/hash/logs.json",
		"repo/.aider.chat.history.md",
		"repo/sub/.aider.chat.history.md",
		"cursor/projects/home-dev-proj/agent-transcripts/c1.jsonl",
		"cursor/projects/home-dev-proj/agent-tools/t1.txt",
		"qwen/projects/p/chats/q1.jsonl",
		"qwen/projects/p/logs.jsonl",
		"amp/threads/T-1.json",
		"amp/threads/other.json",
		"continue/sessions/k1.json",
		"continue/sessions/sessions.json",
	}
	// The repository is a git working tree: looked up, not walked.
	if err := os.MkdirAll(filepath.Join(root, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(root, n))
		}
		return out
	}
	cases := []struct {
		f     transcript.Format
		paths []string
		want  []string
	}{
		// The main transcript sorts before its subagents.
		{transcript.ClaudeCode, j("claude/projects", "missing"), j(files[0], files[1])},
		{transcript.Codex, j("codex/sessions"), j(files[3])},
		{transcript.Gemini, j("gemini/tmp"), j(files[5], files[6])},
		// A repository's history at its top only; a file as given.
		{transcript.Aider, j("repo", "repo/sub/.aider.chat.history.md"), j(files[8], files[9])},
		{transcript.Cursor, j("cursor/projects"), j(files[10])},
		{transcript.Qwen, j("qwen/projects"), j(files[12])},
		{transcript.Amp, j("amp/threads"), j(files[14])},
		{transcript.Continue, j("continue/sessions"), j(files[16])},
	}
	for _, c := range cases {
		got, err := transcript.Discover(c.f, c.paths)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Discover(%s) = %v, %v; want %v", c.f, got, err, c.want)
		}
	}
}

func TestMatchProject(t *testing.T) {
	roots := []string{"/home/dev/proj", "/home/dev/proj/vendor/lib", "/home/dev/project2", "/"}
	cases := []struct {
		s    transcript.Session
		want string
		ok   bool
	}{
		{transcript.Session{Cwd: "/home/dev/proj"}, "/home/dev/proj", true},
		{transcript.Session{Cwd: "/home/dev/proj/sub/dir/"}, "/home/dev/proj", true},
		{transcript.Session{Cwd: "/home/dev/proj/vendor/lib/x"}, "/home/dev/proj/vendor/lib", true},
		// A shared prefix is not containment.
		{transcript.Session{Cwd: "/home/dev/project2/a"}, "/home/dev/project2", true},
		{transcript.Session{Cwd: "/tmp/x"}, "/", true},
		{transcript.Session{ProjectHash: transcript.GeminiProjectHash("/home/dev/project2")}, "/home/dev/project2", true},
		{transcript.Session{ProjectHash: "nope"}, "", false},
		// Cursor names a session's folder by a slug of its path.
		{transcript.Session{Slug: "home-dev-project2"}, "/home/dev/project2", true},
		{transcript.Session{Slug: "home-dev-elsewhere"}, "", false},
		{transcript.Session{}, "", false},
	}
	for _, c := range cases {
		got, ok := transcript.MatchProject(c.s, roots)
		if got != c.want || ok != c.ok {
			t.Errorf("MatchProject(%+v) = %q, %v; want %q, %v", c.s, got, ok, c.want, c.ok)
		}
	}
	if got, ok := transcript.DeepestRoot("/home/dev/proj2", []string{"/home/dev/proj"}); ok {
		t.Errorf("DeepestRoot matched %q by prefix", got)
	}
}

package transcript_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/transcript"
)

// asNobodyEnv marks the copy of the test binary that TestDiscoverAll_*
// runs as nobody: root reads every folder, so the test of an unreadable
// one runs as another user.
const asNobodyEnv = "RAGD_TEST_DISCOVER_AS_NOBODY"

// runAsNobody runs the test named name again as user nobody when this
// process is root, and reports whether the caller should run its body
// here (not root, or already the copy).
func runAsNobody(t *testing.T, name string) bool {
	t.Helper()
	if os.Getenv(asNobodyEnv) != "" || os.Getuid() != 0 {
		return true
	}
	dir, err := os.MkdirTemp("", "rgdisc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "transcript.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	cmd := exec.Command("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", bin, "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), asNobodyEnv+"=1", "TMPDIR=/tmp")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s as nobody: %v\n%s", name, err, out)
	}
	return false
}

// Issue 27 item 23: a walk that meets a folder it cannot read skips it and
// says so, and lists the transcripts of the rest.
func TestDiscoverAll_SkipsUnreadableFolders(t *testing.T) {
	if !runAsNobody(t, "TestDiscoverAll_SkipsUnreadableFolders") {
		return
	}
	root := t.TempDir()
	for _, p := range []string{"open/a.jsonl", "locked/b.jsonl"} {
		write(t, filepath.Join(root, p), "{}\n")
	}
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	d, err := transcript.DiscoverAll(transcript.ClaudeCode, []string{root})
	if err != nil {
		t.Fatalf("discover with an unreadable folder: %v", err)
	}
	if want := []string{filepath.Join(root, "open", "a.jsonl")}; !slices.Equal(d.Files, want) {
		t.Errorf("files %v, want %v", d.Files, want)
	}
	if len(d.Unreadable) != 1 || !strings.Contains(d.Unreadable[0], locked) || !strings.Contains(d.Unreadable[0], "permission denied") {
		t.Errorf("unreadable %q, want the locked folder, permission denied", d.Unreadable)
	}
	if files, err := transcript.Discover(transcript.ClaudeCode, []string{root}); err != nil || !slices.Equal(files, d.Files) {
		t.Errorf("Discover: %v, %v; want DiscoverAll's files", files, err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 27 item 24: Aider's history in a repository is not followed when
// it is a symbolic link (someone who may write to the repository could
// point it at another of the owner's files); the same link given as a
// path is its giver's, and is listed.
func TestDiscoverAll_AiderHistoryLinkNotFollowed(t *testing.T) {
	repo, private := t.TempDir(), t.TempDir()
	secret := filepath.Join(private, "notes.md")
	write(t, secret, "# aider chat started at 2026-01-02 03:04:05\n#### secret\n")
	link := filepath.Join(repo, transcript.AiderHistoryFile)
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	d, err := transcript.DiscoverAll(transcript.Aider, []string{repo})
	if err != nil || len(d.Files) != 0 {
		t.Errorf("aider discovery in a repository whose history is a link: %v, %v; want nothing", d.Files, err)
	}
	d, err = transcript.DiscoverAll(transcript.Aider, []string{link})
	if err != nil || !slices.Equal(d.Files, []string{link}) {
		t.Errorf("aider discovery of the link given as a path: %v, %v; want it", d.Files, err)
	}
	// A regular history is found as before.
	other := t.TempDir()
	write(t, filepath.Join(other, transcript.AiderHistoryFile), "# aider chat started at 2026-01-02 03:04:05\n")
	if d, err := transcript.DiscoverAll(transcript.Aider, []string{other}); err != nil || len(d.Files) != 1 {
		t.Errorf("aider discovery of a regular history: %v, %v", d.Files, err)
	}
}

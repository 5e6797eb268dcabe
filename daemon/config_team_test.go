package daemon_test

import (
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
)

// Issue 24: [daemon] owner and [sessions] share are read, defaulted and
// checked, with errors that say what a good value is.
func TestLoadConfig_Team(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		name, text string
		owner      string
		share      bool
		err        []string
	}{
		{name: "defaults", text: "", owner: "", share: false},
		{name: "set", text: "[daemon]\nowner = \"alice\"\n[sessions]\nshare = true\n", owner: "alice", share: true},
		{name: "unicode name", text: "[daemon]\nowner = \"zoë.müller\"\n", owner: "zoë.müller"},
		{name: "spaces at the ends", text: "[daemon]\nowner = \" alice\"\n", err: []string{"daemon.owner", "no spaces at its ends"}},
		{name: "control character", text: "[daemon]\nowner = \"al\\nice\"\n", err: []string{"daemon.owner", "U+000A", "not a printable character"}},
		{name: "too long", text: "[daemon]\nowner = \"" + strings.Repeat("a", 65) + "\"\n", err: []string{"daemon.owner", "65 bytes", "at most 64"}},
		{name: "share not a bool", text: "[sessions]\nshare = \"yes\"\n", err: []string{"share"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := daemon.LoadConfig(writeConfig(t, tc.text))
			if len(tc.err) > 0 {
				if err == nil {
					t.Fatalf("no error, want one saying %q", tc.err)
				}
				for _, want := range tc.err {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q lacks %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Daemon.Owner != tc.owner || cfg.Sessions.Share != tc.share {
				t.Errorf("owner %q share %v, want %q %v", cfg.Daemon.Owner, cfg.Sessions.Share, tc.owner, tc.share)
			}
		})
	}
}

// The owner a daemon writes is [daemon] owner, else the OS user's name.
func TestDaemonConfig_OwnerName(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Skipf("no OS user to compare with: %v", err)
	}
	if got := (daemon.DaemonConfig{}).OwnerName(); got != u.Username {
		t.Errorf("OwnerName() with no owner = %q, want the OS user %q", got, u.Username)
	}
	if got := (daemon.DaemonConfig{Owner: "bob"}).OwnerName(); got != "bob" {
		t.Errorf("OwnerName() = %q, want bob", got)
	}
}

// Issue 24: a password written in the database URL of a configuration
// file that others may read is refused, saying how to fix it; in a file of
// the user's alone, or in the environment (RAGD_DB), it is accepted. No
// error shows the password.
func TestLoadConfig_DatabasePassword(t *testing.T) {
	for _, tc := range []struct {
		name     string
		database string
		mode     os.FileMode
		refused  bool
	}{
		{"password in user info, world-readable", "postgres://ragd:hunter2@db.example/ragd", 0o644, true},
		{"password in user info, group-readable", "postgresql://ragd:hunter2@db.example/ragd", 0o640, true},
		{"password parameter, world-readable", "postgres://db.example/ragd?user=ragd&password=hunter2", 0o604, true},
		{"password in user info, private file", "postgres://ragd:hunter2@db.example/ragd", 0o600, false},
		{"no password, world-readable", "postgres://ragd@db.example/ragd?sslmode=require", 0o644, false},
		{"SQLite path, world-readable", "/var/lib/ragd/hunter2@x.db", 0o644, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte("[daemon]\ndatabase = \""+tc.database+"\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			cfg, err := daemon.LoadConfig(path)
			if !tc.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if cfg.Daemon.Database != tc.database {
					t.Errorf("database %q, want %q", cfg.Daemon.Database, tc.database)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted a password in a file others can read")
			}
			for _, want := range []string{path, "holds a password", "chmod 600 " + path, "PGPASSWORD", ".pgpass"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q shows the password", err)
			}
			// RAGD_DB does not make the file's password private.
			t.Setenv("RAGD_DB", "postgres://db.example/other")
			if _, err := daemon.LoadConfig(path); err == nil {
				t.Error("accepted the file's password when RAGD_DB overrides it")
			}
		})
	}
	// The environment is the user's own: a password there is accepted.
	clearEnv(t)
	t.Setenv("RAGD_DB", "postgres://ragd:hunter2@db.example/ragd")
	if cfg, err := daemon.LoadConfig(filepath.Join(t.TempDir(), "none.toml")); err != nil || cfg.Daemon.Database != "postgres://ragd:hunter2@db.example/ragd" {
		t.Errorf("RAGD_DB with a password: %q, %v", cfg.Daemon.Database, err)
	}
}

// The template's database default holds no credentials.
func TestConfigTemplate_NoCredentials(t *testing.T) {
	cfg := daemon.DefaultConfig()
	if cfg.Daemon.Database != "" {
		t.Errorf("default database %q, want \"\" (the SQLite file)", cfg.Daemon.Database)
	}
	if m := regexp.MustCompile(`://[^/@\s"]*:[^/@\s"]*@|password=`).FindString(daemon.ConfigTemplate); m != "" {
		t.Errorf("the config template shows a credential: %q", m)
	}
}

func TestDisplayDatabase_PasswordParameter(t *testing.T) {
	got := ragd.RedactDatabase("postgres://db.example/ragd?user=ragd&password=hunter2")
	if strings.Contains(got, "hunter2") || !strings.Contains(got, "db.example/ragd") {
		t.Errorf("DisplayDatabase = %q: want the URL without its password", got)
	}
}

// `ragd config` (Template with sources) never prints the database's
// password.
func TestTemplate_DatabasePasswordHidden(t *testing.T) {
	cfg := daemon.DefaultConfig()
	cfg.Daemon.Database = "postgres://ragd:hunter2@db.example/ragd?sslmode=require"
	out := daemon.Template(cfg, daemon.Sources{"daemon.database": "env RAGD_DB"})
	if strings.Contains(out, "hunter2") || !strings.Contains(out, "postgres://ragd:xxxxx@db.example/ragd") {
		t.Errorf("template shows %q", regexp.MustCompile(`(?m)^database = .*$`).FindString(out))
	}
}

// `ragd config` never prints credentials written into the embedding
// server's base_url either (issue 35 item 8), which `ragd doctor` and
// `ragd serve` also refuse without showing them.
func TestTemplate_ProviderCredentialsHidden(t *testing.T) {
	for _, base := range []string{
		"http://user:sk-in-the-url-0123@127.0.0.1:8080/v1",
		"http://sk-in-the-url-0123@127.0.0.1:8080/v1",
		"https://127.0.0.1:8080/v1?api_key=sk-in-the-url-0123",
	} {
		cfg := daemon.DefaultConfig()
		cfg.Embedding.Provider, cfg.Embedding.BaseURL = "openai", base
		out := daemon.Template(cfg, daemon.Sources{"embedding.base_url": "file"})
		line := regexp.MustCompile(`(?m)^base_url = .*$`).FindString(out)
		if strings.Contains(out, "sk-in-the-url") || !strings.Contains(line, "127.0.0.1:8080") {
			t.Errorf("base_url %q shown as %q", base, line)
		}
		if _, err := embedding.New(cfg.Embedding.Service(nil), nil); err == nil || strings.Contains(err.Error(), "sk-in-the-url") {
			t.Errorf("base_url %q: the provider's error %v shows it, or there is none", base, err)
		}
	}
}

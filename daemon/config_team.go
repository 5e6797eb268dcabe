package daemon

import (
	"fmt"
	"net/url"
	"os"
	"os/user"
	"strings"
	"unicode"

	"github.com/ragd/ragd"
)

// maxOwnerLen bounds [daemon] owner: a login name, written on every row a
// person owns in a shared database, not a free text.
const maxOwnerLen = 64

// OwnerName returns the owner a daemon writes on a shared database:
// [daemon] owner, or the OS user name when it is empty ("unknown" when
// even that cannot be found).
func (c DaemonConfig) OwnerName() string {
	if c.Owner != "" {
		return c.Owner
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// validateOwner checks [daemon] owner: empty (the OS user), or a name of
// printable characters without spaces at its ends, at most maxOwnerLen
// bytes.
func validateOwner(owner string) error {
	if owner == "" {
		return nil
	}
	if strings.TrimSpace(owner) != owner {
		return fmt.Errorf("daemon.owner %q: no spaces at its ends (a login name, or \"\" for the OS user)", owner)
	}
	if len(owner) > maxOwnerLen {
		return fmt.Errorf("daemon.owner %q: %d bytes, want at most %d (a login name, or \"\" for the OS user)", owner, len(owner), maxOwnerLen)
	}
	for _, r := range owner {
		if !unicode.IsPrint(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("daemon.owner %q: %U is not a printable character (a login name, or \"\" for the OS user)", owner, r)
		}
	}
	return nil
}

// databasePassword reports whether a [daemon] database URL holds a
// password: in its user info (postgres://user:secret@host/db) or as a
// password= parameter.
func databasePassword(database string) bool {
	if ragd.DatabaseScheme(database) == "" {
		return false
	}
	u, err := url.Parse(database)
	if err != nil {
		// Unparsable: it may hold anything; the engine refuses it anyway.
		return strings.Contains(database, "@") || strings.Contains(strings.ToLower(database), "password")
	}
	if _, ok := u.User.Password(); ok {
		return true
	}
	return u.Query().Has("password")
}

// checkDatabaseSecret refuses a configuration file at path whose
// [daemon] database URL holds a password while others than its owner may
// read the file: the password would be theirs too.
func checkDatabaseSecret(path, database string) error {
	if !databasePassword(database) {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	if mode := fi.Mode().Perm(); mode&0o044 != 0 {
		return fmt.Errorf("config %s: daemon.database %s holds a password, and the file is readable by others (mode %04o): "+
			"run `chmod 600 %s`, or better take the password out of the URL and give it in PGPASSWORD or a ~/.pgpass file (chmod 600)",
			path, ragd.RedactDatabase(database), mode, path)
	}
	return nil
}

package daemon

import (
	"net/url"

	"github.com/ragd/ragd"
)

// lockPath is the lock of paths' database: beside a SQLite file, so that
// one daemon at a time uses it; beside the socket for a database at a URL,
// which several daemons (one per person) share, so that one daemon at a
// time serves the socket and nothing is created where the URL would read
// as a folder.
func lockPath(paths Paths) string {
	if ragd.DatabaseScheme(paths.Database) != "" {
		return paths.Socket + ".lock"
	}
	return paths.Database + ".lock"
}

// DisplayDatabase is database as logs and errors show it: a URL without
// its password.
func DisplayDatabase(database string) string {
	if ragd.DatabaseScheme(database) == "" {
		return database
	}
	u, err := url.Parse(database)
	if err != nil {
		return ragd.DatabaseScheme(database) + "://…" // unparsable: nothing of it may be a secret
	}
	// libpq's URLs may also carry the password as a parameter.
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// DefaultVectors is [search] vectors by default: the SQLite engine's
// quantized codes, searched fast and re-ranked exactly (store.VectorMode).
const DefaultVectors = "quantized"

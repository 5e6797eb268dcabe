package daemon

import (
	"github.com/ragd/ragd"
)

// lockPath is the lock of paths' database: beside a SQLite file, so that
// one daemon at a time uses it; beside the socket for a database at a URL,
// which several daemons (one per person) share, so that one daemon at a
// time serves the socket and nothing is created where the URL would read
// as a folder.
func lockPath(paths Paths) string {
	if ragd.IsDatabaseURL(paths.Database) {
		return paths.Socket + ".lock"
	}
	return paths.Database + ".lock"
}

// DefaultVectors is [search] vectors by default: the SQLite engine's
// quantized codes, searched fast and re-ranked exactly (store.VectorMode).
const DefaultVectors = "quantized"

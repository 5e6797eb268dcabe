package ragd

import (
	"strings"
)

// DatabaseScheme returns the URL scheme of a database value ([daemon]
// database, RAGD_DB, eval's --database), lowercased ("postgres"), or "" for
// a plain path: a SQLite file. A value that starts like a URL (a letter,
// then letters, digits, '+', '-' or '.', then ':') has a scheme, "file:"
// included, so that a URL is never taken for a relative path; a file whose
// name has such a colon is written ./name.
func DatabaseScheme(database string) string {
	scheme, _, ok := strings.Cut(database, ":")
	if !ok || scheme == "" {
		return ""
	}
	for i, r := range scheme {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return ""
		}
	}
	return strings.ToLower(scheme)
}

// IsDatabaseURL reports whether a database value names a server's
// database (it has a URL scheme, DatabaseScheme) rather than a SQLite
// file's path: the one rule every caller uses.
func IsDatabaseURL(database string) bool { return DatabaseScheme(database) != "" }

// RedactDatabase is a database value as logs, errors and the printed
// configuration show it: a path as it is, a URL as DisplayURL shows it
// (without its password, in its user part or as a password parameter,
// which libpq's URLs accept; of a URL that does not parse only its scheme).
func RedactDatabase(database string) string {
	if !IsDatabaseURL(database) {
		return database
	}
	return DisplayURL(database)
}

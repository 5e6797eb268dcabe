package ragd

import "strings"

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

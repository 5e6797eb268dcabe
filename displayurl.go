package ragd

import (
	"net/url"
	"strings"
)

// hiddenValue stands for a credential in a URL that is shown.
const hiddenValue = "xxxxx"

// DisplayURL is a URL as configuration listings, logs and errors show it:
// without its credentials. A password becomes xxxxx, and so does a user
// name alone in an http(s) URL (a key given as the user, "http://sk-…@h");
// so do query values whose names say they are secrets (libpq's password,
// an api_key or token). A value that does not parse shows only its scheme:
// nothing of it may be shown safely. The database's URL ([daemon]
// database) and an embedding server's (base_url) both go through it.
func DisplayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if s := DatabaseScheme(raw); s != "" {
			return s + "://…"
		}
		return "…"
	}
	web := u.Scheme == "http" || u.Scheme == "https"
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), hiddenValue)
		} else if web {
			u.User = url.User(hiddenValue)
		}
	}
	if q := u.Query(); len(q) > 0 {
		changed := false
		for k := range q {
			if secretParameter(k) {
				q.Set(k, hiddenValue)
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// secretParameter reports whether a URL query parameter's name says its
// value is a credential.
func secretParameter(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"password", "passwd", "key", "token", "secret", "auth", "sig"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

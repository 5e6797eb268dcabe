package embedding

import (
	"net"
	"strconv"
	"testing"
)

// FuzzParseHost: no panic; an accepted value gives an http(s) URL with a
// valid port, that ParseHost accepts again unchanged (so the normalised
// Config.Host of a Service is stable).
func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"", "localhost", "h:1", "http://h", "https://h:443/p/", "0.0.0.0", "[::]:9", "::1", "ollama.com", "ftp://x", "h:99999", `"h"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseHost(s)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("ParseHost(%q): scheme %q", s, u.Scheme)
		}
		_, port, err := net.SplitHostPort(u.Host)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
			t.Fatalf("ParseHost(%q): host %q", s, u.Host)
		}
		again, err := ParseHost(u.String())
		if err != nil || again.String() != u.String() {
			t.Fatalf("ParseHost(%q) = %s, which parses to %v, %v", s, u, again, err)
		}
	})
}

// FuzzParseSpace: no panic; an accepted space prints back to a string that
// parses to the same space.
func FuzzParseSpace(f *testing.F) {
	for _, s := range []string{"nomic-embed-text/768", "hf.co/a/b:q8/1024", "m:latest/3", "/1", "m/0", "m/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpace(s)
		if err != nil {
			return
		}
		again, err := ParseSpace(sp.String())
		if err != nil || again != sp {
			t.Fatalf("ParseSpace(%q) = %v, whose String parses to %v, %v", s, sp, again, err)
		}
	})
}

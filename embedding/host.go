package embedding

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// defaultOllamaPort is Ollama's port, for an OLLAMA_HOST that names no
// scheme and no port.
const defaultOllamaPort = "11434"

// HostFromEnv returns OLLAMA_HOST as the Ollama CLI reads it (spaces and
// surrounding quotes trimmed), for Config.Host. It is the only place the
// package reads the environment; "" means Ollama's default.
func HostFromEnv() string {
	return trimHost(os.Getenv("OLLAMA_HOST"))
}

func trimHost(s string) string {
	return strings.Trim(strings.TrimSpace(s), `"'`)
}

// ParseHost turns an OLLAMA_HOST value into the server's base URL, following
// the Ollama client's conventions:
//
//	""                   http://127.0.0.1:11434
//	"example"            http://example:11434
//	"example:8080"       http://example:8080
//	"http://example"     http://example:80   (an explicit scheme implies its port)
//	"https://example"    https://example:443
//	"ollama.com"         https://ollama.com:443
//	"http://h:1/prefix"  http://h:1/prefix   (behind a reverse proxy)
//
// Unlike the Ollama client, which silently falls back to defaults, it reports
// a malformed value (bad port, unknown scheme, credentials, query) as an
// error, so a typo is seen at start-up rather than as "not reachable". The
// unspecified addresses 0.0.0.0 and :: are server bind addresses (people set
// OLLAMA_HOST=0.0.0.0 to make Ollama listen on every interface, and ragd
// inherits it), so they are mapped to the loopback address of their family,
// which reaches the same server on every OS.
func ParseHost(s string) (*url.URL, error) {
	raw := s
	s = trimHost(s)
	defaultPort := defaultOllamaPort
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if strings.EqualFold(s, "ollama.com") {
			scheme, hostport = "https", "ollama.com:443"
		}
	case strings.EqualFold(scheme, "http"):
		scheme, defaultPort = "http", "80"
	case strings.EqualFold(scheme, "https"):
		scheme, defaultPort = "https", "443"
	default:
		return nil, fmt.Errorf("ollama host %q: unsupported scheme %q (want http or https)", raw, scheme)
	}

	hostport, path, _ := strings.Cut(hostport, "/")
	if strings.ContainsAny(hostport, "@?#") || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("ollama host %q: want [scheme://]host[:port][/path], without credentials, query or fragment", raw)
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port (or a bare IPv6 address): the whole is the host.
		host, port = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("ollama host %q: invalid port %q", raw, port)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); ip != nil {
		switch {
		case ip.Equal(net.IPv4zero):
			ip = net.IPv4(127, 0, 0, 1)
		case ip.Equal(net.IPv6unspecified):
			ip = net.IPv6loopback
		}
		host = ip.String()
	} else if !validHostName(host) {
		return nil, fmt.Errorf("ollama host %q: invalid host name %q", raw, host)
	}

	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path = strings.Trim(path, "/"); path != "" {
		// A reverse proxy's prefix: plain segments only, so that the URL
		// needs no escaping and prints back as written.
		if strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/") != "" {
			return nil, fmt.Errorf("ollama host %q: invalid path %q", raw, path)
		}
		u.Path = "/" + path
	}
	// Round-trip through the URL parser to catch anything it would reject
	// later, at request time, with a less helpful message.
	if _, err := url.Parse(u.String()); err != nil {
		return nil, fmt.Errorf("ollama host %q: %w", raw, err)
	}
	return u, nil
}

// validHostName accepts DNS names in ASCII (letters, digits, '-', '.', and
// '_', which some local resolvers allow); an internationalised name must
// be given in its xn-- form.
func validHostName(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_') {
			return false
		}
	}
	return h != ""
}

package embedding

import (
	"fmt"
	"os"
	"strings"
)

// Secret is an API key. It prints as "[redacted]" in every format (%v,
// %+v, %#v, JSON, TOML), so that a configuration logged or shown never
// carries it; only the provider reads its value, with string(s).
type Secret string

const redacted = "[redacted]"

// String implements fmt.Stringer.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString implements fmt.GoStringer, for %#v.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// MarshalText implements encoding.TextMarshaler: never the key.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// keyFileMode is the permission bits a key file may have beyond its
// owner's: none, as for an ssh private key.
const keyFileMode = 0o077

// resolveAPIKey returns cfg's API key: APIKey, else the variable APIKeyEnv,
// else the file APIKeyFile; "" when none is configured. reason says why a
// configured key cannot be used (variable unset, file unreadable or
// readable by others); it names the variable or file, never the key.
func resolveAPIKey(cfg Config, getenv func(string) string) (key Secret, reason string) {
	if cfg.APIKey != "" {
		return cfg.APIKey, ""
	}
	if cfg.APIKeyEnv != "" {
		if v := strings.TrimSpace(getenv(cfg.APIKeyEnv)); v != "" {
			return Secret(v), ""
		}
		if cfg.APIKeyFile == "" {
			return "", fmt.Sprintf("API key variable %s is not set", cfg.APIKeyEnv)
		}
	}
	if cfg.APIKeyFile == "" {
		return "", ""
	}
	fi, err := os.Stat(cfg.APIKeyFile)
	if err != nil {
		return "", fmt.Sprintf("API key file %s: %v", cfg.APIKeyFile, unwrapPath(err))
	}
	if fi.Mode().Perm()&keyFileMode != 0 {
		return "", fmt.Sprintf("API key file %s is readable by others (mode %04o): run `chmod 600 %s`", cfg.APIKeyFile, fi.Mode().Perm(), cfg.APIKeyFile)
	}
	b, err := os.ReadFile(cfg.APIKeyFile)
	if err != nil {
		return "", fmt.Sprintf("API key file %s: %v", cfg.APIKeyFile, unwrapPath(err))
	}
	if k := strings.TrimSpace(string(b)); k != "" {
		return Secret(k), ""
	}
	return "", fmt.Sprintf("API key file %s is empty", cfg.APIKeyFile)
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

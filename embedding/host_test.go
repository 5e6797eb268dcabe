package embedding

import (
	"strings"
	"testing"
)

func TestParseHost(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "http://127.0.0.1:11434"},
		{"   ", "http://127.0.0.1:11434"},
		{"localhost", "http://localhost:11434"},
		{"localhost:8080", "http://localhost:8080"},
		{"example.com", "http://example.com:11434"},
		{"10.0.0.5:11434", "http://10.0.0.5:11434"},
		{"http://example", "http://example:80"},
		{"https://example", "https://example:443"},
		{"HTTP://example:9000", "http://example:9000"},
		{"http://127.0.0.1:11434/", "http://127.0.0.1:11434"},
		{"http://gpu-box:8080/ollama/", "http://gpu-box:8080/ollama"},
		{"ollama.com", "https://ollama.com:443"},
		{`"http://h:1"`, "http://h:1"},
		{"'h:2'", "http://h:2"},
		{"0.0.0.0", "http://127.0.0.1:11434"},
		{"0.0.0.0:9999", "http://127.0.0.1:9999"},
		{":11434", "http://127.0.0.1:11434"},
		{"[::1]:5000", "http://[::1]:5000"},
		{"::1", "http://[::1]:11434"},
		{"[::]", "http://[::1]:11434"},
		{"http://[fe80::1]:7", "http://[fe80::1]:7"},
	}
	for _, tt := range tests {
		u, err := ParseHost(tt.in)
		if err != nil {
			t.Errorf("ParseHost(%q): %v", tt.in, err)
			continue
		}
		if got := u.String(); got != tt.want {
			t.Errorf("ParseHost(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseHostRejects(t *testing.T) {
	for _, in := range []string{
		"ftp://example",
		"example:notaport",
		"example:70000",
		"example:0",
		"http://user:pw@example:1",
		"http://example:1?x=y",
		"exa mple",
		"http://h:1/path#frag",
		"\xeb",
		"héllo:1",
		"/!",
		"http://h:1/a%20b",
	} {
		u, err := ParseHost(in)
		if err == nil {
			t.Errorf("ParseHost(%q) = %s, want an error", in, u)
			continue
		}
		if !strings.Contains(err.Error(), "ollama host") {
			t.Errorf("ParseHost(%q) error %q does not say what it is about", in, err)
		}
	}
}

func TestHostFromEnv(t *testing.T) {
	t.Setenv("OLLAMA_HOST", ` "http://gpu:1234" `)
	if got := HostFromEnv(); got != "http://gpu:1234" {
		t.Errorf("HostFromEnv() = %q", got)
	}
	t.Setenv("OLLAMA_HOST", "")
	if got := HostFromEnv(); got != "" {
		t.Errorf("HostFromEnv() = %q, want empty", got)
	}
}

package redact_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd/redact"
)

func FuzzString(f *testing.F) {
	for _, s := range []string{
		"", "token=a1B2c3D4e5F6g7H8i9J0", "AKIAIOSFODNN7EXAMPLE", "-----BEGIN PRIVATE KEY-----\nx",
		"password: hunter2!", "Bearer abcDEF123456ghiJKL789", "héllo key: ünïcödé-välüe-1234567890", "\xff\xfe=:key",
		`Bash {"command":"export DB_PASSWORD=\"hunter22x\""}`, `"\"\\\"password\\\": \\\"abc123xyz\\\"\""`,
		"mysql -uroot -pS3cr3t!x db", "[REDACTED:x] password=[REDACTED:y]", `"\u0070assword=\u0061bc123456"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		counts := map[string]int{}
		out := redact.String(s, counts)
		n := 0
		for _, c := range counts {
			n += c
		}
		if n == 0 && out != s {
			t.Fatalf("String(%q) = %q changed the text without counting", s, out)
		}
		if n > 0 && !strings.Contains(out, redact.Marker) {
			t.Fatalf("String(%q) = %q counted %v but wrote no marker", s, out, counts)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not valid UTF-8", s, out)
		}
		if again := redact.String(out, nil); again != out {
			t.Fatalf("String is not idempotent: %q then %q", out, again)
		}
	})
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"password":"hunter22x"}`, `{"a":["token=a1B2c3D4e5F6g7H8i9J0",1,null]}`, `"ghp_0123456789abcdefghijABCDEFGHIJ012345"`,
		`{"input":{"command":"curl -u bob:pa55w0rd! x"}}`, `[1,2`, `{"k":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out := redact.JSON(raw, nil)
		if json.Valid(raw) && !json.Valid(out) {
			t.Fatalf("JSON(%q) = %q is not JSON", raw, out)
		}
		if again := redact.JSON(out, nil); string(again) != string(out) {
			t.Fatalf("JSON is not idempotent: %q then %q", out, again)
		}
	})
}

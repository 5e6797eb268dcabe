package transcript_test

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd/transcript"
)

func TestRedact(t *testing.T) {
	cases := []struct {
		name, in, want string
		counts         map[string]int
	}{
		// Key formats, anywhere.
		{"aws", "id AKIAIOSFODNN7EXAMPLE end", "id [REDACTED:aws-access-key] end", map[string]int{"aws-access-key": 1}},
		{"github classic", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "[REDACTED:github-token]", map[string]int{"github-token": 1}},
		{"github fine-grained", "use github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv now", "use [REDACTED:github-token] now", map[string]int{"github-token": 1}},
		{"anthropic", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345", "[REDACTED:anthropic-key]", map[string]int{"anthropic-key": 1}},
		{"openai project", "OPENAI=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "OPENAI=[REDACTED:openai-key]", map[string]int{"openai-key": 1}},
		{"slack", "xoxb-123456789012-abcdefghijkl", "[REDACTED:slack-token]", map[string]int{"slack-token": 1}},
		{"google", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "[REDACTED:google-api-key]", map[string]int{"google-api-key": 1}},
		{"jwt", "Cookie: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
			"Cookie: [REDACTED:jwt] ok", map[string]int{"jwt": 1}},
		{"bearer", "Authorization: Bearer abcDEF123456ghiJKL789", "Authorization: Bearer [REDACTED:bearer-token]", map[string]int{"bearer-token": 1}},
		{"url password", "postgres://app:s3cr3tPass@db:5432/x", "postgres://app:[REDACTED:url-password]@db:5432/x", map[string]int{"url-password": 1}},
		{"pem block", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAbc==\n-----END RSA PRIVATE KEY-----\ndone",
			"key:\n[REDACTED:private-key]\ndone", map[string]int{"private-key": 1}},
		{"pem cut short", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "[REDACTED:private-key]", map[string]int{"private-key": 1}},
		// Values after a secret word.
		{"api_key random", `api_key = "Zx9Qw7Er5Ty3Ui1Op8As"`, `api_key = "[REDACTED:secret-value]"`, map[string]int{"secret-value": 1}},
		{"json token", `{"token": "a1B2c3D4e5F6g7H8i9J0"}`, `{"token": "[REDACTED:secret-value]"}`, map[string]int{"secret-value": 1}},
		{"password short", "password: hunter2!", "password: [REDACTED:secret-value]", map[string]int{"secret-value": 1}},
		{"DB_PASSWORD env", "DB_PASSWORD=pa55word", "DB_PASSWORD=[REDACTED:secret-value]", map[string]int{"secret-value": 1}},
		{"git sha after key word", "secret_key=3f786850e387550fdab836ed7e6dc881de23001b", "secret_key=[REDACTED:secret-value]", map[string]int{"secret-value": 1}},
		{"two in one text", "AKIAIOSFODNN7EXAMPLE AKIAI44QH8DHBEXAMPLE", "[REDACTED:aws-access-key] [REDACTED:aws-access-key]", map[string]int{"aws-access-key": 2}},

		// False-positive guards: left alone.
		{"git sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it", "", nil},
		{"uuid", "session 550e8400-e29b-41d4-a716-446655440000", "", nil},
		{"base64 words", "aGVsbG8gd29ybGQgdGhpcyBpcyBqdXN0IHRleHQ=", "", nil},
		{"prose about keys", "The primary key is the id; tokens are counted per message.", "", nil},
		{"max tokens", "max_tokens: 4096", "", nil},
		{"key low entropy", "sortKey: createdAt", "", nil},
		{"env reference", "API_KEY=${OPENAI_API_KEY}", "", nil},
		{"os environ", `token = os.environ["GITHUB_TOKEN"]`, "", nil},
		{"placeholder", "API_KEY=your_api_key_here", "", nil},
		{"identifier after credentials", "credentials: UserCredentials", "", nil},
		{"cache key", "key: setup-uv-1-x86_64-unknown-linux-gnu-0.7.13-f6c65b29c82e498115b3dc436b3a85fc", "", nil},
		{"sk- in prose", "the sk-learn package", "", nil},
		{"keyboard", "keyboard: us-international-layout", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			counts := map[string]int{}
			got := transcript.Redact(c.in, counts)
			want := c.want
			if want == "" {
				want = c.in
			}
			if got != want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", c.in, got, want)
			}
			if len(counts) == 0 {
				counts = nil
			}
			if !maps.Equal(counts, c.counts) {
				t.Errorf("counts = %v, want %v", counts, c.counts)
			}
			// Redacting again changes nothing: markers are not secrets.
			again := map[string]int{}
			if twice := transcript.Redact(got, again); twice != got || len(again) != 0 {
				t.Errorf("second Redact = %q (%v), want it unchanged", twice, again)
			}
		})
	}
}

func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"", "token=a1B2c3D4e5F6g7H8i9J0", "AKIAIOSFODNN7EXAMPLE", "-----BEGIN PRIVATE KEY-----\nx",
		"password: hunter2!", "Bearer abcDEF123456ghiJKL789", "héllo key: ünïcödé-välüe-1234567890", "\xff\xfe=:key",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		counts := map[string]int{}
		out := transcript.Redact(s, counts)
		n := 0
		for _, c := range counts {
			n += c
		}
		if got := strings.Count(out, "[REDACTED:") - strings.Count(s, "[REDACTED:"); got != n {
			t.Fatalf("Redact(%q) = %q: %d markers added, counts say %d", s, out, got, n)
		}
		if n == 0 && out != s {
			t.Fatalf("Redact(%q) = %q changed the text without counting", s, out)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("Redact(%q) = %q is not valid UTF-8", s, out)
		}
		if again := transcript.Redact(out, nil); again != out {
			t.Fatalf("Redact is not idempotent: %q then %q", out, again)
		}
	})
}

// Package secretcorpus generates fake secrets in the formats providers
// document, each in the kind of line a developer pastes (an export, a
// config file, a command), and benign values that look like secrets but
// are not (hashes, ids, digests, placeholders). Tests plant them in
// transcripts and check what ragd stores. Every value is random: none is
// a real credential, and none is copied from a scanner's test samples.
package secretcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Secret is one planted secret.
type Secret struct {
	// Kind names the format ("gitlab-pat", "mysql-password"): the unit
	// recall is reported by.
	Kind string
	// Text is the line it is written in.
	Text string
	// Value is the part that must not survive anywhere: the secret, or
	// its most distinctive line for a multi-line key.
	Value string
}

// Benign is a value that must survive verbatim.
type Benign struct {
	Kind string
	// Text is the line it is written in, which must survive whole.
	Text string
}

// gen makes random strings from one seeded source.
type gen struct{ r *rand.Rand }

const (
	lower    = "abcdefghijklmnopqrstuvwxyz"
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits   = "0123456789"
	hexchars = "0123456789abcdef"
	alnum    = lower + upper + digits
	b64      = alnum + "+/"
	b64url   = alnum + "-_"
	bech32   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

func (g gen) from(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	// A random string of letters and digits with no digit (or no
	// letter) is rare but real; keep the corpus to typical tokens.
	return string(b)
}

func (g gen) an(n int) string {
	for {
		s := g.from(alnum, n)
		if strings.ContainsAny(s, digits) && strings.ContainsAny(s, lower+upper) {
			return s
		}
	}
}
func (g gen) hex(n int) string { return g.from(hexchars, n) }
func (g gen) dig(n int) string { return g.from(digits, n) }
func (g gen) up(n int) string  { return g.from(upper+digits, n) }
func (g gen) low(n int) string { return g.from(lower+digits, n) }
func (g gen) b64(n int) string { return g.from(b64, n) }
func (g gen) url(n int) string { return g.from(b64url, n) }
func (g gen) word() string {
	return []string{"alice", "bob", "deploy", "ci", "svc", "admin", "app"}[g.r.IntN(7)]
}
func (g gen) host() string {
	return []string{"db.internal", "10.0.3.7", "prod-db-1", "cache.local"}[g.r.IntN(4)]
}
func (g gen) pw() string              { return g.an(6) + "!" + g.an(5) }
func (g gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g gen) uuid() string {
	h := g.hex(32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

func (g gen) pemBody(lines int) (string, string) {
	var b strings.Builder
	first := ""
	for i := 0; i < lines; i++ {
		l := g.b64(64)
		if i == 1 {
			first = l
		}
		b.WriteString(l + "\n")
	}
	return b.String(), first
}

// kinds are the secret generators: each returns the line and the value.
var kinds = []struct {
	kind string
	fn   func(g gen) (text, value string)
}{
	{"aws-access-key-id", func(g gen) (string, string) {
		v := "AKIA" + g.from(upper+"234567", 16)
		return "aws_access_key_id = " + v, v
	}},
	{"aws-secret-access-key", func(g gen) (string, string) {
		v := g.b64(40)
		return "export AWS_SECRET_ACCESS_KEY=" + v, v
	}},
	{"aws-session-key-id", func(g gen) (string, string) {
		v := "ASIA" + g.from(upper+"234567", 16)
		return "creds: " + v + " expires soon", v
	}},
	{"github-classic-pat", func(g gen) (string, string) {
		v := "ghp_" + g.an(36)
		return "git clone https://" + v + "@github.com/o/r.git", v
	}},
	{"github-oauth", func(g gen) (string, string) { v := "gho_" + g.an(36); return "token " + v, v }},
	{"github-app-token", func(g gen) (string, string) { v := g.pick("ghs_", "ghu_") + g.an(36); return "GH_TOKEN=" + v, v }},
	{"github-refresh", func(g gen) (string, string) { v := "ghr_" + g.an(76); return "refresh: " + v, v }},
	{"github-fine-grained", func(g gen) (string, string) {
		v := "github_pat_11" + g.up(20) + "_" + g.an(59)
		return "the new token is " + v, v
	}},
	{"gitlab-pat", func(g gen) (string, string) { v := "glpat-" + g.url(20); return "use " + v + " for the API", v }},
	{"gitlab-pipeline-trigger", func(g gen) (string, string) {
		v := "glptt-" + g.hex(40)
		return "curl -F token=" + v + " https://gitlab.com/api", v
	}},
	{"gitlab-runner", func(g gen) (string, string) { v := "glrt-" + g.url(20); return "register with " + v, v }},
	{"slack-bot", func(g gen) (string, string) {
		v := "xoxb-" + g.dig(12) + "-" + g.dig(13) + "-" + g.an(24)
		return "SLACK_BOT=" + v, v
	}},
	{"slack-user", func(g gen) (string, string) {
		v := "xoxp-" + g.dig(12) + "-" + g.dig(12) + "-" + g.dig(13) + "-" + g.hex(32)
		return "user token " + v, v
	}},
	{"slack-app", func(g gen) (string, string) {
		v := "xapp-1-A" + g.up(10) + "-" + g.dig(13) + "-" + g.hex(64)
		return "socket mode needs " + v, v
	}},
	{"slack-webhook", func(g gen) (string, string) {
		v := "T" + g.up(10) + "/B" + g.up(10) + "/" + g.an(24)
		return "post to https://hooks.slack.com/services/" + v, v
	}},
	{"discord-webhook", func(g gen) (string, string) {
		v := g.dig(18) + "/" + g.url(68)
		return "webhook: https://discord.com/api/webhooks/" + v, v
	}},
	{"discord-bot-token", func(g gen) (string, string) {
		id := base64.RawStdEncoding.EncodeToString([]byte(g.dig(18)))
		v := id + "." + g.url(6) + "." + g.url(38)
		return "client.login('" + v + "')", v
	}},
	{"telegram-bot-token", func(g gen) (string, string) {
		v := g.dig(10) + ":AA" + g.url(33)
		return "bot = Bot(" + v + ")", v
	}},
	{"openai-project", func(g gen) (string, string) {
		v := "sk-proj-" + g.url(74) + "T3BlbkFJ" + g.url(74)
		return "OPENAI_API_KEY=" + v, v
	}},
	{"openai-legacy", func(g gen) (string, string) {
		v := "sk-" + g.an(20) + "T3BlbkFJ" + g.an(20)
		return "openai.api_key = '" + v + "'", v
	}},
	{"anthropic", func(g gen) (string, string) { v := "sk-ant-api03-" + g.url(93) + "AA"; return "x-api-key: " + v, v }},
	{"anthropic-admin", func(g gen) (string, string) { v := "sk-ant-admin01-" + g.url(93) + "AA"; return v, v }},
	{"huggingface", func(g gen) (string, string) { v := "hf_" + g.from(lower+upper, 34); return "HF_TOKEN=" + v, v }},
	{"huggingface-bare", func(g gen) (string, string) {
		v := "hf_" + g.from(lower+upper, 34)
		return "login with " + v + " then push", v
	}},
	{"stripe-secret", func(g gen) (string, string) { v := "sk_live_" + g.an(24); return "Stripe.api_key = \"" + v + "\"", v }},
	{"stripe-restricted", func(g gen) (string, string) { v := "rk_live_" + g.an(24); return v, v }},
	{"stripe-webhook-secret", func(g gen) (string, string) { v := "whsec_" + g.an(32); return "endpoint secret " + v, v }},
	{"google-api-key", func(g gen) (string, string) { v := "AIza" + g.url(35); return "?key=" + v, v }},
	{"google-oauth-secret", func(g gen) (string, string) { v := "GOCSPX-" + g.url(28); return "client secret " + v, v }},
	{"gcp-service-account", func(g gen) (string, string) {
		body, first := g.pemBody(6)
		return `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\n` + body + `-----END PRIVATE KEY-----\n"}`, first
	}},
	{"npm-token", func(g gen) (string, string) {
		v := "npm_" + g.an(36)
		return "//registry.npmjs.org/:_authToken=" + v, v
	}},
	{"npm-bare", func(g gen) (string, string) { v := "npm_" + g.an(36); return "publish with " + v, v }},
	{"pypi-token", func(g gen) (string, string) { v := "pypi-AgEIcHlwaS5vcmc" + g.url(70); return "password = " + v, v }},
	{"pypi-bare", func(g gen) (string, string) { v := "pypi-AgEIcHlwaS5vcmc" + g.url(70); return "twine needs " + v, v }},
	{"sendgrid", func(g gen) (string, string) { v := "SG." + g.url(22) + "." + g.url(43); return "mail via " + v, v }},
	{"shopify-access", func(g gen) (string, string) { v := "shpat_" + g.hex(32); return "X-Shopify-Access-Token: " + v, v }},
	{"shopify-shared-secret", func(g gen) (string, string) { v := "shpss_" + g.hex(32); return v, v }},
	{"digitalocean-pat", func(g gen) (string, string) { v := "dop_v1_" + g.hex(64); return "doctl auth init -t " + v, v }},
	{"digitalocean-oauth", func(g gen) (string, string) { v := "doo_v1_" + g.hex(64); return v, v }},
	{"vault-service-token", func(g gen) (string, string) { v := "hvs.CAESI" + g.url(90); return "VAULT_TOKEN " + v, v }},
	{"vault-batch-token", func(g gen) (string, string) { v := "hvb." + g.url(138); return "batch " + v, v }},
	{"databricks", func(g gen) (string, string) { v := "dapi" + g.hex(32); return "token: " + v, v }},
	{"linear", func(g gen) (string, string) { v := "lin_api_" + g.an(40); return "linear key " + v, v }},
	{"postman", func(g gen) (string, string) { v := "PMAK-" + g.hex(24) + "-" + g.hex(34); return v, v }},
	{"twilio-api-key", func(g gen) (string, string) { v := "SK" + g.hex(32); return "twilio key " + v, v }},
	{"mailgun", func(g gen) (string, string) { v := "key-" + g.hex(32); return "mailgun api " + v, v }},
	{"mailchimp", func(g gen) (string, string) { v := g.hex(32) + "-us" + g.dig(2); return "mailchimp " + v, v }},
	{"atlassian", func(g gen) (string, string) {
		v := "ATATT3xFfGF0" + g.url(171) + "=" + g.up(8)
		return "JIRA_API_TOKEN=" + v, v
	}},
	{"age-secret-key", func(g gen) (string, string) {
		v := "AGE-SECRET-KEY-1" + g.from(bech32, 58)
		return "# identity\n" + v, v
	}},
	{"age-after-name", func(g gen) (string, string) {
		v := "AGE-SECRET-KEY-1" + g.from(bech32, 58)
		return "SOPS_AGE_KEY=" + v, v
	}},
	{"rsa-private-key", func(g gen) (string, string) {
		body, first := g.pemBody(8)
		return "-----BEGIN RSA PRIVATE KEY-----\n" + body + "-----END RSA PRIVATE KEY-----", first
	}},
	{"openssh-private-key", func(g gen) (string, string) {
		body, first := g.pemBody(5)
		return "cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + body + "-----END OPENSSH PRIVATE KEY-----", first
	}},
	{"ec-private-key-cut", func(g gen) (string, string) {
		body, first := g.pemBody(3)
		return "-----BEGIN EC PRIVATE KEY-----\n" + body, first
	}},
	{"pgp-private-key", func(g gen) (string, string) {
		body, first := g.pemBody(6)
		return "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + body + "=" + g.b64(4) + "\n-----END PGP PRIVATE KEY BLOCK-----", first
	}},
	{"putty-key", func(g gen) (string, string) {
		priv := g.b64(64)
		return "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: " + g.word() + "@laptop\nPublic-Lines: 2\n" + g.b64(64) + "\n" + g.b64(4) +
			"\nPrivate-Lines: 1\n" + priv + "\nPrivate-MAC: " + g.hex(64), priv
	}},
	{"jwt", func(g gen) (string, string) {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		p := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"` + g.dig(10) + `","name":"` + g.word() + `"}`))
		v := h + "." + p + "." + g.url(43)
		return "Cookie: session=" + v, v
	}},
	{"bearer", func(g gen) (string, string) { v := g.url(40); return "Authorization: Bearer " + v, v }},
	{"basic-auth", func(g gen) (string, string) {
		v := base64.StdEncoding.EncodeToString([]byte(g.word() + ":" + g.pw()))
		return "curl -H 'Authorization: Basic " + v + "' https://api.example.com", v
	}},
	{"netrc", func(g gen) (string, string) {
		v := g.pw()
		return "machine api." + g.word() + ".com login " + g.word() + " password " + v, v
	}},
	{"dockerconfigjson", func(g gen) (string, string) {
		v := base64.StdEncoding.EncodeToString([]byte(g.word() + ":" + g.pw()))
		return `{"auths":{"registry.example.com":{"auth":"` + v + `"}}}`, v
	}},
	{"azure-sas", func(g gen) (string, string) {
		v := strings.ReplaceAll(strings.ReplaceAll(g.b64(43)+"=", "+", "%2B"), "/", "%2F")
		return "https://acct.blob.core.windows.net/c/f?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00:00:00Z&spr=https&sig=" + v, v
	}},
	{"azure-storage-key", func(g gen) (string, string) {
		v := g.b64(86) + "=="
		return "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + v + ";EndpointSuffix=core.windows.net", v
	}},
	{"azure-ad-client-secret", func(g gen) (string, string) { v := g.an(3) + "8Q~" + g.url(34); return "client_secret=" + v, v }},
	{"alibaba-access-key", func(g gen) (string, string) { v := "LTAI" + g.an(20); return "alibaba id " + v, v }},
	{"alibaba-secret", func(g gen) (string, string) { v := g.an(30); return "ALIBABA_CLOUD_ACCESS_KEY_SECRET=" + v, v }},
	{"postgres-url", func(g gen) (string, string) {
		v := g.pw()
		return "DATABASE_URL=postgres://" + g.word() + ":" + v + "@" + g.host() + ":5432/app", v
	}},
	{"mongodb-url", func(g gen) (string, string) {
		v := g.pw()
		return "mongodb+srv://" + g.word() + ":" + v + "@cluster0.mongodb.net/test", v
	}},
	{"redis-url-no-user", func(g gen) (string, string) {
		v := g.pw()
		return "REDIS_URL=redis://:" + v + "@" + g.host() + ":6379/0", v
	}},
	{"mysql-p", func(g gen) (string, string) {
		v := g.pw()
		return "mysql -u root -p" + v + " -h " + g.host() + " app", v
	}},
	{"sshpass", func(g gen) (string, string) {
		v := g.pw()
		return "sshpass -p '" + v + "' ssh " + g.word() + "@" + g.host(), v
	}},
	{"curl-u", func(g gen) (string, string) {
		v := g.pw()
		return "curl -u " + g.word() + ":" + v + " https://ci.example.com/api", v
	}},
	{"redis-cli-a", func(g gen) (string, string) { v := g.pw(); return "redis-cli -h " + g.host() + " -a " + v + " ping", v }},
	{"docker-login-p", func(g gen) (string, string) {
		v := g.pw()
		return "docker login -u " + g.word() + " -p " + v + " registry.example.com", v
	}},
	{"password-flag", func(g gen) (string, string) { v := g.pw(); return "./migrate --user app --password=" + v + " up", v }},
	{"password-flag-space", func(g gen) (string, string) { v := g.pw(); return "psql-wrapper --password " + v, v }},
	{"db-pass", func(g gen) (string, string) { v := g.pw(); return "DB_PASS=" + v, v }},
	{"smtp-pass", func(g gen) (string, string) { v := g.pw(); return "SMTP_PASS: " + v, v }},
	{"gpg-passphrase", func(g gen) (string, string) { v := g.pw(); return "export GPG_PASSPHRASE=\"" + v + "\"", v }},
	{"secret-key-base", func(g gen) (string, string) { v := g.hex(128); return "SECRET_KEY_BASE=" + v, v }},
	{"tf-token", func(g gen) (string, string) {
		v := g.an(14) + ".atlasv1." + g.an(67)
		return "export TF_TOKEN_app_terraform_io=" + v, v
	}},
	{"json-password", func(g gen) (string, string) {
		v := g.pw()
		return `{"username": "` + g.word() + `", "password": "` + v + `"}`, v
	}},
	{"yaml-secret", func(g gen) (string, string) { v := g.pw(); return "client_secret: " + v, v }},
	{"env-api-key", func(g gen) (string, string) { v := g.an(32); return "MISTRAL_API_KEY=" + v, v }},
	{"db-password-env", func(g gen) (string, string) { v := g.pw(); return "DB_PASSWORD=\"" + v + "\"", v }},
	{"groq", func(g gen) (string, string) { v := "gsk_" + g.an(52); return "GROQ_API_KEY=" + v, v }},
	{"replicate", func(g gen) (string, string) { v := "r8_" + g.an(37); return "replicate token " + v, v }},
	{"notion", func(g gen) (string, string) { v := "ntn_" + g.dig(11) + g.an(35); return "notion integration " + v, v }},
	{"grafana-service-account", func(g gen) (string, string) { v := "glsa_" + g.an(32) + "_" + g.hex(8); return "grafana " + v, v }},
	{"newrelic-user-key", func(g gen) (string, string) { v := "NRAK-" + g.up(27); return "new relic " + v, v }},
	{"pulumi", func(g gen) (string, string) { v := "pul-" + g.hex(40); return "PULUMI_ACCESS_TOKEN=" + v, v }},
	{"doppler", func(g gen) (string, string) { v := "dp.pt." + g.an(43); return "doppler " + v, v }},
	{"sentry-user-token", func(g gen) (string, string) { v := "sntryu_" + g.hex(64); return "sentry-cli " + v, v }},
	{"supabase", func(g gen) (string, string) { v := "sbp_" + g.hex(40); return "supabase login --token " + v, v }},
	{"flyio", func(g gen) (string, string) { v := "fo1_" + g.url(43); return "FLY_API_TOKEN=" + v, v }},
	{"dropbox", func(g gen) (string, string) { v := "sl." + g.url(135); return "dropbox access " + v, v }},
	{"heroku-v2", func(g gen) (string, string) { v := "HRKU-AA" + g.url(58); return "heroku " + v, v }},
	{"private-key-password-yaml", func(g gen) (string, string) { v := g.pw(); return "  passphrase: " + v, v }},
	// Issue 35 item 5: the kinds a held-out set still found.
	{"age-secret-key-keyfile", func(g gen) (string, string) {
		// age-keygen's file; a key whose characters stray from bech32's
		// (a hand-made or mangled one) is a key all the same.
		v := "AGE-SECRET-KEY-1" + g.from(upper+digits, 58)
		return "# created: 2026-01-0" + g.dig(1) + "T10:00:00Z\n# public key: age1" + g.from(strings.ToLower(bech32), 58) + "\n" + v, v
	}},
	{"env-short-password", func(g gen) (string, string) {
		v := g.an(4 + g.r.IntN(3))
		return g.pick("DB_PASSWORD", "POSTGRES_PASSWORD", "REDIS_PASS", "MYSQL_ROOT_PASSWORD", "SMTP_PWD") + "=" + v, v
	}},
	{"env-letters-password", func(g gen) (string, string) {
		v := g.from(lower+upper, 8+g.r.IntN(5))
		return g.pick("export ", "") + g.pick("DB_PASSWORD", "PGPASSWORD", "ADMIN_PASSWORD") + "=" + v, v
	}},
	{"env-numeric-password", func(g gen) (string, string) {
		v := g.dig(6 + g.r.IntN(4))
		return g.pick("DB_PASSWORD", "REDIS_PASSWORD", "APP_PIN_PASSWORD") + "=" + v, v
	}},
	{"facebook-access-token", func(g gen) (string, string) {
		v := "EAA" + g.pick("B", "C", "G", "M", "J", "I") + g.an(20+g.r.IntN(160))
		return g.pick("FACEBOOK_ACCESS_TOKEN=", "curl 'https://graph.facebook.com/v19.0/me?access_token=", "the page token is ") + v, v
	}},
	{"sentry-dsn", func(g gen) (string, string) {
		v := g.hex(32)
		return g.pick("SENTRY_DSN=", "dsn: '", "Sentry.init({ dsn: \"") + "https://" + v + "@o" + g.dig(6) + g.pick(".ingest.sentry.io/", ".ingest.us.sentry.io/", ".ingest.de.sentry.io/") + g.dig(7), v
	}},
	{"sentry-dsn-legacy", func(g gen) (string, string) {
		v := g.hex(32)
		return "RAVEN_DSN=https://" + v + ":" + g.hex(32) + "@" + g.pick("sentry.io", "sentry.example.com") + "/" + g.dig(4), v
	}},
}

// benigns are look-alikes that must survive.
var benigns = []struct {
	kind string
	fn   func(g gen) string
}{
	{"commit-sha", func(g gen) string { return "commit " + g.hex(40) + " fixed the race" }},
	{"short-sha", func(g gen) string { return "see " + g.hex(7) + " and " + g.hex(12) }},
	{"uuid", func(g gen) string { return "session " + g.uuid() }},
	{"sha256-digest", func(g gen) string { return "image@sha256:" + g.hex(64) }},
	{"sha512-integrity", func(g gen) string { return `"integrity": "sha512-` + g.b64(86) + `=="` }},
	{"go-sum", func(g gen) string {
		return "github.com/" + g.word() + "/lib v1." + g.dig(1) + "." + g.dig(1) + " h1:" + g.b64(43) + "="
	}},
	{"go-sum-mod", func(g gen) string { return "golang.org/x/text v0.3." + g.dig(1) + "/go.mod h1:" + g.b64(43) + "=" }},
	{"base64-prose", func(g gen) string {
		return "payload " + base64.StdEncoding.EncodeToString([]byte(g.pick("the quick brown fox ", "hello world, this is ", "meeting notes for ")+g.word()+" on monday"))
	}},
	{"long-identifier", func(g gen) string {
		return "func " + g.pick("TestImportTranscript", "BenchmarkHybridSearch", "handleAppendEvents") + g.pick("ResumesAfterTruncation", "WithQuantizedVectors", "RefusesUnknownFields") + "(t *testing.T)"
	}},
	{"env-placeholder", func(g gen) string {
		return g.pick("API_KEY", "GITHUB_TOKEN", "DB_PASSWORD") + "=${" + g.pick("OPENAI_API_KEY", "SECRET_FROM_VAULT", "CI_TOKEN") + "}"
	}},
	{"dollar-placeholder", func(g gen) string { return "password: $" + g.pick("DB_PASSWORD", "PGPASSWORD", "REDIS_PASS") }},
	{"template-placeholder", func(g gen) string { return "token: {{ .Values." + g.pick("token", "apiKey") + " }}" }},
	{"angle-placeholder", func(g gen) string {
		return "export " + g.pick("API_KEY", "STRIPE_KEY", "TOKEN", "DB_PASSWORD") + "=<your-" + g.pick("api-key", "token", "password") + "-" + g.dig(2) + ">"
	}},
	{"chunk-id", func(g gen) string { return "chunk " + g.hex(32) + " of scope session" }},
	{"ragd-event-id", func(g gen) string { return "codex:" + g.uuid() + "@" + g.dig(5) + "." + g.hex(8) }},
	{"semver", func(g gen) string {
		return "upgraded to v" + g.dig(1) + "." + g.dig(2) + "." + g.dig(1) + "-rc." + g.dig(1)
	}},
	{"url-no-password", func(g gen) string {
		return "https://github.com/" + g.word() + "/" + g.pick("ragd", "tools") + "/pull/" + g.dig(4)
	}},
	{"email", func(g gen) string { return g.word() + "." + g.word() + "@example.org wrote" }},
	{"kms-arn", func(g gen) string { return "arn:aws:kms:us-east-1:" + g.dig(12) + ":key/" + g.uuid() }},
	{"max-tokens", func(g gen) string { return "max_tokens: " + g.dig(4) }},
	{"sort-key", func(g gen) string {
		return g.pick("sortKey", "primaryKey", "partitionKey", "cacheKey") + ": " + g.pick("createdAt", "userId", "updatedAt", "tenantName") + g.dig(1)
	}},
	{"keyboard", func(g gen) string {
		return g.pick("keyboard", "keymap", "tokenizer", "author", "bypass", "compass") + ": " + g.pick("us-international", "bert-base-uncased", "north-by-northwest", "proxy-for-ci") + "-" + g.dig(2)
	}},
	{"npm-package", func(g gen) string {
		return "npm install @" + g.word() + "/" + g.pick("token-utils", "secret-sauce", "keychain") + "@" + g.dig(1) + ".0.0"
	}},
	{"docker-digest-tag", func(g gen) string { return "ghcr.io/" + g.word() + "/app:" + g.hex(12) }},
	{"hex-color", func(g gen) string { return "color: #" + g.hex(6) }},
	{"ip-port", func(g gen) string { return "listening on 10." + g.dig(1) + "." + g.dig(1) + ".4:" + g.dig(4) }},
	{"file-path", func(g gen) string { return "/home/" + g.word() + "/src/ragd/store/forget_" + g.low(6) + ".go" }},
	{"cache-key", func(g gen) string { return "key: setup-go-linux-x86_64-go-1.26-" + g.hex(32) }},
	{"password-prose", func(g gen) string {
		return "the " + g.pick("password", "secret", "token", "passphrase") + " field is " + g.pick("required", "optional", "hashed", "rotated") + " since v" + g.dig(2)
	}},
	{"token-count", func(g gen) string { return "tokens: " + g.dig(5) + " in, " + g.dig(4) + " out" }},
	{"secret-ref", func(g gen) string { return "secret: ${{ secrets." + g.pick("NPM_TOKEN", "DEPLOY_KEY") + " }}" }},
	{"password-stdin", func(g gen) string { return "echo $CR_PAT | docker login ghcr.io -u " + g.word() + " --password-stdin" }},
	{"git-log-line", func(g gen) string {
		return g.hex(7) + " store: " + g.pick("the WAL is truncated after forget", "chunks are cut once")
	}},
	{"jwt-header-only", func(g gen) string { return "alg header eyJhbGciOiJIUzI1NiJ9 is base64 (" + g.dig(3) + ")" }},
	{"k8s-secret-ref", func(g gen) string { return "secretKeyRef: {name: " + g.word() + g.dig(2) + ", key: password}" }},
	{"timestamp", func(g gen) string { return "at 2026-" + g.dig(1) + "1-0" + g.dig(1) + "T12:" + g.dig(1) + "0:00Z" }},
	// Issue 35 item 5: look-alikes of the kinds added then.
	{"age-public-key", func(g gen) string {
		return g.pick("# public key: ", "recipient: ", "age -r ") + "age1" + g.from(strings.ToLower(bech32), 58)
	}},
	{"public-key-setting", func(g gen) string {
		return g.pick("PUBLIC_KEY", "publicKey", "public_key") + "=" + g.an(32)
	}},
	{"sentry-url", func(g gen) string {
		return g.pick("https://sentry.io/organizations/", "https://o"+g.dig(6)+".ingest.sentry.io/api/") + g.word() + "/issues/" + g.dig(6) + "/"
	}},
	{"env-nonsecret", func(g gen) string {
		return g.pick("PASSWORD_MIN_LENGTH="+g.dig(2), "PASSWORD_HASH_ROUNDS="+g.dig(5), "DB_HOST="+g.host(), "DB_USER="+g.word(), "DB_PASSWORD_FILE=/run/secrets/"+g.word())
	}},
	{"env-password-placeholder", func(g gen) string {
		return g.pick("DB_PASSWORD=", "REDIS_PASSWORD=", "PGPASSWORD=") + g.pick("changeme", "${DB_PASSWORD}", "<password>", "xxxx", "")
	}},
	{"graph-api-url", func(g gen) string {
		return "GET https://graph.facebook.com/v" + g.dig(2) + ".0/me/accounts?fields=" + g.pick("name,id", "access_token", "EAAGuide")
	}},
}

// benignPerKind is how many more benign values of a kind than secrets
// of a kind are made: look-alikes are most of what a transcript holds.
const benignPerKind = 2

// Generate returns perKind secrets of every kind and perKind benign
// values of every benign kind, from seed.
func Generate(seed uint64, perKind int) ([]Secret, []Benign) {
	g := gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	var secrets []Secret
	for _, k := range kinds {
		for range perKind {
			text, value := k.fn(g)
			secrets = append(secrets, Secret{Kind: k.kind, Text: text, Value: value})
		}
	}
	var ben []Benign
	for _, k := range benigns {
		seen := map[string]bool{}
		for i := 0; i < benignPerKind*perKind*4 && len(seen) < benignPerKind*perKind; i++ {
			t := k.fn(g)
			if !seen[t] {
				seen[t] = true
				ben = append(ben, Benign{Kind: k.kind, Text: t})
			}
		}
	}
	return secrets, ben
}

// Kinds returns the number of secret kinds and benign kinds.
func Kinds() (secret, benign int) { return len(kinds), len(benigns) }

// String describes s for a failure message without quoting the value
// whole.
func (s Secret) String() string {
	v := s.Value
	if len(v) > 12 {
		v = v[:12] + "…"
	}
	return fmt.Sprintf("%s (%s)", s.Kind, v)
}

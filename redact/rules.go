package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// Kinds of secret ragd's own rules find, as they appear in
// "[REDACTED:kind]" and in import reports. The gitleaks rules add their
// rule ids; see Kinds.
const (
	KindPrivateKey    = "private-key"
	KindPuTTYKey      = "putty-private-key"
	KindAWSKey        = "aws-access-key"
	KindGitHubToken   = "github-token"
	KindAnthropicKey  = "anthropic-key"
	KindOpenAIKey     = "openai-key"
	KindSlackToken    = "slack-token"
	KindGoogleKey     = "google-api-key"
	KindStripeKey     = "stripe-key"
	KindHuggingFace   = "huggingface-token"
	KindJWT           = "jwt"
	KindBearer        = "bearer-token"
	KindBasicAuth     = "basic-auth"
	KindURLPassword   = "url-password"
	KindNetrc         = "netrc-password"
	KindDockerAuth    = "docker-auth"
	KindAzureSAS      = "azure-sas-signature"
	KindTelegramBot   = "telegram-bot-token"
	KindDiscordBot    = "discord-bot-token"
	KindWebhook       = "webhook-url"
	KindCLIPassword   = "command-line-password"
	KindGoogleOAuth   = "google-oauth-secret"
	KindPrefixedToken = "prefixed-token"
	KindAssignedValue = "secret-value"
	KindAgeKey        = "age-secret-key"
	KindFacebookToken = "facebook-access-token"
	KindSentryDSN     = "sentry-dsn-key"
)

// An own rule is a regular expression whose last capturing group, if it
// matched, is the part replaced (the rest, such as "password=", stays);
// otherwise the whole match is. hints are substrings one of which every
// match contains, tested before the expression runs: most texts contain
// none, and strings.Contains is much cheaper than a regexp scan. keep,
// when set, is given the submatches and says whether the match is a
// secret.
type ownRule struct {
	kind  string
	hints []string
	re    *regexp.Regexp
	keep  func(s string, loc []int) bool
	// need, when set, must also hold for the expression to run.
	need func(s string) bool
}

// ownRules come first, most specific first.
var ownRules = []ownRule{
	// A whole private key block (PEM, OpenSSH, PGP); a block cut short (a
	// truncated paste) is redacted to the end of the text.
	{KindPrivateKey, []string{"PRIVATE KEY"}, regexp.MustCompile(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)`), nil, nil},
	{KindPuTTYKey, []string{"PuTTY-User-Key-File"}, regexp.MustCompile(`PuTTY-User-Key-File-\d+:(?s:.*?)(?:Private-MAC:[ \t]*[0-9a-fA-F]+|\z)`), nil, nil},
	{KindAWSKey, []string{"AKIA", "ASIA", "ABIA", "ACCA"}, regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`), nil, nil},
	{KindGitHubToken, []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{36,255}\b`), nil, nil},
	{KindGitHubToken, []string{"github_pat_"}, regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{22,255}`), nil, nil},
	{KindAnthropicKey, []string{"sk-ant-"}, regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`), nil, nil},
	{KindOpenAIKey, []string{"sk-"}, regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`), nil, nil},
	{KindSlackToken, []string{"xox"}, regexp.MustCompile(`\bxox[abposre]-[A-Za-z0-9-]{10,}`), nil, nil},
	{KindSlackToken, []string{"xapp-"}, regexp.MustCompile(`\bxapp-\d-[A-Za-z0-9-]{20,}`), nil, nil},
	{KindGoogleKey, []string{"AIza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`), nil, nil},
	{KindStripeKey, []string{"_live_", "_test_", "whsec_"}, regexp.MustCompile(`\b(?:[rs]k_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{32,})`), nil, nil},
	{KindGoogleOAuth, []string{"GOCSPX-"}, regexp.MustCompile(`\bGOCSPX-[A-Za-z0-9_-]{28}`), nil, nil},
	// age's secret keys: gitleaks' rule wants exactly 58 characters of
	// bech32's alphabet, and a key mangled or hand-made (other letters,
	// lower case, another length) is a key all the same.
	{KindAgeKey, []string{"AGE-SECRET-KEY-", "age-secret-key-"}, regexp.MustCompile(`(?i)\bAGE-SECRET-KEY-1[0-9A-Z]{20,}`), nil, nil},
	// Facebook (Meta) access tokens: "EAA", the app's kind, then scores of
	// letters and digits; gitleaks' rule wants 100 or more after EAAM or
	// EAAC only.
	{KindFacebookToken, []string{"EAA"}, regexp.MustCompile(`\bEAA[A-Za-z0-9]{20,}\b`), facebookToken, nil},
	// The key of a Sentry DSN (https://KEY@o1.ingest.sentry.io/2, and the
	// older https://KEY:SECRET@sentry.io/2): 32 hex digits as a URL's user.
	{KindSentryDSN, []string{"://"}, regexp.MustCompile(`https?://([0-9a-f]{32}(?::[0-9a-f]{32})?)@`), nil, hasByte('@')},
	// Prefixed tokens the gitleaks rules find only after their provider's
	// name and an assignment.
	{KindPrefixedToken, []string{"key-"}, regexp.MustCompile(`\bkey-[0-9a-f]{32}\b`), nil, nil},
	{KindPrefixedToken, []string{"-us"}, regexp.MustCompile(`\b[0-9a-f]{32}-us[0-9]{1,2}\b`), nil, nil},
	{KindPrefixedToken, []string{"r8_"}, regexp.MustCompile(`\br8_[A-Za-z0-9]{37}\b`), nil, nil},
	{KindPrefixedToken, []string{"NRAK-"}, regexp.MustCompile(`\bNRAK-[A-Z0-9]{27}\b`), nil, nil},
	{KindPrefixedToken, []string{"sbp_"}, regexp.MustCompile(`\bsbp_[0-9a-f]{40}\b`), nil, nil},
	{KindPrefixedToken, []string{"sl."}, regexp.MustCompile(`\bsl\.[A-Za-z0-9_-]{130,160}`), nil, nil},
	{KindPrefixedToken, []string{"hvs.", "hvb."}, regexp.MustCompile(`\bhv[sb]\.[A-Za-z0-9_-]{24,}`), nil, nil},
	{KindHuggingFace, []string{"hf_"}, regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,40}\b`), nil, nil},
	{KindJWT, []string{"eyJ"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), nil, nil},
	{KindBearer, []string{"earer"}, regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), nil, nil},
	{KindBasicAuth, []string{"asic"}, regexp.MustCompile(`(?i)\bbasic\s+([A-Za-z0-9+/]{6,}={0,2})`), basicCredentials, nil},
	{KindWebhook, []string{"hooks.slack.com"}, regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})`), nil, nil},
	{KindWebhook, []string{"/api/webhooks/"}, regexp.MustCompile(`discord(?:app)?\.com/api/webhooks/(\d+/[A-Za-z0-9_-]{20,})`), nil, nil},
	{KindURLPassword, []string{"://"}, regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@"'<>]*:([^\s/@"'<>]{3,})@`), nil, hasByte('@')},
	{KindNetrc, []string{"password", "PASSWORD"}, regexp.MustCompile(`(?i)\b(?:machine\s+\S+|default)\s+(?:login\s+\S+\s+)?password\s+(\S+)`), nil, nil},
	{KindDockerAuth, []string{`"auth"`}, regexp.MustCompile(`"auth"\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"`), nil, nil},
	{KindAzureSAS, []string{"sig="}, regexp.MustCompile(`[?&]sig=([A-Za-z0-9%+/=_-]{20,})`), nil, nil},
	{KindTelegramBot, []string{":AA"}, regexp.MustCompile(`\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b`), nil, nil},
	{KindDiscordBot, nil, regexp.MustCompile(`\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b`), nil, hasDottedSix},
	// Passwords on command lines.
	{KindCLIPassword, []string{"mysql", "mariadb"}, regexp.MustCompile(`\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p([^\s'"-][^\s'"]*|'[^'\n]+'|"[^"\n]+")`), nil, nil},
	{KindCLIPassword, []string{"sshpass"}, regexp.MustCompile(`\bsshpass\s+-p\s*('[^'\n]+'|"[^"\n]+"|\S+)`), nil, nil},
	{KindCLIPassword, []string{"-u", "--user"}, regexp.MustCompile(`\s(?:-u|--user)[ =]?['"]?[^\s:'"]+:([^\s'"@]+)`), nil, hasByte(':')},
	{KindCLIPassword, []string{"redis-cli"}, regexp.MustCompile(`\bredis-cli\b[^\n|;&]*?\s-a\s+('[^'\n]+'|"[^"\n]+"|\S+)`), nil, nil},
	{KindCLIPassword, []string{"login"}, regexp.MustCompile(`\blogin\b[^\n|;&]*?\s-p\s+('[^'\n]+'|"[^"\n]+"|[^\s-]\S*)`), nil, nil},
	{KindCLIPassword, []string{"-pass", "-password"}, regexp.MustCompile(`(?i)\s--?(?:pass|password|passwd)(?:=|\s+)('[^'\n]+'|"[^"\n]+"|[^\s'"-][^\s'"]*)`), cliPassword, nil},
}

// basicCredentials keeps a Basic authorization whose value decodes to
// "user:password", so that "basic auth" in prose stays.
func basicCredentials(s string, loc []int) bool {
	v := s[loc[len(loc)-2]:loc[len(loc)-1]]
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	}
	return err == nil && strings.IndexByte(string(b), ':') > 0
}

// cliPassword refuses references and placeholders as the value of a
// --password flag.
func cliPassword(s string, loc []int) bool {
	v := strings.Trim(s[loc[len(loc)-2]:loc[len(loc)-1]], `'"`)
	return len(v) >= 4 && !placeholder(v) && !strings.HasPrefix(v, "-")
}

// hasByte returns a need that s holds c.
// facebookToken keeps an EAA match that reads like a token: mixed case
// and digits, as every access token has (a word such as "EAAGuide" has
// no digit).
func facebookToken(s string, loc []int) bool {
	v := s[loc[0]:loc[1]]
	return hasDigitAndLetter(v[3:]) && strings.ContainsAny(v[3:], "abcdefghijklmnopqrstuvwxyz")
}

func hasByte(c byte) func(string) bool {
	return func(s string) bool { return strings.IndexByte(s, c) >= 0 }
}

// hasDottedSix reports whether s has a ".xxxxxx." run (six token bytes
// between dots), the middle of a Discord bot token.
func hasDottedSix(s string) bool {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '.')
		if i < 0 {
			return false
		}
		i += off
		off = i + 1
		if i+7 < len(s) && s[i+7] == '.' && tokenBytes(s[i+1:i+7]) {
			return true
		}
	}
}

func tokenBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (r *ownRule) spans(s string, prio int, out []span) []span {
	if !containsAny(s, r.hints) || r.need != nil && !r.need(s) {
		return out
	}
	for _, loc := range r.re.FindAllStringSubmatchIndex(s, -1) {
		if r.keep != nil && !r.keep(s, loc) {
			continue
		}
		start, end := loc[0], loc[1]
		if len(loc) >= 4 && loc[len(loc)-2] >= 0 {
			start, end = loc[len(loc)-2], loc[len(loc)-1]
		}
		out = append(out, span{start: start, end: end, kind: r.kind, prio: prio})
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, h := range subs {
		if strings.Contains(s, h) {
			return true
		}
	}
	return len(subs) == 0
}

// findSpans runs every rule over s.
func findSpans(s string) []span {
	var out []span
	for i := range ownRules {
		out = ownRules[i].spans(s, i, out)
	}
	out = gitleaksSpans(s, len(ownRules), out)
	return assignedSpans(s, len(ownRules)+1, out)
}

package transcript

import "github.com/ragd/ragd/redact"

// Kinds of secret, as they appear in "[REDACTED:kind]" and in
// Stats.Redactions; see package redact for all of them.
const (
	KindPrivateKey    = redact.KindPrivateKey
	KindAWSKey        = redact.KindAWSKey
	KindGitHubToken   = redact.KindGitHubToken
	KindAnthropicKey  = redact.KindAnthropicKey
	KindOpenAIKey     = redact.KindOpenAIKey
	KindSlackToken    = redact.KindSlackToken
	KindGoogleKey     = redact.KindGoogleKey
	KindStripeKey     = redact.KindStripeKey
	KindJWT           = redact.KindJWT
	KindBearer        = redact.KindBearer
	KindURLPassword   = redact.KindURLPassword
	KindAssignedValue = redact.KindAssignedValue
)

// Redact returns s with every value that looks like a secret replaced by
// "[REDACTED:kind]", and adds the count of each kind to counts (which may
// be nil). It is redact.String, the redaction every path into the session
// scope shares; readers call it through reader.redact.
func Redact(s string, counts map[string]int) string { return redact.String(s, counts) }

package ragd

// Scopes of chunks. A path under docs/adr/ is ScopeADR, any other under docs/
// is ScopeDocs; ScopeSession holds conversation messages.
const (
	ScopeDocs    = "docs"
	ScopeADR     = "adr"
	ScopeSession = "session"
)

// Scopes lists every scope, in display order.
var Scopes = []string{ScopeDocs, ScopeADR, ScopeSession}

// ValidScope reports whether s names a scope.
func ValidScope(s string) bool {
	return s == ScopeDocs || s == ScopeADR || s == ScopeSession
}

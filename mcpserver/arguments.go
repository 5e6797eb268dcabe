package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of what a tool error echoes back of a client's arguments: an
// argument over its bound (a 12 MB query) is named, never sent back whole.
const (
	// maxEchoedWord is the longest unbroken run of characters an error
	// keeps (a value, a name); a longer one keeps its start and says how
	// long it was. Longer than any path, heading or id ragd itself writes.
	maxEchoedWord = 120
	// maxErrorText is the longest error text a tool returns; the middle of
	// a longer one is cut, keeping the start (what failed) and the end
	// (the bound it broke).
	maxErrorText = 1500
)

// checkArguments is the server's receiving middleware for tools/call: it
// refuses arguments a tool does not take (a misspelt "scope" must not mean
// "every scope") and clips what a tool error echoes back. Published schemas
// stay in the function-calling subset (see plain), which has no
// additionalProperties: the server enforces it instead.
func (s *Server) checkArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
			if err := s.unknownArguments(p.Name, p.Arguments); err != nil {
				res := &mcp.CallToolResult{}
				res.SetError(err)
				clipResult(res)
				return res, nil
			}
		}
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
			clipResult(r)
		}
		return res, err
	}
}

// unknownArguments reports the first argument tool does not take. Arguments
// that are not a JSON object are left to the SDK's validation.
func (s *Server) unknownArguments(tool string, raw json.RawMessage) error {
	known, ok := s.arguments[tool]
	if !ok || len(raw) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil {
		return nil
	}
	var unknown []string
	for name := range args {
		if !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("invalid arguments: unknown argument %q: %s takes %s", unknown[0], tool, strings.Join(known, ", "))
}

// clipResult clips every text of a tool error (see clipText).
func clipResult(r *mcp.CallToolResult) {
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			tc.Text = clipText(tc.Text)
		}
	}
}

// clipText shortens each run of more than maxEchoedWord characters without
// a space, then the middle of a text over maxErrorText, saying how much
// was cut each time.
func clipText(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			i = len(s)
		}
		word := s[:i]
		if n := len([]rune(word)); n > maxEchoedWord {
			word = string([]rune(word)[:maxEchoedWord]) + fmt.Sprintf("…(%d characters)", n)
		}
		b.WriteString(word)
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
		if j < 0 {
			j = len(s)
		}
		b.WriteString(s[:j])
		s = s[j:]
	}
	out := []rune(b.String())
	if len(out) <= maxErrorText {
		return string(out)
	}
	const marker = "\n…(%d characters clipped)…\n"
	keep := (maxErrorText - len(marker) - 8) / 2
	return string(out[:keep]) + fmt.Sprintf(marker, len(out)-2*keep) + string(out[len(out)-keep:])
}

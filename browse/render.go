package browse

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/terminal"
)

// Rendering shared by the views: the styles, the frame, the header's
// parts, the status lines, citations, and line fitting and wrapping.

// styles are the view's styles; all plain under NO_COLOR.
type styles struct {
	noColor                                 bool
	header, selected, warn, dim, mark, help lipgloss.Style
}

func newStyles(noColor bool) styles {
	r := lipgloss.NewRenderer(io.Discard)
	if noColor {
		r.SetColorProfile(termenv.Ascii)
	} else {
		r.SetColorProfile(termenv.ANSI256)
	}
	return styles{noColor: noColor,
		header:   r.NewStyle().Bold(true).Foreground(lipgloss.Color("39")),
		selected: r.NewStyle().Reverse(true),
		warn:     r.NewStyle().Bold(true).Foreground(lipgloss.Color("208")),
		dim:      r.NewStyle().Foreground(lipgloss.Color("244")),
		mark:     r.NewStyle().Bold(true).Underline(true),
		help:     r.NewStyle().Foreground(lipgloss.Color("244")),
	}
}

// View renders the screen: exactly height lines, none wider than width.
func (m Model) View() string {
	var lines []string
	switch m.view {
	case viewSessions:
		lines = m.sessionsView()
	case viewConversation:
		lines = m.conversationView()
	case viewStatus:
		lines = m.statusView()
	default:
		lines = m.searchView()
	}
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	// What reached a line by another way than fit or wrap is made safe
	// here: the frame keeps only its own colours.
	return terminal.Screen(strings.Join(lines[:m.height], "\n"))
}

// fit cuts a plain line to the width, its control characters shown as
// text (terminal.Safe: a title or snippet from the index may hold any).
func (m Model) fit(s string) string { return ansi.Truncate(terminal.Safe(s), m.width, "…") }

func (m Model) scopeLabel() string {
	var parts []string
	for i, s := range scopes {
		box := " "
		if m.scopeOn[s] {
			box = "x"
		}
		parts = append(parts, fmt.Sprintf("[%s]%s(M-%d)", box, s, i+1))
	}
	return strings.Join(parts, " ")
}

func (m Model) where() string {
	if m.all {
		return "all projects"
	}
	return "project " + m.opts.Project
}

// statusLines is the search's state, always shown: degraded or not, the
// vector coverage, stale scopes, and the last action's outcome, on one
// line or two.
func (m Model) statusLines() []string {
	var parts []string
	switch {
	case m.busy:
		parts = append(parts, "searching…")
	case m.query == "" && len(m.hits) == 0 && m.res.coverage == nil:
		parts = append(parts, "vectors: not searched yet")
	}
	if m.res.degraded {
		parts = append(parts, "! DEGRADED, lexical only: "+m.res.reason)
	} else if c := m.res.coverage; c != nil {
		parts = append(parts, fmt.Sprintf("hybrid · vectors %d/%d (%.0f%%)", c.Vectors, c.Chunks, 100*c.Share))
	}
	if len(m.res.stale) > 0 {
		parts = append(parts, "! stale: "+strings.Join(m.res.stale, ","))
	}
	// The last action's outcome shares the line while it fits, and gets a
	// line of its own when the state above fills it (a degraded reason).
	if m.status != "" && ansi.StringWidth(terminal.Safe(strings.Join(append(parts, m.status), " · "))) > m.width && len(parts) > 0 {
		return []string{m.styleStatus(strings.Join(parts, " · ")), m.styleStatus(m.status)}
	}
	if m.status != "" {
		parts = append(parts, m.status)
	}
	return []string{m.styleStatus(strings.Join(parts, " · "))}
}

// styleStatus fits a status line to the width, a warning when it says one.
func (m Model) styleStatus(s string) string {
	line := m.fit(s)
	if strings.Contains(line, "!") {
		return m.st.warn.Render(line)
	}
	return m.st.dim.Render(line)
}

// citation is a hit's origin in one line: path § headings, or agent ·
// session title › message.
func citation(o ragd.Origin) string {
	if o.Kind != ragd.OriginSession {
		return o.String()
	}
	agent, _, ok := strings.Cut(o.SessionID, ":")
	if !ok {
		agent = "session"
	}
	title := o.Title
	if title == "" {
		title = o.SessionID
	}
	return agent + " · " + title + " › " + o.EventID
}

func score(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v)
}

// plural is n and noun, with an s unless n is 1 (as internal/words says
// counts, which this layer does not import).
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// wrap cuts s into lines of at most width cells, at spaces.
func wrap(s string, width int) []string {
	if strings.TrimSpace(s) == "" {
		return []string{""}
	}
	return strings.Split(ansi.Wordwrap(terminal.Safe(s), max(width, 10), ""), "\n")
}

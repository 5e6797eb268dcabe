package browse

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// The conversation view: one session read whole in a viewport, its
// mechanism folded, with a find.

// conversationMsg is the answer of a session opened from the sessions
// view.
type conversationMsg struct {
	c       *api.Conversation
	project string
	err     error
}

func (m Model) conversationKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.finding {
		switch msg.Type {
		case tea.KeyEnter:
			m.finding = false
			m.findNext(m.vp.YOffset)
		case tea.KeyEsc:
			m.finding, m.find = false, ""
			m.status = ""
		case tea.KeyBackspace:
			if r := []rune(m.find); len(r) > 0 {
				m.find = string(r[:len(r)-1])
			}
			m.status = "find: " + m.find
		case tea.KeyRunes, tea.KeySpace:
			m.find += string(msg.Runes)
			m.status = "find: " + m.find
		}
		return m, nil
	}
	switch msg.String() {
	case "/":
		m.finding, m.find, m.status = true, "", "find: "
		return m, nil
	case "n":
		m.findNext(m.findAt + 1)
		return m, nil
	case "q":
		return m, tea.Quit
	case "esc", "backspace":
		m.view = viewSessions
		return m, nil
	case "tab":
		m.view = viewSearch
		return m, nil
	case "m":
		m.expand = !m.expand
		m.vp.SetContent(m.conversationText())
		return m, nil
	}
	var cmd tea.Cmd
	m.vp, cmd = m.vp.Update(msg)
	return m, cmd
}

// findNext scrolls the conversation to the first line from line from on
// (wrapping around) that holds the find, and says which match it is.
func (m *Model) findNext(from int) {
	if m.find == "" {
		m.status = ""
		return
	}
	lines := strings.Split(ansi.Strip(m.conversationText()), "\n")
	want := strings.ToLower(m.find)
	var at []int
	for i, l := range lines {
		if strings.Contains(strings.ToLower(l), want) {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		m.status = fmt.Sprintf("! no %q in this session", m.find)
		return
	}
	k := 0
	for i, line := range at {
		if line >= from {
			k = i
			break
		}
	}
	m.findAt = at[k]
	m.vp.SetYOffset(at[k])
	m.status = fmt.Sprintf("%q: match %d of %d (n: next)", m.find, k+1, len(at))
}

func (m *Model) sizeViewport() {
	m.vp.Width, m.vp.Height = m.width, m.height-3
	if m.conv != nil {
		m.vp.SetContent(m.conversationText())
	}
}

func (m Model) conversationView() []string {
	title := m.conv.Session.Title
	if title == "" {
		title = m.conv.Session.ID
	}
	header := m.st.header.Render(m.fit(fmt.Sprintf("ragd browse · %s · %s · %s", m.convProj, title, plural(m.conv.Session.Messages, "message"))))
	lines := append(append([]string{header}, m.statusLines()...), strings.Split(m.vp.View(), "\n")...)
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	help := fmt.Sprintf("↑↓ pgdn scroll %.0f%% · / find · m mechanism · esc sessions · tab search · q quit", 100*m.vp.ScrollPercent())
	return append(lines[:m.height-1], m.st.help.Render(m.fit(help)))
}

// conversationText is the session's prompts and answers whole, each
// mechanism event folded to one line (all of it with m).
func (m Model) conversationText() string {
	if m.conv == nil {
		return ""
	}
	var lines []string
	for _, e := range m.conv.Events {
		if !ragd.Indexed(e.Type) {
			text := api.FoldMechanism(e, m.width-4)
			if m.expand {
				for _, l := range wrap(e.Type+" "+string(e.Payload)+" "+e.Text, m.width-4) {
					lines = append(lines, m.st.dim.Render("   "+l))
				}
				continue
			}
			lines = append(lines, m.st.dim.Render(m.fit("   · "+text)))
			continue
		}
		lines = append(lines, "", m.st.header.Render(m.fit(fmt.Sprintf("── %s · %s", e.Actor, e.Time.Local().Format("2006-01-02 15:04:05")))))
		for _, para := range strings.Split(e.Text, "\n") {
			lines = append(lines, wrap(para, m.width-1)...)
		}
	}
	return strings.Join(lines, "\n")
}

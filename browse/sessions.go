package browse

import (
	"context"
	"fmt"
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// The sessions view: the sessions of the project, or of every project,
// latest first; enter reads one as a conversation (conversation.go).

type sessionRow struct {
	project string
	ragd.SessionInfo
}

// sessionsMsg is the answer of loadSessions.
type sessionsMsg struct {
	rows []sessionRow
	err  error
}

func (m Model) sessionsKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "q":
		return m, tea.Quit
	case "tab", "esc":
		m.view = viewSearch
	case "up", "k":
		m.sessionSel = max(0, m.sessionSel-1)
	case "down", "j":
		m.sessionSel = min(len(m.sessions)-1, m.sessionSel+1)
		m.sessionSel = max(m.sessionSel, 0)
	case "r":
		return m, m.loadSessions()
	case "enter":
		if len(m.sessions) == 0 {
			return m, nil
		}
		row := m.sessions[m.sessionSel]
		b := m.b
		return m, func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
			defer cancel()
			c, err := b.Conversation(ctx, row.project, row.ID)
			return conversationMsg{c: c, project: row.project, err: err}
		}
	}
	return m, nil
}

func (m Model) loadSessions() tea.Cmd {
	b, all, project := m.b, m.all, m.opts.Project
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		projects := []string{project}
		if all {
			ps, err := b.Projects(ctx)
			if err != nil {
				return sessionsMsg{err: err}
			}
			projects = projects[:0]
			for _, p := range ps {
				projects = append(projects, p.ID)
			}
		}
		var rows []sessionRow
		for _, p := range projects {
			list, err := b.Sessions(ctx, p, api.SessionsQuery{})
			if err != nil {
				return sessionsMsg{err: err}
			}
			for _, s := range list.Sessions {
				rows = append(rows, sessionRow{project: p, SessionInfo: s})
			}
		}
		slices.SortStableFunc(rows, func(a, b sessionRow) int { return b.Last.Compare(a.Last) })
		return sessionsMsg{rows: rows}
	}
}

func (m Model) sessionsView() []string {
	lines := append([]string{m.st.header.Render(m.fit("ragd browse · sessions · " + m.where()))}, m.statusLines()...)
	lines = append(lines, "")
	if len(m.sessions) == 0 {
		lines = append(lines, m.st.dim.Render("  no sessions: import some with ragd sessions import --from TOOL"))
	}
	rows := m.height - len(lines) - 1
	first := max(0, m.sessionSel-rows+1)
	for i := first; i < len(m.sessions) && len(lines) < m.height-1; i++ {
		s := m.sessions[i]
		mark := "  "
		if i == m.sessionSel {
			mark = "› "
		}
		format := s.Format
		if format == "" {
			format = "events"
		}
		title := s.Title
		if title == "" {
			title = s.ID
		}
		where := ""
		if m.all {
			where = s.project + " · "
		}
		line := m.fit(fmt.Sprintf("%s%s  %-11s %8s  %s%s", mark, s.Last.Local().Format("2006-01-02 15:04"), format, plural(s.Messages, "msg"), where, title))
		if i == m.sessionSel {
			line = m.st.selected.Render(line)
		}
		lines = append(lines, line)
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	help := "↑↓ select · enter read · r reload · tab/esc search · C-s status · q quit"
	return append(lines[:m.height-1], m.st.help.Render(m.fit(help)))
}

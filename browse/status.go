package browse

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ragd/ragd/api"
)

// The status view (C-s): what the daemon says of itself and of the
// projects' coverage.

// statusMsg is the answer of loadStatus.
type statusMsg struct {
	h   *api.Health
	cov []*api.Coverage
	err error
}

// statusKey handles a key of the status view.
func (m Model) statusKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "q":
		return m, tea.Quit
	case "esc", "tab":
		m.view = viewSearch
	case "r":
		return m, m.loadStatus()
	}
	return m, nil
}

func (m Model) loadStatus() tea.Cmd {
	b, all, project := m.b, m.all, m.opts.Project
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		h, err := b.Health(ctx)
		if err != nil {
			return statusMsg{err: err}
		}
		projects := []string{project}
		if all {
			ps, err := b.Projects(ctx)
			if err != nil {
				return statusMsg{err: err}
			}
			projects = projects[:0]
			for _, p := range ps {
				projects = append(projects, p.ID)
			}
		}
		var cov []*api.Coverage
		for _, p := range projects {
			c, err := b.Coverage(ctx, p)
			if err != nil {
				return statusMsg{err: err}
			}
			cov = append(cov, c)
		}
		return statusMsg{h: h, cov: cov}
	}
}

// statusView is what the daemon says of itself and the projects: the
// provider, the background fill, and each scope's coverage and staleness.
func (m Model) statusView() []string {
	lines := append([]string{m.st.header.Render(m.fit("ragd browse · status · " + m.where()))}, m.statusLines()...)
	lines = append(lines, "")
	if h := m.health; h != nil {
		e := h.Embedding
		state := "available"
		if !e.Available {
			state = "! unavailable: " + e.Reason
		}
		lines = append(lines, m.fit(fmt.Sprintf("provider %s, model %s (%d dims): %s", e.Provider, e.Model, e.Dims, state)))
		if f := h.Backfill; f != nil && f.Pending > 0 {
			line := fmt.Sprintf("background fill: %s pending, %d filled, %.1f/s", plural(f.Pending, "chunk"), f.Filled, f.PerSecond)
			if f.LastError != "" {
				line += " · ! " + f.LastError
			}
			lines = append(lines, m.fit(line))
		} else {
			lines = append(lines, m.fit("background fill: idle, every vector filled"))
		}
	}
	for _, c := range m.coverage {
		lines = append(lines, "", m.st.header.Render(m.fit(c.Project)))
		for _, sc := range c.Scopes {
			state := "fresh"
			if sc.Stale {
				state = "! stale: " + sc.StaleReason
			}
			lines = append(lines, m.fit(fmt.Sprintf("  %-8s %4d/%-4d %-8s %6s  %5d lexical only  %s",
				sc.Scope, sc.Indexed, sc.Total, sc.Unit, plural(sc.Chunks, "chunk"), sc.LexicalOnly, state)))
		}
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	return append(lines[:m.height-1], m.st.help.Render(m.fit("r reload · esc/tab search · q quit")))
}

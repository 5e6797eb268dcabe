package browse

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// The search view: the query, its scope toggles, the hits and the preview
// pane (a passage, or the explanation of the search, actions.go).

// hit is one result row, of one project or of a search of every project.
type hit struct {
	api.Hit
	project  string
	searchID *int64
	place    int
}

// result is the state a search left: what the status line shows.
type result struct {
	degraded bool
	reason   string
	coverage *api.VectorCoverage
	stale    []string
}

// Messages the search view's commands answer with.
type (
	debounceMsg struct{ seq int }
	searchMsg   struct {
		seq      int
		hits     []hit
		res      result
		err      error
		took     time.Duration
		explains []projectExplain // set when the search was explained
	}
	passageMsg struct {
		p   *api.Passage
		err error
	}
	voteMsg struct {
		v   *api.Vote
		err error
	}
)

func (m Model) searchKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch key := msg.String(); key {
	case "up", "ctrl+k":
		m.move(-1)
		return m, m.followPreview()
	case "down", "ctrl+j":
		m.move(1)
		return m, m.followPreview()
	case "enter":
		m.previewOpen = !m.previewOpen
		m.explaining, m.previewOffset = false, 0
		if m.previewOpen && len(m.hits) > 0 {
			return m, m.loadPassage()
		}
		return m, nil
	case "esc":
		m.previewOpen, m.explaining = false, false
		return m, nil
	case "ctrl+o":
		return m.open()
	case "ctrl+y":
		return m.copyCitation()
	case "ctrl+r":
		return m.explainSearch()
	case "pgdown":
		m.previewOffset++
		return m, nil
	case "pgup":
		m.previewOffset = max(0, m.previewOffset-1)
		return m, nil
	case "ctrl+p":
		if m.opts.Project == "" {
			m.status = "no project here: every project is searched"
			return m, nil
		}
		m.all = !m.all
		return m.edited()
	case "alt+1", "alt+2", "alt+3":
		s := scopes[key[len(key)-1]-'1']
		m.scopeOn[s] = !m.scopeOn[s]
		if !slices.ContainsFunc(scopes, func(s string) bool { return m.scopeOn[s] }) {
			m.scopeOn[s] = true // never no scope: that would be every scope, said wrong
			m.status = "at least one scope stays on"
			return m, nil
		}
		return m.edited()
	case "ctrl+g":
		return m, m.vote("useful")
	case "ctrl+x":
		return m, m.vote("irrelevant")
	case "tab":
		m.view = viewSessions
		return m, m.loadSessions()
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() == before {
		return m, cmd
	}
	next, debounce := m.edited()
	return next, tea.Batch(cmd, debounce)
}

// edited notes that the query or its settings changed, and waits the
// debounce before searching.
func (m Model) edited() (Model, tea.Cmd) {
	m.seq++
	seq := m.seq
	if strings.TrimSpace(m.input.Value()) == "" {
		m.hits, m.res, m.preview, m.busy = nil, result{}, nil, false
		return m, nil
	}
	m.busy = true
	return m, tea.Tick(m.opts.Debounce, func(time.Time) tea.Msg { return debounceMsg{seq: seq} })
}

func (m *Model) move(d int) {
	if len(m.hits) == 0 {
		return
	}
	m.sel = min(max(m.sel+d, 0), len(m.hits)-1)
	m.previewOffset = 0
}

func (m Model) followPreview() tea.Cmd {
	if m.previewOpen && !m.explaining && len(m.hits) > 0 {
		return m.loadPassage()
	}
	return nil
}

// runSearch returns the command that runs the current query, explained or
// not.
func (m Model) runSearch(explain bool) tea.Cmd {
	seq, b, all, project := m.seq, m.b, m.all, m.opts.Project
	req := api.SearchRequest{Query: strings.TrimSpace(m.input.Value()), Actor: ragd.ActorPerson, Explain: explain}
	for _, s := range scopes {
		if m.scopeOn[s] {
			req.Scopes = append(req.Scopes, s)
		}
	}
	if len(req.Scopes) == len(scopes) {
		req.Scopes = nil
	}
	return func() tea.Msg {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		out := searchMsg{seq: seq}
		if all {
			r, err := b.SearchAllProjects(ctx, req)
			if err != nil {
				out.err = err
				return out
			}
			out.res = allResult(r)
			if explain {
				out.explains = []projectExplain{}
				for _, p := range r.Projects {
					if p.Error == "" {
						out.explains = append(out.explains, projectExplain{project: p.Project, explain: p.Explain})
					}
				}
			}
			for _, h := range r.Hits {
				out.hits = append(out.hits, hit{Hit: h.Hit, project: h.Project, searchID: h.SearchID, place: h.Position})
			}
		} else {
			r, err := b.Search(ctx, project, req)
			if err != nil {
				out.err = err
				return out
			}
			out.res = result{degraded: r.Degraded, reason: r.Reason, coverage: r.VectorCoverage, stale: r.Stale}
			if explain {
				out.explains = []projectExplain{{project: r.Project, explain: r.Explain}}
			}
			for _, h := range r.Hits {
				out.hits = append(out.hits, hit{Hit: h, project: r.Project, searchID: r.SearchID, place: h.Rank})
			}
		}
		out.took = time.Since(start)
		return out
	}
}

// allResult sums up the projects' states of a search of every project.
func allResult(r *api.AllProjectsResponse) result {
	var res result
	chunks, vectors := 0, 0
	var reasons []string
	for _, p := range r.Projects {
		if p.Error != "" {
			reasons = append(reasons, p.Project+" not searched")
			continue
		}
		if p.Degraded {
			res.degraded = true
			reasons = append(reasons, p.Project+": "+p.Reason)
		}
		for _, s := range p.Stale {
			res.stale = append(res.stale, p.Project+":"+s)
		}
		if c := p.VectorCoverage; c != nil {
			chunks, vectors = chunks+c.Chunks, vectors+c.Vectors
		}
	}
	res.reason = strings.Join(reasons, "; ")
	if chunks > 0 {
		res.coverage = api.NewVectorCoverage(chunks, vectors)
	}
	return res
}

func (m Model) loadPassage() tea.Cmd {
	h, b := m.hits[m.sel], m.b
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		p, err := b.Passage(ctx, h.project, api.PassageQuery{ChunkID: h.ChunkID})
		return passageMsg{p: p, err: err}
	}
}

func (m Model) vote(verdict string) tea.Cmd {
	if len(m.hits) == 0 {
		return nil
	}
	h, b := m.hits[m.sel], m.b
	if h.searchID == nil {
		return func() tea.Msg { return voteMsg{err: fmt.Errorf("the search was not recorded: nothing to vote on")} }
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		v, err := b.Feedback(ctx, api.FeedbackRequest{SearchID: *h.searchID, ChunkID: h.ChunkID, Verdict: verdict, Actor: ragd.ActorPerson})
		return voteMsg{v: v, err: err}
	}
}

func (m Model) searchView() []string {
	header := m.st.header.Render(m.fit("ragd browse · " + m.where() + " · " + m.scopeLabel()))
	q := m.input.Value()
	if m.st.noColor {
		pos := m.input.Position()
		r := []rune(q)
		q = string(r[:pos]) + "█" + string(r[pos:])
	} else {
		q = m.input.View()
	}
	lines := append([]string{header, "> " + q}, m.statusLines()...)
	body := m.height - len(lines) - len(searchHelp)
	listRows := body
	if m.previewOpen {
		listRows = body / 2
	}
	lines = append(lines, m.hitLines(listRows)...)
	if m.previewOpen {
		lines = append(lines, m.st.dim.Render(strings.Repeat("─", m.width)))
		lines = append(lines, m.previewLines(body-listRows-1)...)
	}
	for len(lines) < m.height-len(searchHelp) {
		lines = append(lines, "")
	}
	lines = lines[:m.height-len(searchHelp)]
	for _, help := range searchHelp {
		lines = append(lines, m.st.help.Render(m.fit(help)))
	}
	return lines
}

// searchHelp is the search view's keys, in two lines: one does not hold
// them at 80 columns.
var searchHelp = []string{
	"↑↓ enter preview · C-o open · C-y copy · C-r explain · C-g/C-x vote",
	"C-p all · tab sessions · C-s status · C-c quit",
}

func (m Model) hitLines(rows int) []string {
	if len(m.hits) == 0 {
		if strings.TrimSpace(m.input.Value()) != "" && !m.busy {
			return []string{m.st.dim.Render("  no hits")}
		}
		return nil
	}
	per := 2
	first := max(0, m.sel-(rows/per)+1)
	var out []string
	for i := first; i < len(m.hits) && len(out)+per <= rows; i++ {
		h := m.hits[i]
		mark := "  "
		if i == m.sel {
			mark = "› "
		}
		where := ""
		if m.all {
			where = h.project + ": "
		}
		top := m.fit(fmt.Sprintf("%s%d %s%s  %.3f (v %s · l %s)", mark, h.place, where, citation(h.Origin), h.Score, score(h.VectorScore), score(h.LexicalScore)))
		if i == m.sel {
			top = m.st.selected.Render(top)
		}
		snip := m.fit("     " + api.Snippet(h.Content, m.input.Value(), 2*m.width))
		out = append(out, top, m.markWords(snip))
	}
	return out
}

// markWords styles the query's words in a snippet line (nothing under
// NO_COLOR).
func (m Model) markWords(line string) string {
	if m.st.noColor {
		return line
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(m.input.Value()), notWord) {
		if len([]rune(w)) > 2 {
			words[w] = true
		}
	}
	var b strings.Builder
	for i, w := range strings.Split(line, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		if words[strings.ToLower(strings.TrimFunc(w, notWord))] {
			b.WriteString(m.st.mark.Render(w))
		} else {
			b.WriteString(w)
		}
	}
	return b.String()
}

func notWord(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' }

// previewLines is the passage of the selected hit: the whole section with
// its neighbours' headings, or the message with those around it.
func (m Model) previewLines(rows int) []string {
	if m.explaining {
		return m.explainLines(rows)
	}
	p := m.preview
	if p == nil {
		return []string{m.st.dim.Render("  loading the preview…")}
	}
	var text []string
	text = append(text, m.st.header.Render(m.fit(citation(p.Origin))))
	if p.Parent != nil && len(p.Parent.HeadingPath) > 0 {
		text = append(text, m.st.dim.Render(m.fit("  in § "+strings.Join(p.Parent.HeadingPath, " › "))))
	}
	for _, e := range p.Before {
		text = append(text, m.st.dim.Render(m.fit("  "+e.Actor+": "+oneLine(e.Text))))
	}
	var body []string
	if p.Message != nil {
		body = append(body, p.Message.Actor+":")
	}
	for _, para := range strings.Split(p.Text, "\n") {
		body = append(body, wrap(para, m.width-2)...)
	}
	for _, l := range body {
		text = append(text, "  "+l)
	}
	for _, e := range p.After {
		text = append(text, m.st.dim.Render(m.fit("  "+e.Actor+": "+oneLine(e.Text))))
	}
	if p.Previous != nil {
		text = append(text, m.st.dim.Render(m.fit("  ↑ previous § "+strings.Join(p.Previous.HeadingPath, " › "))))
	}
	if p.Next != nil {
		text = append(text, m.st.dim.Render(m.fit("  ↓ next § "+strings.Join(p.Next.HeadingPath, " › "))))
	}
	off := min(m.previewOffset, max(0, len(text)-1))
	text = text[off:]
	if len(text) > rows {
		text = text[:rows]
	}
	return text
}

// Package browse is ragd's full-screen terminal view: search as you type,
// a preview of the selected hit, its actions (open it in the editor or the
// pager, copy its citation, explain the search, vote), and the sessions
// ragd holds, read as conversations. It talks to the daemon only through the typed client
// (a Backend), and is built on Bubble Tea (the update loop), Bubbles (the
// query's text input and the conversation's viewport) and Lip Gloss
// (styles, dropped under NO_COLOR).
package browse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/terminal"
)

// Backend is what the view asks of the daemon: *client.Client is one.
type Backend interface {
	Search(ctx context.Context, project string, req api.SearchRequest) (*api.SearchResponse, error)
	SearchAllProjects(ctx context.Context, req api.SearchRequest) (*api.AllProjectsResponse, error)
	Passage(ctx context.Context, project string, q api.PassageQuery) (*api.Passage, error)
	Feedback(ctx context.Context, req api.FeedbackRequest) (*api.Vote, error)
	Projects(ctx context.Context) ([]api.ProjectInfo, error)
	Sessions(ctx context.Context, project string, q api.SessionsQuery) (*api.SessionList, error)
	Conversation(ctx context.Context, project, sessionID string) (*api.Conversation, error)
	Health(ctx context.Context) (*api.Health, error)
	Coverage(ctx context.Context, project string) (*api.Coverage, error)
}

// DefaultDebounce is how long typing pauses before a search is sent: long
// enough that a word typed at speed is one search, short enough to feel
// live.
const DefaultDebounce = 150 * time.Millisecond

// requestTimeout bounds one call to the daemon: a lost daemon is said in
// the status line, never a frozen view.
const requestTimeout = 10 * time.Second

// Options configure a Model.
type Options struct {
	// Project is the project searched when not every project is; "" starts
	// with every project.
	Project string
	// Debounce is the pause after a keystroke before the search is sent;
	// 0 means DefaultDebounce.
	Debounce time.Duration
	// NoColor renders without any style (NO_COLOR): the marks (›, !) carry
	// the meaning.
	NoColor bool
	// Width and Height are the first size, before the terminal says its own.
	Width, Height int
	// Getenv reads the environment: $VISUAL, $EDITOR and $PAGER, and $PATH,
	// $WAYLAND_DISPLAY and $DISPLAY to find a clipboard tool; nil means
	// os.Getenv.
	Getenv func(string) string
	// Terminal is where a copied citation's OSC 52 sequence is written: the
	// terminal the view is drawn on (Run sets it); nil writes none.
	Terminal io.Writer
}

type view int

const (
	viewSearch view = iota
	viewSessions
	viewConversation
	viewStatus
)

// scopes are the scope toggles, in their keys' order (alt+1, alt+2, alt+3).
var scopes = []string{ragd.ScopeDocs, ragd.ScopeADR, ragd.ScopeSession}

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

// Model is the view's state; Update and View are pure but for the commands
// they return, which call the Backend.
type Model struct {
	b    Backend
	opts Options
	st   styles

	width, height int
	view          view

	input   textinput.Model
	all     bool
	scopeOn map[string]bool
	seq     int // of the latest query edit: older answers are dropped
	query   string
	hits    []hit
	res     result
	sel     int
	status  string // the last action's outcome or error
	busy    bool

	preview       *api.Passage
	previewOpen   bool
	previewOffset int
	// explaining is true while the preview pane shows the explanation of
	// the last search (C-r); explains is what each project made of the
	// query.
	explaining bool
	explains   []projectExplain
	// exec runs a program on the terminal, released to it: tea.ExecProcess
	// (tests run it in place).
	exec func(*exec.Cmd, tea.ExecCallback) tea.Cmd

	sessions   []sessionRow
	sessionSel int
	conv       *api.Conversation
	convProj   string
	expand     bool
	// finding is true while a find in the conversation is typed; find is
	// its text, kept for n (the next match).
	finding bool
	find    string
	findAt  int // the line of the current match
	vp      viewport.Model

	health   *api.Health
	coverage []*api.Coverage
}

type sessionRow struct {
	project string
	ragd.SessionInfo
}

// Messages the commands answer with.
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
	sessionsMsg struct {
		rows []sessionRow
		err  error
	}
	conversationMsg struct {
		c       *api.Conversation
		project string
		err     error
	}
	statusMsg struct {
		h   *api.Health
		cov []*api.Coverage
		err error
	}
)

// New returns the view's model over b.
func New(b Backend, opts Options) Model {
	if opts.Debounce == 0 {
		opts.Debounce = DefaultDebounce
	}
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = "type to search"
	in.CharLimit = api.MaxQueryLength
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Focus()
	m := Model{b: b, opts: opts, st: newStyles(opts.NoColor), width: max(opts.Width, 20), height: max(opts.Height, 8),
		input: in, all: opts.Project == "", scopeOn: map[string]bool{}, vp: viewport.New(80, 20), exec: tea.ExecProcess}
	for _, s := range scopes {
		m.scopeOn[s] = true
	}
	return m
}

// Init starts on the search view, with nothing to do until a key.
func (m Model) Init() tea.Cmd { return nil }

// Update handles a message: a key, a size, or a command's answer.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 8)
		m.sizeViewport()
		return m, nil
	case debounceMsg:
		if msg.seq != m.seq {
			return m, nil // typing went on: a later tick searches
		}
		return m, m.runSearch(false)
	case searchMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.busy = false
		if msg.err != nil {
			m.status = "! search failed: " + msg.err.Error()
			return m, nil
		}
		m.hits, m.res, m.sel, m.status = msg.hits, msg.res, 0, ""
		m.preview, m.previewOffset = nil, 0
		m.explaining, m.explains = msg.explains != nil, msg.explains
		if m.explaining {
			m.previewOpen = true
			return m, nil
		}
		if m.previewOpen && len(m.hits) > 0 {
			return m, m.loadPassage()
		}
		return m, nil
	case passageMsg:
		if msg.err != nil {
			m.status = "! preview failed: " + msg.err.Error()
			return m, nil
		}
		m.preview, m.previewOffset = msg.p, 0
		return m, nil
	case voteMsg:
		if msg.err != nil {
			m.status = "! vote failed: " + msg.err.Error()
		} else {
			m.status = fmt.Sprintf("voted %s on hit %d of search %d", msg.v.Verdict, msg.v.Rank, msg.v.SearchID)
		}
		return m, nil
	case execMsg:
		name, done := msg.name, msg.done
		return m, m.exec(msg.cmd, func(err error) tea.Msg { return execDoneMsg{done: done, name: name, err: err} })
	case execDoneMsg:
		if msg.err != nil {
			m.status = fmt.Sprintf("! %s failed: %v", msg.name, msg.err)
		} else {
			m.status = msg.done
		}
		return m, nil
	case openFailedMsg:
		m.status = "! open failed: " + msg.err.Error()
		return m, nil
	case copyMsg:
		switch {
		case len(msg.ways) == 0:
			m.status = "! not copied: " + cmp.Or(msg.fault, "no terminal and no clipboard tool (wl-copy, xclip, xsel, pbcopy)")
		case msg.fault != "":
			m.status = fmt.Sprintf("copied (%s): %s · ! %s", strings.Join(msg.ways, ", "), msg.text, msg.fault)
		default:
			// What was done first: a long citation is cut at the width.
			m.status = fmt.Sprintf("copied (%s): %s", strings.Join(msg.ways, ", "), msg.text)
		}
		return m, nil
	case sessionsMsg:
		if msg.err != nil {
			m.status = "! sessions failed: " + msg.err.Error()
			return m, nil
		}
		m.sessions, m.sessionSel, m.status = msg.rows, 0, ""
		return m, nil
	case conversationMsg:
		if msg.err != nil {
			m.status = "! session failed: " + msg.err.Error()
			return m, nil
		}
		m.conv, m.convProj, m.view, m.status = msg.c, msg.project, viewConversation, ""
		m.sizeViewport()
		m.vp.SetContent(m.conversationText())
		m.vp.GotoTop()
		return m, nil
	case statusMsg:
		if msg.err != nil {
			m.status = "! status failed: " + msg.err.Error()
			return m, nil
		}
		m.health, m.coverage, m.status = msg.h, msg.cov, ""
		return m, nil
	case tea.KeyMsg:
		if msg.Type == tea.KeyCtrlC {
			return m, tea.Quit
		}
		if msg.Type == tea.KeyCtrlS && !m.finding {
			m.view = viewStatus
			return m, m.loadStatus()
		}
		switch m.view {
		case viewStatus:
			switch msg.String() {
			case "q":
				return m, tea.Quit
			case "esc", "tab":
				m.view = viewSearch
			case "r":
				return m, m.loadStatus()
			}
			return m, nil
		case viewSessions:
			return m.sessionsKey(msg)
		case viewConversation:
			return m.conversationKey(msg)
		}
		return m.searchKey(msg)
	}
	return m, nil
}

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
			var r *api.AllProjectsResponse
			var err error
			if explain {
				r, out.explains, err = searchExplainedAll(ctx, b, req)
			} else {
				r, err = b.SearchAllProjects(ctx, req)
			}
			if err != nil {
				out.err = err
				return out
			}
			out.res = allResult(r)
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

// Run runs the view full screen on the terminal until the person quits,
// and restores the terminal, after a panic too.
func Run(ctx context.Context, b Backend, opts Options) error {
	opts.NoColor = opts.NoColor || os.Getenv("NO_COLOR") != ""
	if opts.Terminal == nil {
		opts.Terminal = os.Stdout // the program's output: what it draws on
	}
	p := tea.NewProgram(New(b, opts), tea.WithAltScreen(), tea.WithContext(ctx))
	_, err := p.Run()
	if err != nil && (ctx.Err() != nil || errors.Is(err, tea.ErrInterrupted)) {
		return nil // a signal or C-c: the person's way out, not a failure
	}
	return err
}

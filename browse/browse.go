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
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
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
			return m.statusKey(msg)
		case viewSessions:
			return m.sessionsKey(msg)
		case viewConversation:
			return m.conversationKey(msg)
		}
		return m.searchKey(msg)
	}
	return m, nil
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

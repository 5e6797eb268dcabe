package browse

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
)

// The actions on the selected hit: open it in $VISUAL/$EDITOR at its
// section's line (a file) or in $PAGER (a message), copy its citation, and
// re-run the search explained.

// defaultPager reads a message when $PAGER is not set: what git and man
// use.
const defaultPager = "less"

// maxScanBytes bounds the file read to find a section's line: ten times the
// largest document ragd indexes (source.DefaultMaxFileBytes), so a file
// grown since the index is still read, and a huge one costs bounded memory
// (it then opens at its top).
const maxScanBytes = 10 << 20

// sectionProbeBytes is how much of a section's text is looked for in the
// file: enough to tell two similar sections apart, short enough that an
// edit further down the section does not lose it.
const sectionProbeBytes = 200

// clipboardTimeout bounds a local clipboard tool: xclip and wl-copy fork a
// server and return, a hung one must not hold the copy's answer.
const clipboardTimeout = 3 * time.Second

// lineEditors are the editors that take +LINE before the file (vi and its
// kin, nano, emacs, and editors that copied them); others get the path
// alone.
var lineEditors = map[string]bool{
	"vi": true, "vim": true, "nvim": true, "gvim": true, "mvim": true, "view": true, "vis": true, "elvis": true, "nvi": true,
	"nano": true, "pico": true, "emacs": true, "emacsclient": true, "mg": true, "jove": true, "zile": true,
	"micro": true, "kak": true, "joe": true, "ne": true, "jed": true,
}

// Messages the actions answer with.
type (
	// execMsg is a program to run on the terminal, released to it.
	execMsg struct {
		cmd  *exec.Cmd
		done string // the status once it ran, e.g. "opened a.md at line 3 in vim"
		name string // the program, for its failure
	}
	execDoneMsg struct {
		done, name string
		err        error
	}
	openFailedMsg struct{ err error }
	copyMsg       struct {
		text  string
		ways  []string // what was done: "OSC 52", "xclip"
		fault string   // what failed, "" when nothing did
	}
)

// projectExplain is what one project's search said of the query: the FTS5
// expression it became and the words left out.
type projectExplain struct {
	project string
	explain *api.Explain
}

func (m Model) getenv(key string) string {
	if m.opts.Getenv != nil {
		return m.opts.Getenv(key)
	}
	return os.Getenv(key)
}

// open opens the selected hit: a file in the editor at its section's line,
// a message with its neighbours in the pager.
func (m Model) open() (Model, tea.Cmd) {
	if len(m.hits) == 0 {
		m.status = "! no hit to open: type a query"
		return m, nil
	}
	h, b := m.hits[m.sel], m.b
	var have *api.Passage
	if m.preview != nil && m.preview.ChunkID == h.ChunkID {
		have = m.preview
	}
	passage := func(ctx context.Context) (*api.Passage, error) {
		if have != nil {
			return have, nil
		}
		p, err := b.Passage(ctx, h.project, api.PassageQuery{ChunkID: h.ChunkID})
		if err != nil {
			return nil, fmt.Errorf("read the passage of %s: %w", h.Origin, err)
		}
		return p, nil
	}
	if h.Origin.Kind == ragd.OriginSession {
		pager := strings.Fields(m.getenv("PAGER"))
		if len(pager) == 0 {
			pager = []string{defaultPager}
		}
		return m, func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
			defer cancel()
			p, err := passage(ctx)
			if err != nil {
				return openFailedMsg{err}
			}
			cmd := exec.Command(pager[0], pager[1:]...)
			cmd.Stdin = strings.NewReader(messageText(h.project, p))
			name := filepath.Base(pager[0])
			return execMsg{cmd: cmd, name: name, done: "read " + h.Origin.EventID + " in " + name}
		}
	}
	editor := m.getenv("VISUAL")
	if strings.TrimSpace(editor) == "" {
		editor = m.getenv("EDITOR")
	}
	if strings.TrimSpace(editor) == "" {
		m.status = "! no editor: set $VISUAL or $EDITOR to open " + h.Origin.SourcePath
		return m, nil
	}
	return m, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		path, err := m.filePath(ctx, h)
		if err != nil {
			return openFailedMsg{err}
		}
		p, err := passage(ctx)
		if err != nil {
			return openFailedMsg{err}
		}
		src, err := readPrefix(path, maxScanBytes)
		if err != nil {
			return openFailedMsg{err}
		}
		line, found := sectionLine(src, p.Text, p.Origin.HeadingPath)
		args, name := editorArgs(editor, line, path)
		done := fmt.Sprintf("opened %s at line %d in %s", h.Origin.SourcePath, line, name)
		if !found {
			done = fmt.Sprintf("opened %s in %s: ! its section is not in the file as it is now", h.Origin.SourcePath, name)
		}
		return execMsg{cmd: exec.Command(args[0], args[1:]...), name: name, done: done}
	}
}

// filePath is the absolute path of h's file: its project's work tree and
// the file's path in the repository.
func (m Model) filePath(ctx context.Context, h hit) (string, error) {
	ps, err := m.b.Projects(ctx)
	if err != nil {
		return "", fmt.Errorf("find the path of project %s: %w", h.project, err)
	}
	root := ""
	for _, p := range ps {
		if p.ID == h.project {
			root = p.Path
		}
	}
	if root == "" {
		return "", fmt.Errorf("project %s is not registered: its files cannot be found", h.project)
	}
	rel := filepath.FromSlash(h.Origin.SourcePath)
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%q is not a path inside project %s", h.Origin.SourcePath, h.project)
	}
	path := filepath.Join(root, rel)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("%s is not in the work tree of %s: %w", h.Origin.SourcePath, h.project, err)
	}
	return path, nil
}

// readPrefix reads at most limit bytes of the file at path.
func readPrefix(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// editorArgs is the command line that opens path in editor (a command with
// its arguments, as $EDITOR holds one) at line: +LINE for the editors that
// take it, the path alone for the others. name is the editor's file name.
func editorArgs(editor string, line int, path string) (args []string, name string) {
	args = strings.Fields(editor)
	name = strings.TrimSuffix(filepath.Base(args[0]), ".exe")
	if lineEditors[name] && line > 0 {
		args = append(args, fmt.Sprintf("+%d", line))
	}
	return append(args, path), name
}

// sectionLine is the 1-based line of src, a file's text as it is now, that
// the section starts on: its heading's line, or where its text starts. The
// section is looked for by the start of its text (text, the passage: the
// stored chunks are spans of the file at its indexed commit), then by its
// first line, then by its headings in order (heading, the heading path).
// found is false when none is in src: line is then 1.
func sectionLine(src []byte, text string, heading []string) (line int, found bool) {
	text = strings.TrimSpace(text)
	start := -1
	if text != "" {
		probe := text[:min(len(text), sectionProbeBytes)]
		for !utf8.ValidString(probe) && len(probe) > 0 { // cut inside a rune
			probe = probe[:len(probe)-1]
		}
		start = bytes.Index(src, []byte(probe))
		if first, _, _ := strings.Cut(text, "\n"); start < 0 && strings.TrimSpace(first) != "" {
			start = bytes.Index(src, []byte(first))
		}
	}
	if start >= 0 && len(heading) > 0 {
		// The section's text may open with the headings above it (a
		// title with no text of its own): its own heading is in it.
		end := min(len(src), start+len(text)+1)
		if at := headingAt(src[:end], start, heading[len(heading)-1:]); at >= 0 {
			start = at
		}
	}
	if start < 0 && len(heading) > 0 {
		start = headingAt(src, 0, heading)
	}
	if start < 0 {
		return 1, false
	}
	return 1 + bytes.Count(src[:start], []byte("\n")), true
}

// headingAt is the offset of the line of the last of headings in src, each
// found at or after from in order, or -1.
func headingAt(src []byte, from int, headings []string) int {
	at := -1
	for _, h := range headings {
		next := -1
		for i := from; i < len(src); {
			end := bytes.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			if headingText(src[i:i+end]) == h {
				next = i
				break
			}
			i += end + 1
		}
		if next < 0 {
			return -1
		}
		at, from = next, next+1
	}
	return at
}

// headingText is a line's text without a heading's marks: markdown's #,
// AsciiDoc's =, around spaces. A setext or reStructuredText title is its
// line as it is.
func headingText(line []byte) string {
	s := strings.TrimSpace(string(line))
	s = strings.TrimLeft(s, "#=")
	s = strings.TrimRight(s, "#=")
	return strings.TrimSpace(s)
}

// messageText is what the pager shows of a message: its citation, the
// messages before it, itself marked, and those after.
func messageText(project string, p *api.Passage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s\n", project, p.Origin)
	if p.Origin.Title != "" {
		fmt.Fprintf(&b, "%s\n", p.Origin.Title)
	}
	write := func(e ragd.Event, mark string) {
		fmt.Fprintf(&b, "\n── %s · %s%s\n%s\n", e.Actor, e.Time.Local().Format("2006-01-02 15:04:05"), mark, e.Text)
	}
	for _, e := range p.Before {
		write(e, "")
	}
	if p.Message != nil {
		write(*p.Message, " · the cited message")
	} else {
		fmt.Fprintf(&b, "\n%s\n", p.Text)
	}
	for _, e := range p.After {
		write(e, "")
	}
	return b.String()
}

// copyCitation copies the selected hit's citation: an OSC 52 sequence to
// the terminal (which works over ssh, and in tmux with set-clipboard), and
// a local clipboard tool when one is here.
func (m Model) copyCitation() (Model, tea.Cmd) {
	if len(m.hits) == 0 {
		m.status = "! no hit to copy: type a query"
		return m, nil
	}
	text := m.hits[m.sel].Origin.String()
	term, tool := m.opts.Terminal, m.clipboardTool()
	return m, func() tea.Msg {
		out := copyMsg{text: text}
		var faults []string
		if term != nil {
			if _, err := io.WriteString(term, osc52(text)); err != nil {
				faults = append(faults, "OSC 52: "+err.Error())
			} else {
				out.ways = append(out.ways, "OSC 52")
			}
		}
		if tool != nil {
			name := filepath.Base(tool[0])
			if err := runClipboard(tool, text); err != nil {
				faults = append(faults, name+": "+err.Error())
			} else {
				out.ways = append(out.ways, name)
			}
		}
		out.fault = strings.Join(faults, "; ")
		return out
	}
}

// runClipboard runs a clipboard tool with text on its input. Its error
// output goes to a file, not a pipe: xclip forks a child that serves the
// clipboard and keeps the descriptors it was given, and a pipe would hold
// the copy until that child ends.
func runClipboard(tool []string, text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), clipboardTimeout)
	defer cancel()
	errs, err := os.CreateTemp("", "ragd-clipboard-*")
	if err != nil {
		return fmt.Errorf("keep its errors: %w", err)
	}
	defer os.Remove(errs.Name())
	defer errs.Close()
	cmd := exec.CommandContext(ctx, tool[0], tool[1:]...)
	cmd.Stdin, cmd.Stderr = strings.NewReader(text), errs
	if err := cmd.Run(); err != nil {
		msg, _ := os.ReadFile(errs.Name())
		if m := strings.TrimSpace(string(msg)); m != "" {
			return fmt.Errorf("%w: %s", err, oneLine(m))
		}
		return err
	}
	return nil
}

// osc52 is the sequence that asks the terminal to put text on the
// clipboard.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
}

// clipboardTool is the command line of the first clipboard tool on $PATH
// that can reach a clipboard here: wl-copy under Wayland, xclip or xsel
// under X, pbcopy (macOS); nil when there is none.
func (m Model) clipboardTool() []string {
	wayland, x := m.getenv("WAYLAND_DISPLAY") != "", m.getenv("DISPLAY") != ""
	for _, t := range []struct {
		usable bool
		args   []string
	}{
		{wayland, []string{"wl-copy"}},
		{x, []string{"xclip", "-selection", "clipboard"}},
		{x, []string{"xsel", "--clipboard", "--input"}},
		{true, []string{"pbcopy"}},
	} {
		if !t.usable {
			continue
		}
		if path := m.lookPath(t.args[0]); path != "" {
			return append([]string{path}, t.args[1:]...)
		}
	}
	return nil
}

// lookPath is the executable file name in a folder of $PATH, or "".
func (m Model) lookPath(name string) string {
	for _, dir := range filepath.SplitList(m.getenv("PATH")) {
		if dir == "" {
			continue
		}
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return path
		}
	}
	return ""
}

// explainSearch re-runs the query with Explain set: the preview pane then
// shows why each hit was found.
func (m Model) explainSearch() (Model, tea.Cmd) {
	if strings.TrimSpace(m.input.Value()) == "" {
		m.status = "! nothing to explain: type a query"
		return m, nil
	}
	m.seq++
	m.busy = true
	return m, m.runSearch(true)
}

// searchExplainedAll searches every project with req (Explain set), each
// on its own statistics, and merges their lists by rank as
// SearchAllProjects does, keeping what each project said of the query,
// which the merged answer leaves out.
func searchExplainedAll(ctx context.Context, b Backend, req api.SearchRequest) (*api.AllProjectsResponse, []projectExplain, error) {
	ps, err := b.Projects(ctx)
	if err != nil {
		return nil, nil, err
	}
	out := &api.AllProjectsResponse{Fusion: api.FusionRRF, RRFK: client.AllProjectsRRFK}
	var responses []*api.SearchResponse
	var explains []projectExplain
	var errs []error
	limit := 0
	for _, p := range ps {
		r, err := b.Search(ctx, p.ID, req)
		if err != nil {
			errs = append(errs, err)
			out.Projects = append(out.Projects, api.ProjectSearch{Project: p.ID, Error: err.Error()})
			continue
		}
		responses = append(responses, r)
		explains = append(explains, projectExplain{project: p.ID, explain: r.Explain})
		out.Projects = append(out.Projects, api.ProjectSearch{Project: p.ID, SearchID: r.SearchID, Hits: len(r.Hits),
			Degraded: r.Degraded, Reason: r.Reason, VectorCoverage: r.VectorCoverage, Stale: r.Stale, VectorAvailable: r.VectorAvailable})
		limit = max(limit, len(r.Hits))
	}
	if len(errs) > 0 && len(responses) == 0 {
		return nil, nil, fmt.Errorf("search every project: %w", errors.Join(errs...))
	}
	out.Hits = client.MergeProjects(responses, client.AllProjectsRRFK, limit)
	return out, explains, nil
}

// explainLines is the explanation the preview pane shows after C-r: what
// each project made of the query, then each hit's signals and rule.
func (m Model) explainLines(rows int) []string {
	var text []string
	for _, pe := range m.explains {
		e := pe.explain
		if e == nil {
			continue
		}
		where := ""
		if m.all {
			where = pe.project + ": "
		}
		match := e.Match
		if match == "" {
			match = "no searchable word"
		}
		dropped := "none"
		if len(e.Dropped) > 0 {
			dropped = strings.Join(e.Dropped, " ")
		}
		text = append(text, m.st.header.Render(m.fit(fmt.Sprintf("%smatch %s · dropped %s", where, match, dropped))))
	}
	selAt := 0
	for i, h := range m.hits {
		mark := "  "
		if i == m.sel {
			mark, selAt = "› ", len(text)
		}
		text = append(text, m.fit(fmt.Sprintf("%s%d %s", mark, h.place, citation(h.Origin))))
		e := h.Explain
		if e == nil {
			text = append(text, m.st.dim.Render(m.fit("    no explanation")))
			continue
		}
		line := fmt.Sprintf("    vector %s (distance %s) · lexical %s (score %s)", rank(e.VectorRank), score(e.Distance), rank(e.LexicalRank), score(e.Lexical))
		text = append(text, m.st.dim.Render(m.fit(line)))
		if e.Rule != "" {
			text = append(text, m.st.dim.Render(m.fit("    read as "+h.Scope+" by the rule: "+e.Rule)))
		}
	}
	// The selected hit's lines stay in view; pgup and pgdn scroll.
	off := m.previewOffset
	if selAt+3 > off+rows {
		off = selAt + 3 - rows
	}
	off = max(0, min(off, selAt, len(text)-1))
	text = text[off:]
	if len(text) > rows {
		text = text[:rows]
	}
	return text
}

// rank is a 1-based rank in a candidate list, "—" when not in it.
func rank(r *int) string {
	if r == nil {
		return "—"
	}
	return fmt.Sprintf("#%d", *r)
}

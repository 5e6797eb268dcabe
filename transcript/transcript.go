// Package transcript reads the session transcripts that coding agents and
// editors keep on disk (Claude Code, Codex CLI, Gemini CLI, Aider, Copilot
// CLI and Chat, Cursor, OpenCode, Crush, Cline, Continue, Amp, Qwen Code,
// Droid: see [Formats]) and turns them into ragd session events. It reads
// files, io.Readers and the tools' own SQLite databases (from a copy, see
// [ReadFile]); it knows nothing of ragd's database: the importer and the
// follower decide what to store.
//
// # Formats
//
// Each format is a [Descriptor] in one file of this package (claude.go,
// codex.go, …), listed in registry (format.go): its name, where the tool
// keeps its files, how to recognise them, whether they are per user or
// per repository, appended or rewritten, and its reader.
//
// # The mapping
//
// A person's typed prompt becomes a [ragd.TypeChatMessage] event (actor
// person) and the assistant's visible text a [ragd.TypeAgentResponse] event
// (actor agent): only those two are indexed. Everything else the tools
// record is kept as an event of its own type, stored but never a chunk:
// tool calls and results, thinking, titles and summaries, compaction, system
// and meta injections (command caveats, slash commands and their output,
// hook output), subagent conversations, attachments. Records that carry
// nothing of the conversation (file snapshots, token counts, permission
// modes, ...) are skipped and counted by reason.
//
// # Identity
//
// A session's id is "<format>:<the tool's session id>" (for example
// "claude-code:fe869ecb-…"), so that sessions of different tools never
// collide and a citation says where it came from. An event's id is
// "<format>:<the tool's session id>/<the source's own id>", with "/<part>"
// appended when one source record yields several events (the blocks of a
// Claude Code message, the tool calls of a Gemini message): tools copy
// records, ids and all, into the sessions they resume or fork, and each
// copy is kept, in its own session. Where the source has no id (Codex
// records, Aider blocks) the id is derived from the session, the byte
// offset at which the record starts and a short hash of its bytes as
// written (before redaction): "codex:<session>@<offset>.<hash>". Transcripts are append-only, so these
// ids are the same on every re-import, and a follower that resumes at a
// [Checkpoint] produces the ids an import from scratch would.
//
// # Secrets
//
// Every text is passed through [Redact] before it leaves the reader, and
// so is the text a [Checkpoint] holds (Claude Code summaries waiting for
// the record they name): values
// that look like keys, tokens and passwords become "[REDACTED:kind]", and
// [Stats.Redactions] counts them by kind. An event's payload holds a few
// redacted facts about its source record (record type, tool name, call id);
// the source record itself, unredacted, is kept as the payload only when
// [Options.KeepRaw] is set.
package transcript

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// Format names a transcript format, as the command line spells it.
type Format string

// The formats this package reads.
const (
	ClaudeCode Format = "claude-code"
	Codex      Format = "codex"
	Gemini     Format = "gemini"
	Aider      Format = "aider"
)

// Event types of the mechanism events the readers produce. None of them is
// indexed; see [ragd.Indexed].
const (
	// TypeToolCall is a tool the agent called: Text is the tool's name and
	// its (redacted, shortened) input.
	TypeToolCall = "tool.call"
	// TypeToolResult is what a tool returned: Text is its (redacted,
	// shortened) output.
	TypeToolResult = "tool.result"
	// TypeThinking is the agent's thinking or reasoning summary.
	TypeThinking = "agent.thinking"
	// TypeTitle carries a session title the tool gave (a rename, a generated
	// title, a summary of the session's last leaf); its Title is set.
	TypeTitle = "session.title"
	// TypeCompacted marks a compaction: Text is the summary the tool
	// continued from.
	TypeCompacted = "session.compacted"
	// TypeCommand is a slash command the person typed ("/model", "/add x").
	TypeCommand = "user.command"
	// TypeAttachment is an image or document the person attached; only its
	// kind is kept.
	TypeAttachment = "user.attachment"
	// TypeSystemNote is text the tool injected or printed: command caveats,
	// command output, hook output, environment context, info and errors.
	TypeSystemNote = "system.note"
	// TypeSubagentMessage is a prompt the agent gave a subagent (a Claude
	// Code sidechain, a Gemini subagent conversation).
	TypeSubagentMessage = "subagent.message"
	// TypeSubagentResponse is a subagent's visible answer.
	TypeSubagentResponse = "subagent.response"
)

// Actors of mechanism events, beside ragd.ActorPerson and ragd.ActorAgent.
const (
	ActorTool     = "tool"
	ActorSystem   = "system"
	ActorSubagent = "subagent"
)

// Limits. Each one bounds the memory a single bad or huge record can cost.
const (
	// MaxLineBytes is the longest transcript line read; a longer one is
	// skipped as malformed. Claude Code lines carrying pasted images run to
	// a few MiB.
	MaxLineBytes = 32 << 20
	// MaxDocumentBytes is the largest Gemini session document read.
	MaxDocumentBytes = 256 << 20
	// MaxMechanismText is the most text a mechanism event keeps (tool
	// output can be whole files).
	MaxMechanismText = 4 << 10
	// MaxMessageText is the most text one message keeps: a message longer
	// than a book is a pasted file or log, and chunked whole it cost
	// gigabytes (one 197 MB Gemini message: 3 GB of memory, 240k chunks).
	// The rest is cut, the text ends saying how much, and Stats.Skipped
	// counts the messages cut.
	MaxMessageText = 1 << 20
	// messageCutMargin is kept beyond MaxMessageText until the text is
	// redacted, so that a secret across the cut is seen whole.
	messageCutMargin = 64 << 10
	// MaxLineErrors is how many malformed lines Stats keeps; Stats.Malformed
	// counts them all.
	MaxLineErrors = 1000
	// maxPendingSummaries bounds the Claude Code summaries held while
	// waiting for the record they name.
	maxPendingSummaries = 1024
	// maxSkipReasons bounds the distinct reasons in Stats.Skipped (reasons
	// name unknown record types, which a garbage file has without end).
	maxSkipReasons = 100
)

// Options tune a read. The zero value is the default.
type Options struct {
	// KeepRaw keeps each event's source record, verbatim and unredacted,
	// as its payload. Optional; off by default, since transcripts hold
	// pasted secrets and whole files.
	KeepRaw bool
	// Location is the zone of times written without one (Aider's session
	// headers). Optional; nil means time.Local.
	Location *time.Location
	// FileTime is the time the file was last written: the time of records
	// that carry none (Cursor's agent transcripts, Continue's sessions).
	// Optional; zero gives them the latest time seen, or the Unix epoch.
	FileTime time.Time
	// Resume continues a read where an earlier one stopped: the caller
	// positions r at Resume.Offset and passes the Checkpoint that read
	// returned. Optional; nil reads from the start.
	Resume *Checkpoint
}

// Session is what a reader knows of a session. Fields fill in as records
// arrive; the one handed with an event is current up to that event.
type Session struct {
	// ID is "<format>:<the tool's session id>".
	ID     string `json:"id"`
	Format Format `json:"format"`
	// ToolID is the tool's own session id.
	ToolID string `json:"toolId"`
	// Cwd is the directory the session ran in, the first one it reports;
	// "" when the transcript does not say (Gemini).
	Cwd string `json:"cwd,omitempty"`
	// GitBranch is the branch last reported, "" when unknown.
	GitBranch string `json:"gitBranch,omitempty"`
	// ProjectHash is Gemini's hash of the project root, "" elsewhere; see
	// [GeminiProjectHash].
	ProjectHash string `json:"projectHash,omitempty"`
	// Slug is the tool's name for the folder the session ran in, when the
	// transcript says no more (Cursor: the path with its separators as
	// dashes), "" elsewhere; see [MatchProject].
	Slug string `json:"slug,omitempty"`
	// Title is the latest title the tool gave, "" when none yet.
	Title string `json:"title,omitempty"`
	// Subagent is set for a session that is a subagent's conversation
	// (Gemini's kind "subagent"): its conversation is not indexed.
	Subagent bool `json:"subagent,omitempty"`
	// TitleDue is set while Title, given by the session's own record (a
	// database row, a session_start line), has not yet been handed on as
	// a session.title event: the session's next event is preceded by one.
	TitleDue bool `json:"titleDue,omitempty"`
}

// Checkpoint is where a read stopped, for resuming an append-only
// transcript: serialise it, and pass it back in Options.Resume with the
// file positioned at Offset.
type Checkpoint struct {
	// Offset is the byte offset just after the last record read in full.
	Offset int64 `json:"offset"`
	// Line is the number of lines before Offset.
	Line int `json:"line"`
	// Session is the session being read at Offset, if any.
	Session *Session `json:"session,omitempty"`
	// LastTime is the latest record time seen, for records without one.
	LastTime time.Time `json:"lastTime,omitzero"`
	// Summaries are the Claude Code summaries read but not yet matched
	// with the record they name, by that record's uuid.
	Summaries map[string]string `json:"summaries,omitempty"`
	// TitleRank is the rank of the last title given (Claude Code: summary,
	// generated title, rename), so that a lesser one read later does not
	// replace it.
	TitleRank int `json:"titleRank,omitempty"`
}

// LineError is a malformed line of a transcript file, left out.
type LineError struct {
	File string `json:"file"`
	ragd.LineError
}

func (e LineError) Error() string { return e.File + ":" + e.LineError.Error() }

// Stats reports what a read saw. Stats of several files add with Add.
type Stats struct {
	Files    int `json:"files"`
	Lines    int `json:"lines"`
	Records  int `json:"records"`
	Sessions int `json:"sessions"`
	// Messages counts the conversation events produced (chat.message and
	// agent.response): what will be indexed.
	Messages int `json:"messages"`
	// Mechanism counts the other events produced: stored, not indexed.
	Mechanism int `json:"mechanism"`
	// Skipped counts records and parts left out on purpose, by reason.
	Skipped map[string]int `json:"skipped,omitempty"`
	// Malformed counts lines that could not be read; Errors holds the first
	// MaxLineErrors of them.
	Malformed int         `json:"malformed"`
	Errors    []LineError `json:"errors,omitempty"`
	// Incomplete is set when the last line had no line ending and was not
	// yet a whole record: a transcript being written. It is not consumed;
	// the checkpoint stops before it.
	Incomplete bool `json:"incomplete,omitempty"`
	// Redactions counts the secrets redacted, by kind.
	Redactions map[string]int `json:"redactions,omitempty"`
	// Checkpoint is where the read stopped.
	Checkpoint Checkpoint `json:"checkpoint"`
}

// Add adds the counts of o to st (Checkpoint and Incomplete stay st's).
func (st *Stats) Add(o Stats) {
	st.Files += o.Files
	st.Lines += o.Lines
	st.Records += o.Records
	st.Sessions += o.Sessions
	st.Messages += o.Messages
	st.Mechanism += o.Mechanism
	st.Malformed += o.Malformed
	for _, e := range o.Errors {
		if len(st.Errors) >= MaxLineErrors {
			break
		}
		st.Errors = append(st.Errors, e)
	}
	st.Skipped = addCounts(st.Skipped, o.Skipped)
	st.Redactions = addCounts(st.Redactions, o.Redactions)
}

func addCounts(dst, src map[string]int) map[string]int {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]int, len(src))
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

// SkippedReasons returns the reasons in Skipped, sorted, for reports.
func (st *Stats) SkippedReasons() []string { return slices.Sorted(maps.Keys(st.Skipped)) }

// Func receives each event a reader produces, with its session as known at
// that point. An error stops the read and is returned wrapped.
type Func func(s *Session, e ragd.Event) error

// Read reads one transcript of format f from r and calls fn with each
// event, in order. name is the file's path: it names errors, gives Claude
// Code and Codex a session id when records lack one, tells Gemini's .json
// documents from its .jsonl logs, and is the repository of an Aider
// history. Malformed lines and unknown records are counted in Stats and
// skipped; Read returns an error only when r fails, fn fails, or f is not
// a Format.
func Read(f Format, r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	d, err := Lookup(f)
	if err != nil {
		return Stats{}, err
	}
	if d.Read == nil || d.IsDatabase(name) {
		return Stats{}, fmt.Errorf("%w: %s is a %s database: read it with ReadFile", ragd.ErrInvalid, name, f)
	}
	st, err := d.Read(r, name, opt, fn)
	st.Files = 1
	return st, err
}

// ReadFile reads the transcript of format f at path: a database source
// (see [Descriptor.ReadFile]) by itself, without writing to it; a stream
// opened, positioned at opt.Resume's offset and read with [Read].
func ReadFile(ctx context.Context, f Format, path string, opt Options, fn Func) (Stats, error) {
	d, err := Lookup(f)
	if err != nil {
		return Stats{}, err
	}
	if d.IsDatabase(path) {
		st, err := d.ReadFile(ctx, path, opt, fn)
		st.Files = 1
		return st, err
	}
	fh, err := os.Open(path)
	if err != nil {
		return Stats{}, fmt.Errorf("transcript %s: %w", path, err)
	}
	defer fh.Close()
	if opt.Resume != nil && opt.Resume.Offset > 0 {
		if _, err := fh.Seek(opt.Resume.Offset, io.SeekStart); err != nil {
			return Stats{}, fmt.Errorf("transcript %s: seek to %d: %w", path, opt.Resume.Offset, err)
		}
	}
	return Read(f, fh, path, opt, fn)
}

// reader holds what every format's reader shares: the stats, the options,
// the callback and the session being read.
type reader struct {
	format Format
	name   string
	opt    Options
	fn     Func
	st     Stats
	sess   *Session
	// sessions are the ids already counted in Stats.Sessions.
	sessions map[string]bool
	lastTime time.Time
	// line and raw are the source record being read, for errors and
	// Options.KeepRaw.
	line int
	raw  []byte
	// keep adds a format's own state to each checkpoint.
	keep func(*Checkpoint)
	// scoped names events by their session as well as by the source's own
	// id ("<format>:<session>/<id>"): tools copy records, ids included,
	// into the sessions they resume or fork, and the copy is an event of
	// its own session.
	scoped bool
	// held is set while a record spanning lines is pending (an Aider
	// block): the checkpoint stays at its start, heldOff and heldLine.
	held     bool
	heldOff  int64
	heldLine int
	// titleAt is the time of each due title (see Session.TitleDue), by
	// session id; none means the time of the event it precedes.
	titleAt map[string]time.Time
}

// hold keeps the checkpoint at off (after line lines) until release.
func (rd *reader) hold(off int64, line int) {
	rd.held, rd.heldOff, rd.heldLine = true, off, line
}

func (rd *reader) release() { rd.held = false }

func newReader(f Format, name string, opt Options, fn Func) *reader {
	rd := &reader{format: f, name: name, opt: opt, fn: fn, sessions: map[string]bool{}}
	if c := opt.Resume; c != nil {
		rd.st.Checkpoint = *c
		rd.line = c.Line
		rd.lastTime = c.LastTime
		if c.Session != nil {
			s := *c.Session
			rd.sess = &s
		}
	}
	return rd
}

// setSession makes s's id the session being read, counting it once.
func (rd *reader) setSession(toolID string) *Session {
	id := string(rd.format) + ":" + toolID
	if rd.sess == nil || rd.sess.ID != id {
		rd.sess = &Session{ID: id, Format: rd.format, ToolID: toolID}
	}
	if !rd.sessions[id] {
		rd.sessions[id] = true
		rd.st.Sessions++
	}
	return rd.sess
}

// placeholderTitle reports whether title is one a tool gives every new
// session before it has one (Crush's and Droid's "New Session",
// OpenCode's "New session - <time>" and "Child session - <time>"): no
// title at all, as far as a reader of the list is concerned.
func placeholderTitle(title string) bool {
	t := strings.TrimSpace(title)
	if strings.EqualFold(t, "New Session") {
		return true
	}
	for _, prefix := range []string{"New session - ", "Child session - "} {
		if rest, ok := strings.CutPrefix(t, prefix); ok {
			if _, ok := parseTime(rest); ok {
				return true
			}
		}
	}
	return false
}

// giveTitle sets s's title from the session's own record and has it
// handed on, as a session.title event at time at (zero: the time of the
// event it precedes), before the session's next event: the store takes a
// session's title from its events. A blank or placeholder title is none.
// at must be the same on every read of the source, as the event's id is.
func (rd *reader) giveTitle(s *Session, title string, at time.Time) {
	if isBlank(title) || placeholderTitle(title) {
		return
	}
	title = rd.redact(title)
	if s.Title == title && !s.TitleDue {
		return
	}
	s.Title, s.TitleDue = title, true
	if rd.titleAt == nil {
		rd.titleAt = map[string]time.Time{}
	}
	rd.titleAt[s.ID] = at
}

// emitDueTitle hands on the due title of the session being read (see
// giveTitle), before an event of time t.
func (rd *reader) emitDueTitle(t time.Time) error {
	s := rd.sess
	s.TitleDue = false
	at := rd.titleAt[s.ID]
	if at.IsZero() {
		at = t
	}
	raw := rd.raw
	rd.raw = nil
	defer func() { rd.raw = raw }()
	return rd.emit("title/"+shortHash(s.Title), TypeTitle, ActorSystem, s.Title, at, s.Title, meta{Record: "title"})
}

func (rd *reader) skip(reason string) {
	if rd.st.Skipped == nil {
		rd.st.Skipped = map[string]int{}
	}
	if _, ok := rd.st.Skipped[reason]; !ok && len(rd.st.Skipped) >= maxSkipReasons {
		reason = "other reasons"
	}
	rd.st.Skipped[reason]++
}

func (rd *reader) bad(line int, reason string) {
	rd.st.Malformed++
	if len(rd.st.Errors) < MaxLineErrors {
		rd.st.Errors = append(rd.st.Errors, LineError{File: rd.name, LineError: ragd.LineError{Line: line, Reason: reason}})
	}
}

func (rd *reader) redact(s string) string {
	if rd.st.Redactions == nil {
		rd.st.Redactions = map[string]int{}
	}
	return Redact(s, rd.st.Redactions)
}

// meta is the default payload of an event: a few facts about its source
// record, redacted.
type meta struct {
	Record string `json:"record,omitempty"`
	Block  string `json:"block,omitempty"`
	Name   string `json:"name,omitempty"`
	CallID string `json:"callId,omitempty"`
	Error  bool   `json:"error,omitempty"`
}

// emit hands one event to fn. text is redacted here; mechanism text is
// shortened to MaxMechanismText. An empty conversation text is skipped.
func (rd *reader) emit(id, typ, actor, text string, t time.Time, title string, m meta) error {
	if rd.sess == nil {
		rd.skip("record before any session")
		return nil
	}
	cut := 0
	if ragd.Indexed(typ) && len(text) > MaxMessageText+messageCutMargin {
		cut = len(text) - (MaxMessageText + messageCutMargin)
		text = text[:runeStart(text, MaxMessageText+messageCutMargin)]
	}
	text = rd.redact(text)
	if ragd.Indexed(typ) && len(text) > MaxMessageText {
		at := runeStart(text, MaxMessageText)
		cut += len(text) - at
		text = text[:at]
	}
	if cut > 0 {
		text += "\n[… cut by ragd: " + itoa(cut) + " more bytes of this message]"
		rd.skip("message text beyond " + itoa(MaxMessageText) + " bytes (cut)")
	}
	if ragd.Indexed(typ) && isBlank(text) {
		rd.skip("empty " + typ)
		return nil
	}
	if !ragd.Indexed(typ) {
		text = shorten(text, MaxMechanismText)
	}
	if rd.sess.TitleDue && title == "" {
		if err := rd.emitDueTitle(t); err != nil {
			return err
		}
	}
	if title != "" {
		title = rd.redact(title)
		rd.sess.Title, rd.sess.TitleDue = title, false
	}
	if rd.scoped {
		id = rd.sess.ToolID + "/" + id
	}
	e := ragd.Event{
		ID:        string(rd.format) + ":" + id,
		SessionID: rd.sess.ID,
		Type:      typ,
		Actor:     actor,
		Text:      text,
		Time:      t,
		Title:     title,
	}
	if rd.opt.KeepRaw && json.Valid(rd.raw) {
		e.Payload = json.RawMessage(bytes.Clone(rd.raw))
	} else if m != (meta{}) {
		m.Name = rd.redact(m.Name)
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("transcript: payload of %s: %w", e.ID, err)
		}
		e.Payload = b
	}
	if p := e.Problem(); p != "" {
		rd.bad(rd.line, "event "+e.ID+": "+p)
		return nil
	}
	if ragd.Indexed(typ) {
		rd.st.Messages++
	} else {
		rd.st.Mechanism++
	}
	if rd.fn == nil {
		return nil
	}
	if err := rd.fn(rd.sess, e); err != nil {
		return fmt.Errorf("transcript: %s line %d: event %s: %w", rd.name, rd.line, e.ID, err)
	}
	return nil
}

// checkpoint records that everything before offset (line lines) is read.
func (rd *reader) checkpoint(offset int64, line int) {
	c := Checkpoint{Offset: offset, Line: line, LastTime: rd.lastTime}
	if rd.sess != nil {
		s := *rd.sess
		c.Session = &s
	}
	if rd.keep != nil {
		rd.keep(&c)
	}
	rd.redactCheckpoint(&c)
	rd.st.Checkpoint = c
}

// redactCheckpoint redacts the text a checkpoint carries (the importer
// stores it): the session's names and the summaries held for records
// not yet read, which are other sessions' text.
func (rd *reader) redactCheckpoint(c *Checkpoint) {
	if s := c.Session; s != nil {
		s.Title = rd.redact(s.Title)
		s.Cwd = rd.redact(s.Cwd)
		s.GitBranch = rd.redact(s.GitBranch)
	}
	for k, v := range c.Summaries {
		c.Summaries[k] = rd.redact(v)
	}
}

// seen notes t as a record time, so records without one can borrow it.
func (rd *reader) seen(t time.Time) {
	if t.After(rd.lastTime) {
		rd.lastTime = t
	}
}

// lines reads r line by line from the resume offset, calling fn with each
// line (without its ending), its 1-based number and the offset it starts
// at. A last line without a line ending is handed to fn with final set;
// fn reports whether it was a whole record. The checkpoint moves past each
// line fn has handled, and stops before an unterminated last line, so that
// a follower rereads it once it is complete (ids are stable, so a line
// read twice yields the same events).
func (rd *reader) lines(r io.Reader, fn func(line []byte, n int, off int64, final bool) (whole bool, err error)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	off, n := int64(0), 0
	if c := rd.opt.Resume; c != nil {
		off, n = c.Offset, c.Line
	}
	// The checkpoint is built once, at the end: the offset and line after
	// the last line handled, or where a held record starts.
	doneOff, doneLine := off, n
	defer func() {
		if rd.held {
			doneOff, doneLine = rd.heldOff, rd.heldLine
		}
		rd.checkpoint(doneOff, doneLine)
	}()
	var buf []byte
	for {
		line, size, tooLong, terminated, err := readLine(br, buf[:0])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("transcript: reading %s after line %d: %w", rd.name, n, err)
		}
		buf = line
		n++
		rd.st.Lines++
		rd.line = n
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		switch {
		case tooLong:
			rd.bad(n, "line too long: more than "+strconv.Itoa(MaxLineBytes)+" bytes")
		case !terminated:
			whole, err := fn(line, n, off, true)
			if err != nil {
				return err
			}
			if !whole {
				rd.st.Incomplete = true
				rd.st.Lines--
			}
			// Stop before the unterminated line either way.
			return nil
		default:
			if _, err := fn(line, n, off, false); err != nil {
				return err
			}
		}
		off += int64(size)
		doneOff, doneLine = off, n
	}
}

// readLine is ragd.ReadLine at MaxLineBytes: one line reader for every
// line-by-line file.
func readLine(br *bufio.Reader, buf []byte) (line []byte, size int, tooLong, terminated bool, err error) {
	return ragd.ReadLine(br, buf, MaxLineBytes)
}

// derivedID names a record that has no id of its own: its session, the
// offset it starts at and a hash of its bytes.
func derivedID(session string, off int64, b []byte) string {
	sum := sha256.Sum256(b)
	return session + "@" + strconv.FormatInt(off, 10) + "." + hex.EncodeToString(sum[:4])
}

// shortHash is a short hash of s, for ids of values without one.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func itoa(i int) string { return strconv.Itoa(i) }

// shorten cuts s to at most n bytes at a rune boundary, marking the cut.
// runeStart is the largest index at most n (n < len(s)) at which a rune
// of s starts.
func runeStart(s string, n int) int {
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return n
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " […]"
}

// compactJSON renders raw JSON without insignificant space, or as it is
// when it is not JSON.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// readRecords reads a JSON-lines transcript whose every line is one record
// of type T, for the readers of that shape: a blank line passes, a line
// that is not JSON is a bad line, except an unterminated last one, left for
// the next read (the tool may be writing it); each record is counted, kept
// as the raw line of the events it makes, and given to do with its line
// number and offset.
func readRecords[T any](rd *reader, r io.Reader, do func(rec *T, line []byte, n int, off int64) error) error {
	return rd.lines(r, func(line []byte, n int, off int64, final bool) (bool, error) {
		if len(bytes.TrimSpace(line)) == 0 {
			return true, nil
		}
		var rec T
		if err := json.Unmarshal(line, &rec); err != nil {
			if final {
				return false, nil
			}
			rd.bad(n, "invalid JSON: "+err.Error())
			return true, nil
		}
		rd.st.Records++
		rd.raw = line
		return true, do(&rec, line, n, off)
	})
}

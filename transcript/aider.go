package transcript

import (
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// aiderFormat reads Aider's chat history, kept in each repository
// (.aider.chat.history.md at its top), or $AIDER_CHAT_HISTORY_FILE.
var aiderFormat = Descriptor{
	Name: Aider,
	Tool: "Aider",
	Paths: func(getenv func(string) string) ([]string, error) {
		if p := getenv("AIDER_CHAT_HISTORY_FILE"); p != "" {
			return []string{p}, nil
		}
		return nil, nil
	},
	Match:     func(path string) bool { return filepath.Base(path) == AiderHistoryFile },
	Looks:     AiderHistoryFile + " at the top of each repository (give a file of another name itself)",
	RepoFiles: []string{AiderHistoryFile},
	Read:      readAider,
}

// Aider appends its chat history to .aider.chat.history.md in the
// repository, as markdown: "# aider chat started at 2006-01-02 15:04:05"
// opens each session; the person's input is written as lines starting
// "#### "; Aider's own messages (tool output, questions, errors) as lines
// starting "> "; the assistant's reply as plain text between them. Lines
// end in two spaces (markdown line breaks), which the reader drops.

const (
	aiderSessionPrefix = "# aider chat started at "
	aiderTimeLayout    = "2006-01-02 15:04:05"
	// maxAiderBlock bounds the text one block gathers; the rest of a longer
	// block is dropped, and counted.
	maxAiderBlock = MaxLineBytes
)

type aiderKind int

const (
	aiderNone aiderKind = iota
	aiderUser
	aiderTool
	aiderAssistant
)

type aiderReader struct {
	*reader
	start time.Time
	kind  aiderKind
	block strings.Builder
	// fenced is set inside a code fence of the reply being read.
	fenced bool
	// report is set inside a report of edits that failed to apply
	// ("# 1 SEARCH/REPLACE block failed to match!"), which Aider writes
	// with "> " before its first line only; reportTail after its last
	// standard line, where "# The other … were applied" may follow.
	report, reportTail bool
	// blockOff and blockLine are where the pending block starts.
	blockOff  int64
	blockLine int
}

// readAider reads an Aider chat history. name should be the file's
// absolute path: its directory is the sessions' cwd.
func readAider(r io.Reader, name string, opt Options, fn Func) (Stats, error) {
	ar := &aiderReader{reader: newReader(Aider, name, opt, fn)}
	if ar.sess != nil {
		// Resuming inside a session: its start is the latest time seen.
		ar.start = ar.lastTime
	}
	err := ar.lines(r, func(line []byte, n int, off int64, final bool) (bool, error) {
		return true, ar.readLine(string(line), n, off)
	})
	if err != nil {
		return ar.st, err
	}
	// The last block ends with the file. The checkpoint stays at its start
	// (see hold), so a follower reads it again if it grows.
	return ar.st, ar.flush()
}

func (ar *aiderReader) readLine(s string, n int, off int64) error {
	ar.st.Records++
	trimmed := strings.TrimRight(s, " \t\r")
	var kind aiderKind
	var text string
	switch {
	case strings.HasPrefix(trimmed, aiderSessionPrefix):
		if err := ar.flush(); err != nil {
			return err
		}
		ar.report, ar.reportTail = false, false
		return ar.session(strings.TrimSpace(strings.TrimPrefix(trimmed, aiderSessionPrefix)), n)
	case (ar.report || ar.reportTail) && ar.kind == aiderTool && ar.reportLine(trimmed):
		return nil
	case ar.kind == aiderAssistant && ar.fenced:
		// Inside a code fence of a reply every line is the reply's,
		// "> " and "#### " included.
		kind, text = aiderAssistant, trimmed
		if strings.HasPrefix(strings.TrimSpace(trimmed), "```") {
			ar.fenced = false
		}
	case trimmed == "####" || strings.HasPrefix(trimmed, "#### "):
		kind, text = aiderUser, strings.TrimPrefix(strings.TrimPrefix(trimmed, "####"), " ")
	case trimmed == ">" || strings.HasPrefix(trimmed, "> "):
		// Not ">>>>>>> REPLACE", which ends an edit block in a reply.
		kind, text = aiderTool, strings.TrimPrefix(strings.TrimPrefix(trimmed, ">"), " ")
	case trimmed == "":
		// A blank line ends the person's input and Aider's messages; it is
		// a paragraph break inside a reply.
		if ar.kind == aiderAssistant {
			ar.add("")
			return nil
		}
		return ar.flush()
	case ar.kind != aiderAssistant && aiderOwn(trimmed):
		kind, text = aiderTool, trimmed
	default:
		kind, text = aiderAssistant, trimmed
		if strings.HasPrefix(strings.TrimSpace(trimmed), "```") {
			ar.fenced = true
		}
	}
	if kind != ar.kind {
		if err := ar.flush(); err != nil {
			return err
		}
		ar.kind, ar.blockOff, ar.blockLine = kind, off, n-1
		ar.hold(off, n-1)
	}
	ar.add(text)
	if kind == aiderTool && aiderFailedEdits.MatchString(text) {
		ar.report = true
	}
	return nil
}

// aiderFailedEdits is the first line of Aider's report of edits that did
// not apply; the lines up to its end are Aider's, not the reply's.
var aiderFailedEdits = regexp.MustCompile(`^# \d+ SEARCH/REPLACE blocks? failed to match!`)

// reportLine adds a line of a failed-edits report to the pending block of
// Aider's output and reports whether it was one; a line after the report's
// end is not, and is read as any other.
func (ar *aiderReader) reportLine(line string) bool {
	if ar.reportTail {
		switch {
		case line == "":
			ar.add("")
			return true
		case strings.HasPrefix(line, "# The other "):
			ar.report, ar.reportTail = true, false
		default:
			ar.reportTail = false
			return false
		}
	}
	ar.add(line)
	switch {
	case strings.HasPrefix(line, "The SEARCH section must exactly match"):
		ar.report, ar.reportTail = false, true
	case strings.HasPrefix(line, "Just reply with fixed versions"):
		ar.report = false
	}
	return true
}

// aiderConfirmation matches the person's answer to one of Aider's
// questions ("Add file to the chat? (Y)es/(N)o/(A)ll… [Yes]: all"), which
// Aider writes as the person's input.
var aiderConfirmationRe = regexp.MustCompile(`\(Y\)es/\(N\)o.*\[[^\]]*\]:`)

func aiderConfirmation(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	return aiderConfirmationRe.MatchString(first)
}

// Aider writes its multi-line messages with "> " before the first line
// only; these are the continuations it writes most (a failed edit), read
// as its messages rather than as the assistant's reply.
var aiderOwnPrefixes = []string{"## SearchReplaceNoExactMatch:", "# The other ", "The SEARCH section must exactly match"}

func aiderOwn(line string) bool {
	for _, p := range aiderOwnPrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

func (ar *aiderReader) add(text string) {
	if ar.block.Len()+len(text)+1 > maxAiderBlock {
		ar.skip("aider block text beyond " + itoa(maxAiderBlock) + " bytes")
		return
	}
	if ar.block.Len() > 0 || text != "" {
		ar.block.WriteString(text)
		ar.block.WriteByte('\n')
	}
}

// session starts the session whose header holds stamp.
func (ar *aiderReader) session(stamp string, n int) error {
	loc := ar.opt.Location
	if loc == nil {
		loc = time.Local
	}
	t, err := time.ParseInLocation(aiderTimeLayout, stamp, loc)
	if err != nil {
		ar.bad(n, "session header with a bad time: "+shorten(stamp, 40))
		ar.sess, ar.start = nil, time.Time{}
		return nil
	}
	// The session is named by its start, as written: the same on every
	// import wherever the repository is, and unique within a repository
	// but for two chats started in the same second.
	s := ar.setSession(t.Format("2006-01-02T15:04:05"))
	if filepath.IsAbs(ar.name) {
		s.Cwd = filepath.Dir(ar.name)
	}
	ar.start = t
	ar.seen(t)
	return nil
}

// flush emits the pending block. Aider records no time per message, so
// each event has its session's start time; the store keeps their order.
func (ar *aiderReader) flush() error {
	kind, text := ar.kind, strings.TrimSpace(ar.block.String())
	ar.kind, ar.fenced = aiderNone, false
	ar.block.Reset()
	ar.release()
	if kind == aiderNone || text == "" {
		return nil
	}
	if ar.sess == nil {
		ar.skip("aider text before any session header")
		return nil
	}
	id := derivedID(ar.sess.ToolID, ar.blockOff, []byte(text))
	saved := ar.line
	ar.line = ar.blockLine + 1
	defer func() { ar.line = saved }()
	switch kind {
	case aiderUser:
		if aiderConfirmation(text) {
			// The person's answer to one of Aider's questions.
			return ar.emit(id, TypeSystemNote, ragd.ActorPerson, text, ar.start, "", meta{Record: "confirmation"})
		}
		if p, ok := commandPrompt(text, nil, aiderPromptCommands); ok {
			return ar.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, p, ar.start, "", meta{Record: "input", Name: strings.Fields(text)[0]})
		}
		if strings.HasPrefix(text, "/") {
			return ar.emit(id, TypeCommand, ragd.ActorPerson, text, ar.start, "", meta{Record: "input"})
		}
		return ar.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, text, ar.start, "", meta{Record: "input"})
	case aiderTool:
		return ar.emit(id, TypeSystemNote, ActorSystem, text, ar.start, "", meta{Record: "output"})
	default:
		// A reasoning model's thinking is written into the reply between
		// Aider's reasoning tags: it is the agent's thinking, not its
		// answer. The reply keeps the id of the whole block.
		for k, sub := range aiderReasoning.FindAllStringSubmatch(text, -1) {
			if sub[1] == "" {
				continue
			}
			if err := ar.emit(id+"/thinking/"+itoa(k), TypeThinking, ragd.ActorAgent, sub[1], ar.start, "", meta{Record: "reply"}); err != nil {
				return err
			}
		}
		if reply := strings.TrimSpace(aiderReasoning.ReplaceAllString(text, "")); reply != "" {
			return ar.emit(id, ragd.TypeAgentResponse, ragd.ActorAgent, reply, ar.start, "", meta{Record: "reply"})
		}
		return nil
	}
}

// aiderReasoning matches a reasoning model's thinking as Aider writes it
// into a reply (aider/reasoning_tags.py: "<thinking-content-" and a fixed
// hex suffix, a blank line, the thinking, a blank line, the closing tag);
// an unclosed tag runs to the end of the reply.
var aiderReasoning = regexp.MustCompile(`(?s)<thinking-content-[0-9a-f]+>\s*(.*?)\s*(?:</thinking-content-[0-9a-f]+>|\z)`)

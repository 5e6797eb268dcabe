package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragd/ragd"
)

// Cline is the task history of Cline and its forks, Roo Code and Kilo Code.
const Cline Format = "cline"

// clineExtensions are the VS Code extensions whose task folders Cline's
// format covers: Cline, Roo Code, Kilo Code.
var clineExtensions = []string{"saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code"}

// clineEditors are the VS Code builds whose storage holds them.
var clineEditors = []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}

// clineFormat reads the tasks of Cline, Roo Code and Kilo Code: in each
// editor's <config>/<editor>/User/globalStorage/<extension>/tasks/<task id>/
// (and the Cline CLI's ~/.cline/data/tasks), ui_messages.json, the
// conversation as the person saw it ({ts, type: ask|say, ask|say, text,
// partial}), rewritten as the task goes on; and
// api_conversation_history.json beside it, the model's copy of the same
// turns (Anthropic messages, with the environment details and reminders
// Cline injects into every request), read only where ui_messages.json is
// not (see readClineAPI): the same conversation is not read twice.
var clineFormat = Descriptor{
	Name: Cline,
	Tool: "Cline, Roo Code, Kilo Code",
	Paths: func(getenv func(string) string) ([]string, error) {
		var all []string
		for _, cfg := range configDirs(getenv) {
			for _, ed := range clineEditors {
				for _, ext := range clineExtensions {
					all = append(all, filepath.Join(cfg, ed, "User", "globalStorage", ext, "tasks"))
				}
			}
		}
		if home := getenv("HOME"); home != "" {
			all = append(all, filepath.Join(home, ".cline", "data", "tasks"))
		}
		if len(all) == 0 {
			_, err := homePath(Cline, getenv)
			return nil, err
		}
		if found := existing(all); len(found) > 0 {
			return found, nil
		}
		return all[:1], nil
	},
	Match: func(path string) bool {
		b := filepath.Base(path)
		return b == clineUIFile || b == clineAPIFile
	},
	Looks:    "ui_messages.json and api_conversation_history.json files in task folders (give a file of another name itself)",
	Rewrites: func(string) bool { return true },
	Read:     readCline,
}

// The two files of a Cline task.
const (
	clineUIFile  = "ui_messages.json"
	clineAPIFile = "api_conversation_history.json"
)

type clineMessage struct {
	Ts      int64    `json:"ts"`
	Type    string   `json:"type"`
	Ask     string   `json:"ask"`
	Say     string   `json:"say"`
	Text    string   `json:"text"`
	Images  []string `json:"images"`
	Files   []string `json:"files"`
	Partial bool     `json:"partial"`
}

// clineCwd finds the working directory in the environment details Cline
// sends with a request.
var clineCwd = regexp.MustCompile(`# Current Working Directory \(([^)\n]+)\)`)

// What each kind of Cline message is; the kinds not listed are the
// extension's bookkeeping (requests, checkpoints, resumes), skipped.
var (
	clinePrompts   = setOf("task", "user_feedback")
	clineAnswers   = setOf("text", "completion_result", "followup", "plan_mode_respond", "act_mode_respond")
	clineCalls     = setOf("tool", "command", "use_mcp_server", "browser_action", "browser_action_launch", "use_subagents", "new_task")
	clineResults   = setOf("command_output", "mcp_server_response", "browser_action_result")
	clineNotes     = setOf("error", "error_retry", "diff_error", "info", "api_req_failed", "mistake_limit_reached", "clineignore_error", "command_permission_denied", "shell_integration_warning")
	clineThinking  = setOf("reasoning")
	clineCompacted = setOf("condense", "summarize_task")
)

func readCline(r io.Reader, name string, opt Options, fn Func) (st Stats, err error) {
	if filepath.Base(name) == clineAPIFile {
		return readClineAPI(r, name, opt, fn)
	}
	rd := newReader(Cline, name, opt, fn)
	rd.scoped = true
	var msgs []clineMessage
	ok, err := rd.readDocument(r, &msgs)
	if !ok || err != nil {
		return rd.st, err
	}
	defer func() {
		rd.checkpoint(0, 0)
		st = rd.st
	}()
	s := rd.setSession(clineTask(name))
	seen := map[string]int{}
	for i, m := range msgs {
		rd.line = i + 1
		rd.st.Records++
		raw, _ := json.Marshal(m)
		rd.raw = raw
		kind := m.Say
		if m.Type == "ask" {
			kind = m.Ask
		}
		if m.Say == "api_req_started" && s.Cwd == "" {
			var req struct {
				Request string `json:"request"`
			}
			if json.Unmarshal([]byte(m.Text), &req) == nil {
				if sub := clineCwd.FindStringSubmatch(req.Request); sub != nil {
					s.Cwd = strings.TrimSpace(sub[1])
				}
			}
		}
		// A message streamed stays partial in the file once the task
		// has moved on, and Cline shows it: only the last one may still
		// be being written.
		if m.Partial && i == len(msgs)-1 {
			rd.st.Incomplete = true
			rd.skip("cline partial message")
			continue
		}
		if i == 0 && (kind == "text" || kind == "task") {
			// The first message is the task, as Cline shows it (newer
			// versions write it as a "say text").
			kind = "task"
		}
		t := msTime(m.Ts)
		if t.IsZero() {
			rd.bad(i+1, "message without a time")
			continue
		}
		rd.seen(t)
		// ts names a message; two of one millisecond are told apart by
		// their order.
		id := strconv.FormatInt(m.Ts, 10)
		if n := seen[id]; n > 0 {
			seen[id] = n + 1
			id += "." + itoa(n)
		} else {
			seen[id] = 1
		}
		mt := meta{Record: m.Type, Block: kind}
		var err error
		switch {
		case clinePrompts[kind]:
			for j := range m.Images {
				if err = rd.emit(id+"/image/"+itoa(j), TypeAttachment, ragd.ActorPerson, "image", t, "", mt); err != nil {
					return rd.st, err
				}
			}
			err = rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, m.Text, t, "", mt)
		case clineAnswers[kind]:
			text := clineAnswer(m.Text)
			if isBlank(text) {
				rd.skip("empty cline " + kind)
				continue
			}
			err = rd.emit(id, ragd.TypeAgentResponse, ragd.ActorAgent, text, t, "", mt)
		case clineThinking[kind]:
			err = rd.emit(id, TypeThinking, ragd.ActorAgent, m.Text, t, "", mt)
		case clineCalls[kind]:
			err = rd.emit(id, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(kind+" "+m.Text), t, "", mt)
		case clineResults[kind]:
			err = rd.emit(id, TypeToolResult, ActorTool, m.Text, t, "", mt)
		case clineNotes[kind]:
			err = rd.emit(id, TypeSystemNote, ActorSystem, m.Text, t, "", mt)
		case clineCompacted[kind]:
			err = rd.emit(id, TypeCompacted, ActorSystem, firstNonEmpty(m.Text, "conversation condensed"), t, "", mt)
		default:
			rd.skip("cline " + quoteType(m.Type) + " " + quoteType(kind))
		}
		if err != nil {
			return rd.st, err
		}
	}
	return rd.st, nil
}

// clineTask is the task id of a task's file: its folder's name.
func clineTask(name string) string {
	task := filepath.Base(filepath.Dir(name))
	if task == "." || task == string(filepath.Separator) {
		task = stem(name)
	}
	return task
}

// clineAnswer is the visible text of an answer: a question's or a plan's
// JSON holds it in a field.
func clineAnswer(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return text
	}
	var q struct {
		Question *string `json:"question"`
		Response *string `json:"response"`
	}
	if json.Unmarshal([]byte(t), &q) != nil {
		return text
	}
	switch {
	case q.Question != nil:
		return *q.Question
	case q.Response != nil:
		return *q.Response
	}
	return text
}

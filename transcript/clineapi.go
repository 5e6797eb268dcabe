package transcript

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// Cline's api_conversation_history.json is the conversation as the model
// saw it: an array of Anthropic messages ({role, content: a string or
// blocks}), without times. A user message carries, besides what the
// person typed, the results of tools ("[read_file for 'x'] Result:" or
// tool_result blocks), the environment details Cline adds to every
// request and reminders it injects; the person's own words are wrapped:
// <task>, <feedback>, <answer>, <user_message>. An assistant message
// carries thinking, the text shown, and tool calls: tool_use blocks, or
// (older versions) XML tags in the text, of which three are shown as
// answers: attempt_completion's result, ask_followup_question's question
// and plan_mode_respond's response.

// clineWrapped are the tags around the person's own words in a user
// message.
var clineWrapped = regexp.MustCompile(`(?s)<(task|feedback|answer|user_message)>\s*(.*?)\s*</(?:task|feedback|answer|user_message)>`)

// clineEnvDetails are the environment details Cline appends to requests.
var clineEnvDetails = regexp.MustCompile(`(?s)<environment_details>.*?(?:</environment_details>|\z)`)

// clineToolResult starts a tool's result given as text.
var clineToolResult = regexp.MustCompile(`^\s*\[[^\]\n]+\] Result:`)

// clineThinkingTag is thinking written in the text (older versions).
var clineThinkingTag = regexp.MustCompile(`(?s)<thinking>\s*(.*?)\s*(?:</thinking>|\z)`)

// clineToolTag is a tool call written as XML in the text: a tag whose name
// has an underscore (read_file, attempt_completion), to its closing tag or
// the end of the text (a call cut short).
var clineToolTag = regexp.MustCompile(`(?s)<([a-z]+(?:_[a-z]+)+)>(.*?)(?:</([a-z]+(?:_[a-z]+)+)>|\z)`)

// clineParamTag is one parameter of a tool call written as XML.
var clineParamTag = regexp.MustCompile(`(?s)<([a-z_]+)>(.*?)</([a-z_]+)>`)

// clineShownTools are the tools whose input Cline shows as an answer, with
// the parameter shown.
var clineShownTools = map[string]string{
	"attempt_completion":    "result",
	"ask_followup_question": "question",
	"plan_mode_respond":     "response",
}

type clineAPIMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type clineAPIBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Name      string          `json:"name"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
}

// readClineAPI reads a task's api_conversation_history.json, unless the
// task's ui_messages.json is beside it: that is the same conversation as
// the person saw it, and is read instead. The messages have no time: the
// task id is the time it started (milliseconds), and message i is read as
// i milliseconds after it, so that every read gives the same times.
func readClineAPI(r io.Reader, name string, opt Options, fn Func) (st Stats, err error) {
	rd := newReader(Cline, name, opt, fn)
	rd.scoped = true
	if _, err := os.Stat(filepath.Join(filepath.Dir(name), clineUIFile)); err == nil {
		rd.skip("cline " + clineAPIFile + " beside a " + clineUIFile + " (read instead)")
		rd.checkpoint(0, 0)
		return rd.st, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return rd.st, err
	}
	var msgs []clineAPIMessage
	ok, err := rd.readDocument(r, &msgs)
	if !ok || err != nil {
		return rd.st, err
	}
	defer func() {
		rd.checkpoint(0, 0)
		st = rd.st
	}()
	task := clineTask(name)
	s := rd.setSession(task)
	start := time.Time{}
	if ms, err := strconv.ParseInt(task, 10, 64); err == nil {
		start = msTime(ms)
	}
	if start.IsZero() {
		start = rd.docTime()
	}
	for i, m := range msgs {
		rd.line = i + 1
		rd.st.Records++
		rd.raw = nil
		t := start.Add(time.Duration(i) * time.Millisecond)
		rd.seen(t)
		blocks, ok := clineBlocks(m.Content)
		if !ok {
			rd.bad(i+1, "message content is neither text nor blocks")
			continue
		}
		id := "api/" + itoa(i)
		var err error
		switch m.Role {
		case "user":
			err = clineAPIUser(rd, s, id, blocks, t)
		case "assistant":
			err = clineAPIAssistant(rd, id, blocks, t)
		default:
			rd.skip("cline api message of role " + quoteType(m.Role))
		}
		if err != nil {
			return rd.st, err
		}
	}
	return rd.st, nil
}

// clineBlocks reads a message's content: a string is one text block.
func clineBlocks(raw json.RawMessage) ([]clineAPIBlock, bool) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []clineAPIBlock{{Type: "text", Text: text}}, true
	}
	var blocks []clineAPIBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, false
	}
	return blocks, true
}

// clinePersonText returns the person's own words in a user message's text
// (the wrapped parts), and whether the text held any.
func clinePersonText(text string) (string, bool) {
	var parts []string
	for _, sub := range clineWrapped.FindAllStringSubmatch(text, -1) {
		if !isBlank(sub[2]) {
			parts = append(parts, sub[2])
		}
	}
	return strings.Join(parts, "\n\n"), len(parts) > 0
}

// clineAPIUser maps a user message: the person's words one prompt, tool
// results results, images attachments; environment details and
// reminders are dropped.
func clineAPIUser(rd *reader, s *Session, id string, blocks []clineAPIBlock, t time.Time) error {
	var typed []string
	for j, b := range blocks {
		bid := id + "/" + itoa(j)
		mt := meta{Record: "user", Block: b.Type}
		text := b.Text
		if b.Type == "tool_result" {
			text = clineResultText(b.Content)
			mt.CallID = b.ToolUseID
		}
		if s.Cwd == "" {
			if sub := clineCwd.FindStringSubmatch(text); sub != nil {
				s.Cwd = strings.TrimSpace(sub[1])
			}
		}
		text = clineEnvDetails.ReplaceAllString(text, "")
		switch b.Type {
		case "image":
			if err := rd.emit(bid, TypeAttachment, ragd.ActorPerson, "image", t, "", mt); err != nil {
				return err
			}
			continue
		case "text", "tool_result":
		default:
			rd.skip("cline api user block " + quoteType(b.Type))
			continue
		}
		person, ok := clinePersonText(text)
		if ok {
			typed = append(typed, person)
		}
		if b.Type == "tool_result" || clineToolResult.MatchString(text) {
			if err := rd.emit(bid, TypeToolResult, ActorTool, text, t, "", mt); err != nil {
				return err
			}
			continue
		}
		if !ok && !isBlank(text) {
			// Cline's reminders ("# task_progress RECOMMENDED", "# TODO
			// LIST UPDATE REQUIRED") and other text it adds.
			rd.skip("cline api injected text")
		}
	}
	if len(typed) == 0 {
		return nil
	}
	return rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, strings.Join(typed, "\n\n"), t, "", meta{Record: "user"})
}

// clineResultText is a tool_result's content: a string or text blocks.
func clineResultText(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var blocks []clineAPIBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// clineAPIAssistant maps an assistant message: thinking, the visible text
// as one answer, each tool call, and the input of the tools Cline shows
// (a completion's result, a question) as answers of their own.
func clineAPIAssistant(rd *reader, id string, blocks []clineAPIBlock, t time.Time) error {
	var shown []string
	var calls []clineAPIBlock
	for j, b := range blocks {
		bid := id + "/" + itoa(j)
		mt := meta{Record: "assistant", Block: b.Type}
		switch b.Type {
		case "thinking":
			if err := rd.emit(bid, TypeThinking, ragd.ActorAgent, b.Thinking, t, "", mt); err != nil {
				return err
			}
		case "redacted_thinking":
			rd.skip("cline api redacted thinking")
		case "text":
			text := b.Text
			for k, sub := range clineThinkingTag.FindAllStringSubmatch(text, -1) {
				if err := rd.emit(bid+"/thinking/"+itoa(k), TypeThinking, ragd.ActorAgent, sub[1], t, "", mt); err != nil {
					return err
				}
			}
			text = clineThinkingTag.ReplaceAllString(text, "")
			for _, sub := range clineToolTag.FindAllStringSubmatch(text, -1) {
				in := map[string]string{}
				for _, p := range clineParamTag.FindAllStringSubmatch(sub[2], -1) {
					if p[1] == p[3] {
						in[p[1]] = strings.TrimSpace(p[2])
					}
				}
				raw, _ := json.Marshal(in)
				calls = append(calls, clineAPIBlock{Type: "tool_use", Name: sub[1], Input: raw})
			}
			text = strings.TrimSpace(clineToolTag.ReplaceAllString(text, ""))
			if text != "" {
				shown = append(shown, text)
			}
		case "tool_use":
			calls = append(calls, b)
		default:
			rd.skip("cline api assistant block " + quoteType(b.Type))
		}
	}
	mt := meta{Record: "assistant"}
	if len(shown) > 0 {
		if err := rd.emit(id, ragd.TypeAgentResponse, ragd.ActorAgent, strings.Join(shown, "\n\n"), t, "", mt); err != nil {
			return err
		}
	}
	for k, c := range calls {
		cid := id + "/call/" + itoa(k)
		cm := meta{Record: "assistant", Block: "tool_use", Name: c.Name, CallID: c.ID}
		if err := rd.emit(cid, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(c.Name+" "+compactJSON(c.Input)), t, "", cm); err != nil {
			return err
		}
		param, ok := clineShownTools[c.Name]
		if !ok {
			continue
		}
		var in map[string]any
		if json.Unmarshal(c.Input, &in) != nil {
			continue
		}
		if v, ok := in[param].(string); ok && !isBlank(v) {
			if err := rd.emit(cid+"/shown", ragd.TypeAgentResponse, ragd.ActorAgent, strings.TrimSpace(v), t, "", cm); err != nil {
				return err
			}
		}
	}
	return nil
}

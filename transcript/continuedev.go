package transcript

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/ragd/ragd"
)

// Continue is Continue's (the IDE extension's and its CLI's) sessions.
const Continue Format = "continue"

// continueFormat reads Continue's sessions: $CONTINUE_GLOBAL_DIR (default
// ~/.continue)/sessions/<id>.json, one JSON document per session
// ({sessionId, title, workspaceDirectory, history: [{message, contextItems,
// toolCallStates}]}), rewritten as it grows; sessions.json beside them is
// their index. Messages carry no time: they take the file's modification
// time when first read.
var continueFormat = Descriptor{
	Name: Continue,
	Tool: "Continue",
	Paths: func(getenv func(string) string) ([]string, error) {
		return envOrHome(Continue, getenv, "CONTINUE_GLOBAL_DIR", []string{"sessions"}, []string{".continue", "sessions"})
	},
	Match: func(path string) bool {
		base := filepath.Base(path)
		return strings.HasSuffix(base, ".json") && base != "sessions.json" && filepath.Base(filepath.Dir(path)) == "sessions"
	},
	Looks:    "<id>.json files in a sessions folder (give a file of another name itself)",
	Rewrites: func(string) bool { return true },
	Read:     readContinue,
}

type continueSession struct {
	SessionID          string `json:"sessionId"`
	Title              string `json:"title"`
	WorkspaceDirectory string `json:"workspaceDirectory"`
	History            []struct {
		Message struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"toolCalls"`
			ToolCallID string `json:"toolCallId"`
		} `json:"message"`
		ContextItems   []json.RawMessage `json:"contextItems"`
		ToolCallStates []struct {
			ToolCallID string `json:"toolCallId"`
			Status     string `json:"status"`
			Output     []struct {
				Content string `json:"content"`
			} `json:"output"`
		} `json:"toolCallStates"`
	} `json:"history"`
}

func readContinue(r io.Reader, name string, opt Options, fn Func) (st Stats, err error) {
	rd := newReader(Continue, name, opt, fn)
	rd.scoped = true
	var doc continueSession
	ok, err := rd.readDocument(r, &doc)
	if !ok || err != nil {
		return rd.st, err
	}
	// A document is read whole each time: the checkpoint keeps the
	// session and the time given to records without one.
	defer func() {
		rd.checkpoint(0, 0)
		st = rd.st
	}()
	s := rd.setSession(firstNonEmpty(doc.SessionID, stem(name)))
	if d := doc.WorkspaceDirectory; d != "" {
		s.Cwd = strings.TrimPrefix(d, "file://")
	}
	t := rd.docTime()
	for i, h := range doc.History {
		rd.line = i + 1
		rd.st.Records++
		raw, _ := json.Marshal(h)
		rd.raw = raw
		id := itoa(i)
		msg := h.Message
		if len(h.ContextItems) > 0 {
			// Files and snippets attached to the message: context, not
			// what the person typed.
			rd.skip("continue context items")
		}
		m := meta{Record: msg.Role}
		var err error
		switch msg.Role {
		case "user":
			err = rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, continueText(msg.Content), t, "", m)
		case "assistant":
			if text := continueText(msg.Content); !isBlank(text) {
				err = rd.emit(id, ragd.TypeAgentResponse, ragd.ActorAgent, text, t, "", m)
			}
			for _, tc := range msg.ToolCalls {
				if err != nil {
					break
				}
				cm := meta{Record: "assistant", Block: "toolCall", Name: tc.Function.Name, CallID: tc.ID}
				err = rd.emit(id+"/call/"+tc.ID, TypeToolCall, ragd.ActorAgent, strings.TrimSpace(tc.Function.Name+" "+tc.Function.Arguments), t, "", cm)
			}
			for _, st := range h.ToolCallStates {
				if err != nil {
					break
				}
				if st.Status != "done" && st.Status != "errored" && st.Status != "canceled" {
					continue
				}
				var out []string
				for _, o := range st.Output {
					out = append(out, o.Content)
				}
				cm := meta{Record: "toolCallState", CallID: st.ToolCallID, Error: st.Status != "done"}
				err = rd.emit(id+"/result/"+st.ToolCallID, TypeToolResult, ActorTool, strings.Join(out, "\n"), t, "", cm)
			}
		case "thinking":
			err = rd.emit(id, TypeThinking, ragd.ActorAgent, continueText(msg.Content), t, "", m)
		case "tool":
			m.CallID = msg.ToolCallID
			err = rd.emit(id, TypeToolResult, ActorTool, continueText(msg.Content), t, "", m)
		case "system":
			err = rd.emit(id, TypeSystemNote, ActorSystem, continueText(msg.Content), t, "", m)
		default:
			rd.skip("continue message of role " + quoteType(msg.Role))
		}
		if err != nil {
			return rd.st, err
		}
	}
	if !isBlank(doc.Title) && doc.Title != "New Session" {
		rd.raw = nil
		return rd.st, rd.emit("title/"+shortHash(doc.Title), TypeTitle, ActorSystem, doc.Title, t, doc.Title, meta{Record: "title"})
	}
	return rd.st, nil
}

// continueText renders a message's content: a string, or parts of which
// the text ones count.
func continueText(raw json.RawMessage) string { return stringContent(raw, "") }

package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd"
)

// Copilot is VS Code's Copilot Chat sessions.
const Copilot Format = "copilot"

// copilotEditors are the VS Code builds whose storage holds chat sessions.
var copilotEditors = []string{"Code", "Code - Insiders", "VSCodium"}

// copilotFormat reads VS Code's Copilot Chat sessions, kept per workspace
// in <config>/<editor>/User/workspaceStorage/<hash>/chatSessions/ (and for
// windows without a folder in globalStorage/emptyWindowChatSessions/):
// <id>.json, a document ({version, sessionId, creationDate, customTitle,
// requests: [{requestId, timestamp, message, response: [parts], result}]})
// rewritten as the chat goes on, or in newer versions <id>.jsonl, a log
// replayed to that document (kind 0: the whole state; 1: set the value at
// a key path; 2: append to the list at a key path). The workspace's folder
// is read from workspace.json beside chatSessions.
var copilotFormat = Descriptor{
	Name: Copilot,
	Tool: "GitHub Copilot Chat (VS Code)",
	Paths: func(getenv func(string) string) ([]string, error) {
		var all []string
		for _, cfg := range configDirs(getenv) {
			for _, ed := range copilotEditors {
				all = append(all, filepath.Join(cfg, ed, "User", "workspaceStorage"),
					filepath.Join(cfg, ed, "User", "globalStorage", "emptyWindowChatSessions"))
			}
		}
		if len(all) == 0 {
			_, err := homePath(Copilot, getenv)
			return nil, err
		}
		if found := existing(all); len(found) > 0 {
			return found, nil
		}
		return all[:1], nil
	},
	Match: func(path string) bool {
		ext := filepath.Ext(path)
		dir := filepath.Base(filepath.Dir(path))
		return (ext == ".json" || ext == ".jsonl") && (dir == "chatSessions" || dir == "emptyWindowChatSessions")
	},
	Looks:    "*.json and *.jsonl files in a chatSessions folder (give a file of another name itself)",
	Rewrites: func(string) bool { return true },
	Read:     readCopilot,
}

type copilotSession struct {
	SessionID    string           `json:"sessionId"`
	CreationDate int64            `json:"creationDate"`
	CustomTitle  string           `json:"customTitle"`
	Requests     []copilotRequest `json:"requests"`
}

type copilotRequest struct {
	RequestID string `json:"requestId"`
	Timestamp int64  `json:"timestamp"`
	Message   struct {
		Text string `json:"text"`
	} `json:"message"`
	VariableData struct {
		Variables []struct {
			Kind string `json:"kind"`
		} `json:"variables"`
	} `json:"variableData"`
	Response   []json.RawMessage `json:"response"`
	Result     json.RawMessage   `json:"result"`
	IsCanceled bool              `json:"isCanceled"`
}

type copilotPart struct {
	Kind            string          `json:"kind"`
	Value           json.RawMessage `json:"value"`
	InlineReference *struct {
		Name   string `json:"name"`
		FsPath string `json:"fsPath"`
		Path   string `json:"path"`
	} `json:"inlineReference"`
	BaseURI *struct {
		Path   string `json:"path"`
		Scheme string `json:"scheme"`
	} `json:"baseUri"`
	ToolID            string          `json:"toolId"`
	ToolCallID        string          `json:"toolCallId"`
	InvocationMessage json.RawMessage `json:"invocationMessage"`
	PastTenseMessage  json.RawMessage `json:"pastTenseMessage"`
	IsComplete        bool            `json:"isComplete"`
}

func readCopilot(r io.Reader, name string, opt Options, fn Func) (st Stats, err error) {
	rd := newReader(Copilot, name, opt, fn)
	rd.scoped = true
	var doc copilotSession
	var ok bool
	if strings.EqualFold(filepath.Ext(name), ".jsonl") {
		ok, err = rd.replayCopilot(r, &doc)
	} else {
		ok, err = rd.readDocument(r, &doc)
	}
	if !ok || err != nil {
		return rd.st, err
	}
	defer func() {
		rd.checkpoint(0, 0)
		st = rd.st
	}()
	s := rd.setSession(firstNonEmpty(doc.SessionID, stem(name)))
	if s.Cwd == "" {
		s.Cwd = copilotWorkspace(name)
	}
	rd.seen(msTime(doc.CreationDate))
	for i, req := range doc.Requests {
		rd.line = i + 1
		rd.st.Records++
		rd.raw, _ = json.Marshal(req)
		if len(req.Result) == 0 && !req.IsCanceled && i == len(doc.Requests)-1 {
			// The answer is still being written: read once complete.
			rd.st.Incomplete = true
			rd.skip("copilot request still answering")
			continue
		}
		t := msTime(req.Timestamp)
		if t.IsZero() {
			t = rd.docTime()
		}
		rd.seen(t)
		id := firstNonEmpty(req.RequestID, "request-"+itoa(i))
		if err := rd.copilotRequest(id, &req, t); err != nil {
			return rd.st, err
		}
	}
	if !isBlank(doc.CustomTitle) && !rd.lastTime.IsZero() {
		rd.raw = nil
		return rd.st, rd.emit("title/"+shortHash(doc.CustomTitle), TypeTitle, ActorSystem, doc.CustomTitle, rd.titleTime(doc.CreationDate), doc.CustomTitle, meta{Record: "customTitle"})
	}
	return rd.st, nil
}

func (rd *reader) copilotRequest(id string, req *copilotRequest, t time.Time) error {
	m := meta{Record: "request"}
	if n := len(req.VariableData.Variables); n > 0 {
		// Files, selections and symbols attached: context, not typed.
		rd.skip("copilot attached context")
	}
	if err := rd.emit(id, ragd.TypeChatMessage, ragd.ActorPerson, req.Message.Text, t, "", m); err != nil {
		return err
	}
	var answer strings.Builder
	for j, raw := range req.Response {
		var p copilotPart
		if json.Unmarshal(raw, &p) != nil {
			rd.skip("copilot response part that is not an object")
			continue
		}
		if rd.sess.Cwd == "" && p.BaseURI != nil && p.BaseURI.Scheme == "file" {
			rd.sess.Cwd = strings.TrimSuffix(p.BaseURI.Path, "/")
		}
		pm := meta{Record: "response", Block: p.Kind}
		switch p.Kind {
		case "", "markdownContent":
			answer.WriteString(copilotString(p.Value))
		case "inlineReference":
			if ref := p.InlineReference; ref != nil {
				answer.WriteString("`" + firstNonEmpty(ref.Name, filepath.Base(firstNonEmpty(ref.FsPath, ref.Path))) + "`")
			}
		case "thinking":
			if err := rd.emit(id+"/"+itoa(j), TypeThinking, ragd.ActorAgent, copilotString(p.Value), t, "", pm); err != nil {
				return err
			}
		case "toolInvocationSerialized":
			pm.Name, pm.CallID = p.ToolID, p.ToolCallID
			if err := rd.emit(id+"/call/"+firstNonEmpty(p.ToolCallID, itoa(j)), TypeToolCall, ragd.ActorAgent,
				strings.TrimSpace(p.ToolID+" "+copilotString(p.InvocationMessage)), t, "", pm); err != nil {
				return err
			}
			if p.IsComplete {
				if err := rd.emit(id+"/result/"+firstNonEmpty(p.ToolCallID, itoa(j)), TypeToolResult, ActorTool,
					copilotString(p.PastTenseMessage), t, "", pm); err != nil {
					return err
				}
			}
		default:
			// Code block uris, edit groups, undo stops, progress: the
			// editor's bookkeeping.
			rd.skip("copilot response part " + quoteType(p.Kind))
		}
	}
	if isBlank(answer.String()) {
		return nil
	}
	return rd.emit(id+"/answer", ragd.TypeAgentResponse, ragd.ActorAgent, strings.TrimSpace(answer.String()), t, "", meta{Record: "response"})
}

// copilotString renders a string, or a markdown string ({value}).
func copilotString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var md struct {
		Value string `json:"value"`
	}
	_ = json.Unmarshal(raw, &md)
	return md.Value
}

// copilotWorkspace reads the folder of the workspace a chatSessions folder
// belongs to from workspace.json beside it; "" when there is none.
func copilotWorkspace(name string) string {
	return workspaceFolder(filepath.Dir(filepath.Dir(name)))
}

// workspaceFolder reads the folder a VS Code workspace storage folder
// (workspaceStorage/<hash>) is of from its workspace.json; "" when there
// is none.
func workspaceFolder(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "workspace.json"))
	if err != nil || len(b) > 1<<20 {
		return ""
	}
	var w struct {
		Folder string `json:"folder"`
	}
	if json.Unmarshal(b, &w) != nil {
		return ""
	}
	u, err := url.Parse(w.Folder)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return u.Path
}

// replayCopilot rebuilds the session a .jsonl log describes into doc.
func (rd *reader) replayCopilot(r io.Reader, doc *copilotSession) (bool, error) {
	var state any
	br := bufio.NewReaderSize(io.LimitReader(r, MaxDocumentBytes+1), 64<<10)
	var buf []byte
	total, n := 0, 0
	for {
		line, size, tooLong, terminated, err := readLine(br, buf[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, err
		}
		buf = line
		total += size
		n++
		rd.st.Lines++
		if total > MaxDocumentBytes {
			rd.bad(n, "log larger than "+itoa(MaxDocumentBytes)+" bytes")
			return false, nil
		}
		if tooLong || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var op struct {
			Kind int             `json:"kind"`
			K    []any           `json:"k"`
			V    json.RawMessage `json:"v"`
			I    *int            `json:"i"`
		}
		if err := json.Unmarshal(line, &op); err != nil {
			if !terminated {
				rd.st.Incomplete = true
				break
			}
			rd.bad(n, "invalid JSON: "+err.Error())
			continue
		}
		var v any
		if len(op.V) > 0 {
			if err := json.Unmarshal(op.V, &v); err != nil {
				rd.bad(n, "value: "+err.Error())
				continue
			}
		}
		switch op.Kind {
		case 0:
			state = v
		case 1:
			state = setAt(state, op.K, v)
		case 2:
			list, _ := v.([]any)
			state = appendAt(state, op.K, list, op.I)
		default:
			rd.skip("copilot log record of kind " + itoa(op.Kind))
		}
	}
	if state == nil {
		return false, nil
	}
	b, err := json.Marshal(state)
	if err != nil {
		return false, nil
	}
	if err := json.Unmarshal(b, doc); err != nil {
		rd.bad(0, "replayed session: "+err.Error())
		return false, nil
	}
	return true, nil
}

// setAt sets the value at key path k of root (objects by key, lists by
// index) and returns root; a path that does not lead anywhere is left.
func setAt(root any, k []any, v any) any {
	if len(k) == 0 {
		return v
	}
	switch node := root.(type) {
	case map[string]any:
		key, ok := k[0].(string)
		if !ok {
			return root
		}
		node[key] = setAt(node[key], k[1:], v)
	case []any:
		i, ok := k[0].(float64)
		if !ok || i < 0 || int(i) >= len(node) {
			return root
		}
		node[int(i)] = setAt(node[int(i)], k[1:], v)
	}
	return root
}

// appendAt appends vs to the list at key path k of root, cutting it to
// its first *trunc items first when trunc is set.
func appendAt(root any, k []any, vs []any, trunc *int) any {
	if len(k) == 0 {
		list, _ := root.([]any)
		if trunc != nil && *trunc >= 0 && *trunc < len(list) {
			list = list[:*trunc]
		}
		return append(list, vs...)
	}
	switch node := root.(type) {
	case map[string]any:
		key, ok := k[0].(string)
		if !ok {
			return root
		}
		node[key] = appendAt(node[key], k[1:], vs, trunc)
	case []any:
		i, ok := k[0].(float64)
		if !ok || i < 0 || int(i) >= len(node) {
			return root
		}
		node[int(i)] = appendAt(node[int(i)], k[1:], vs, trunc)
	}
	return root
}

// titleTime is the time of a document's title: its creation, else the
// time its records were given.
func (rd *reader) titleTime(createdMs int64) time.Time {
	if t := msTime(createdMs); !t.IsZero() {
		return t
	}
	return rd.docTime()
}

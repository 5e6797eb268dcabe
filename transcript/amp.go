package transcript

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"
)

// Amp is Sourcegraph Amp's thread documents.
const Amp Format = "amp"

// ampFormat reads Amp's threads: $XDG_DATA_HOME (default ~/.local/share)
// /amp/threads/T-<id>.json, one JSON document per thread ({v, id, created,
// title, env, messages: [{role, messageId, content blocks, meta, state}]}),
// rewritten as the thread grows.
var ampFormat = Descriptor{
	Name: Amp,
	Tool: "Amp",
	Paths: func(getenv func(string) string) ([]string, error) {
		return dataDir(Amp, getenv, "amp", "threads")
	},
	Match: func(path string) bool {
		base := filepath.Base(path)
		return strings.HasPrefix(base, "T-") && strings.HasSuffix(base, ".json")
	},
	Looks:    "T-*.json thread files (give a file of another name itself)",
	Rewrites: func(string) bool { return true },
	Read:     readAmp,
}

type ampThread struct {
	ID       string `json:"id"`
	Created  int64  `json:"created"`
	Title    string `json:"title"`
	Messages []struct {
		Role      string            `json:"role"`
		MessageID json.Number       `json:"messageId"`
		Content   []json.RawMessage `json:"content"`
		Meta      *struct {
			SentAt int64 `json:"sentAt"`
		} `json:"meta"`
		State *struct {
			Type string `json:"type"`
		} `json:"state"`
	} `json:"messages"`
	Env struct {
		Initial struct {
			Trees []struct {
				URI string `json:"uri"`
			} `json:"trees"`
		} `json:"initial"`
	} `json:"env"`
}

type ampBlock struct {
	claudeBlock
	ToolUseID string `json:"toolUseID"`
	Run       *struct {
		Status string          `json:"status"`
		Result json.RawMessage `json:"result"`
	} `json:"run"`
}

func readAmp(r io.Reader, name string, opt Options, fn Func) (st Stats, err error) {
	rd := newReader(Amp, name, opt, fn)
	rd.scoped = true
	var th ampThread
	ok, err := rd.readDocument(r, &th)
	if !ok || err != nil {
		return rd.st, err
	}
	// A document is read whole each time: the checkpoint keeps the
	// session and the time given to records without one.
	defer func() {
		rd.checkpoint(0, 0)
		st = rd.st
	}()
	s := rd.setSession(firstNonEmpty(th.ID, stem(name)))
	if trees := th.Env.Initial.Trees; len(trees) > 0 {
		if u, err := url.Parse(trees[0].URI); err == nil && u.Scheme == "file" {
			s.Cwd = u.Path
		}
	}
	created := msTime(th.Created)
	rd.seen(created)
	for i, m := range th.Messages {
		rd.line = i + 1
		rd.st.Records++
		raw, _ := json.Marshal(m)
		rd.raw = raw
		if m.Meta != nil {
			rd.seen(msTime(m.Meta.SentAt))
		}
		t := rd.lastTime
		if t.IsZero() {
			t = rd.docTime()
		}
		if m.State != nil && m.State.Type == "streaming" {
			// Still being written: read once complete.
			rd.st.Incomplete = true
			rd.skip("amp message still streaming")
			continue
		}
		id := m.MessageID.String()
		if id == "" {
			id = "m" + itoa(i)
		}
		br := blockRoles{user: m.Role == "user"}
		for j, rawBlock := range m.Content {
			var b ampBlock
			if err := json.Unmarshal(rawBlock, &b); err != nil {
				rd.bad(i+1, "content block: "+err.Error())
				continue
			}
			if b.Type == "tool_result" {
				b.claudeBlock.ToolUseID = b.ToolUseID
				if b.Run != nil {
					b.claudeBlock.Content = ampResult(b.Run.Result)
					b.IsError = b.Run.Status == "error"
				}
			}
			if err := rd.emitBlock(id+"/"+itoa(j), b.claudeBlock, t, br, m.Role); err != nil {
				return rd.st, err
			}
		}
	}
	if !isBlank(th.Title) && !created.IsZero() {
		rd.raw = nil
		if err := rd.emit("title/"+shortHash(th.Title), TypeTitle, ActorSystem, th.Title, created, th.Title, meta{Record: "title"}); err != nil {
			return rd.st, err
		}
	}
	return rd.st, nil
}

// ampResult renders a tool's result: its content, or the whole result.
func ampResult(raw json.RawMessage) json.RawMessage {
	var r struct {
		Content *string `json:"content"`
		Output  *string `json:"output"`
	}
	if json.Unmarshal(raw, &r) == nil {
		for _, s := range []*string{r.Content, r.Output} {
			if s != nil {
				b, _ := json.Marshal(*s)
				return b
			}
		}
	}
	return raw
}

package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/secretcorpus"
)

// secretsPerKind is how many secrets of each kind the store test plants.
const secretsPerKind = 5

// A slot is one field of one entry path that text can be planted in: it
// gets a list of texts and writes them where that path reads them.
type slot struct {
	name  string
	texts []string
}

// plantSlots are the fields the corpus is spread over, by entry path:
// every field of every transcript format that holds text, and ragd's own
// events by each route.
var plantSlots = []string{
	"claude/prompt", "claude/answer", "claude/thinking", "claude/tool-input", "claude/tool-result",
	"claude/summary-orphan", "claude/summary", "claude/custom-title", "claude/system",
	"codex/prompt", "codex/answer", "codex/reasoning", "codex/call-arguments", "codex/call-output", "codex/compacted",
	"gemini/prompt", "gemini/answer", "gemini/thought", "gemini/tool-args", "gemini/tool-result", "gemini/summary",
	"aider/prompt", "aider/reply", "aider/output",
	"events/text", "events/title", "events/payload", "events-batch/text", "events-import/text", "events-import/payload",
}

// TestSecrets_NeverStored plants the generated corpus (secrets and benign
// look-alikes) in every field of every transcript format and of ragd's own
// events, imports them through the real daemon and store, and reads every
// byte ragd wrote (database, WAL, logs, every file of its directories) for
// each secret. Targets: at least 99% of the secrets nowhere, at least 99%
// of the benign values stored verbatim. Recall is logged by kind.
func TestSecrets_NeverStored(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	secrets, benign := secretcorpus.Generate(2026, secretsPerKind)
	nk, _ := secretcorpus.Kinds()
	if len(secrets) < 300 || nk < 60 || len(benign) < 300 {
		t.Fatalf("corpus of %d secrets over %d kinds and %d benign values: want at least 300, 60 and 300", len(secrets), nk, len(benign))
	}
	slots := make([]slot, len(plantSlots))
	for i, n := range plantSlots {
		slots[i].name = n
	}
	slotOf := make([]string, len(secrets))
	for i, s := range secrets {
		sl := &slots[i%len(slots)]
		sl.texts = append(sl.texts, s.Text)
		slotOf[i] = sl.name
	}
	for i, b := range benign {
		sl := &slots[(i*7)%len(slots)]
		sl.texts = append(sl.texts, b.Text)
	}

	w := daemontest.NewWorld(t)
	logPath := filepath.Join(w.Dir, "state", "ragd.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	logger := slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: slog.LevelDebug}))
	dm, err := daemon.Open(ctx, daemon.Options{Config: daemontest.Config(newServer(t).URL), Paths: w.Paths, Open: daemontest.OpenSQLite, Logger: logger})
	if err != nil {
		t.Fatalf("open daemon: %v", err)
	}
	c := client.New(dm.Socket())
	closed := false
	stop := func() {
		if !closed {
			closed = true
			c.Close()
			if err := dm.Close(ctx); err != nil {
				t.Errorf("close daemon: %v", err)
			}
		}
	}
	defer stop()
	repo := daemontest.Repo(t, daemontest.Docs)
	daemontest.AddProject(t, c, repo.Dir, "demo")

	src := t.TempDir() // the transcripts: not ragd's files
	bySlot := map[string][]string{}
	for _, sl := range slots {
		bySlot[sl.name] = sl.texts
	}
	formats := []struct{ format, file string }{
		{"claude-code", writeClaude(t, src, bySlot)},
		{"codex", writeCodex(t, src, bySlot)},
		{"gemini", writeGemini(t, src, bySlot)},
		{"aider", writeAider(t, src, bySlot)},
	}
	redactions := map[string]int{}
	for _, f := range formats {
		rep := importTranscripts(t, c, api.TranscriptImportRequest{Format: f.format, Paths: []string{f.file}, Project: "demo"})
		if rep.Malformed > 0 || rep.Appended == 0 {
			t.Fatalf("%s import: %d appended, malformed %v", f.format, rep.Appended, rep.LineErrors)
		}
		for k, v := range rep.Redactions {
			redactions[k] += v
		}
	}
	for k, v := range appendOwnEvents(t, c, bySlot) {
		redactions[k] += v
	}
	total := 0
	for _, v := range redactions {
		total += v
	}
	t.Logf("import reports: %d redactions of %d kinds", total, len(redactions))

	// What ragd wrote, while it runs (the WAL holds the latest pages) and
	// once it has stopped.
	running := readTree(t, w.Dir)
	stop()
	written := append(running, readTree(t, w.Dir)...)

	missed := map[string]int{}
	totalBy := map[string]int{}
	leakedBySlot := map[string][]string{}
	n := 0
	for i, s := range secrets {
		totalBy[s.Kind]++
		if bytes.Contains(written, []byte(s.Value)) || bytes.Contains(written, []byte(jsonInner(s.Value))) {
			missed[s.Kind]++
			n++
			leakedBySlot[slotOf[i]] = append(leakedBySlot[slotOf[i]], s.String())
		}
	}
	// One subtest per entry path and field: what was planted there is in
	// no byte ragd wrote.
	for _, sl := range slots {
		t.Run(sl.name, func(t *testing.T) {
			if l := leakedBySlot[sl.name]; len(l) > 0 {
				t.Errorf("%d of the secrets planted here were written: %s", len(l), strings.Join(l, ", "))
			}
		})
	}
	altered := 0
	for _, b := range benign {
		if !bytes.Contains(written, []byte(b.Text)) && !bytes.Contains(written, []byte(jsonInner(b.Text))) {
			altered++
			t.Logf("benign value altered: %s %q", b.Kind, b.Text)
		}
	}
	recall := 1 - float64(n)/float64(len(secrets))
	kept := 1 - float64(altered)/float64(len(benign))
	t.Logf("recall %.1f%%: %d of %d secrets over %d kinds never written; benign kept %.1f%% (%d of %d)",
		100*recall, len(secrets)-n, len(secrets), len(totalBy), 100*kept, len(benign)-altered, len(benign))
	var kinds []string
	for k := range totalBy {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var line []string
	for _, k := range kinds {
		line = append(line, fmt.Sprintf("%s %d/%d", k, totalBy[k]-missed[k], totalBy[k]))
	}
	t.Logf("recall by kind: %s", strings.Join(line, ", "))
	if recall < 0.99 || kept < 0.99 {
		t.Errorf("recall %.3f, benign kept %.3f: want both at least 0.99", recall, kept)
	}
}

func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// readTree returns the bytes of every file under dir.
func readTree(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		all = append(append(all, b...), 0)
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	return all
}

func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// stamp is the n-th second of the planted sessions.
func stamp(n int) string {
	return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano)
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeClaude(t *testing.T, dir string, by map[string][]string) string {
	var b strings.Builder
	sess := "5ec12e75-0000-4000-8000-00000000c1a0"
	n := 0
	base := func(typ, uuid string) map[string]any {
		n++
		return map[string]any{"sessionId": sess, "cwd": "/home/dev/proj", "gitBranch": "main", "type": typ, "uuid": uuid, "timestamp": stamp(n)}
	}
	for i, s := range by["claude/summary-orphan"] {
		b.WriteString(jsonLine(t, map[string]any{"type": "summary", "summary": s, "leafUuid": fmt.Sprintf("elsewhere-%d", i)}))
	}
	for i, s := range by["claude/summary"] {
		b.WriteString(jsonLine(t, map[string]any{"type": "summary", "summary": s, "leafUuid": fmt.Sprintf("leaf-%d", i)}))
	}
	for i := range by["claude/summary"] {
		r := base("assistant", fmt.Sprintf("leaf-%d", i))
		r["message"] = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("leaf %d", i)}}}
		b.WriteString(jsonLine(t, r))
	}
	for i, s := range by["claude/prompt"] {
		r := base("user", fmt.Sprintf("p-%d", i))
		r["message"] = map[string]any{"role": "user", "content": s}
		b.WriteString(jsonLine(t, r))
	}
	blocks := func(slotName string, mk func(i int, s string) map[string]any, role string) {
		for i, s := range by[slotName] {
			r := base(role, fmt.Sprintf("%s-%d", slotName, i))
			r["message"] = map[string]any{"role": role, "content": []any{mk(i, s)}}
			b.WriteString(jsonLine(t, r))
		}
	}
	blocks("claude/answer", func(_ int, s string) map[string]any { return map[string]any{"type": "text", "text": s} }, "assistant")
	blocks("claude/thinking", func(_ int, s string) map[string]any {
		return map[string]any{"type": "thinking", "thinking": s, "signature": "sig"}
	}, "assistant")
	blocks("claude/tool-input", func(i int, s string) map[string]any {
		return map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i), "name": "Bash", "input": map[string]any{"command": s, "description": "run it"}}
	}, "assistant")
	blocks("claude/tool-result", func(i int, s string) map[string]any {
		return map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", i), "content": s}
	}, "user")
	for i, s := range by["claude/custom-title"] {
		b.WriteString(jsonLine(t, map[string]any{"type": "custom-title", "customTitle": s, "sessionId": sess, "uuid": fmt.Sprintf("ct-%d", i)}))
	}
	for i, s := range by["claude/system"] {
		r := base("system", fmt.Sprintf("sys-%d", i))
		r["content"] = s
		r["subtype"] = "informational"
		b.WriteString(jsonLine(t, r))
	}
	return writeFile(t, dir, sess+".jsonl", b.String())
}

func writeCodex(t *testing.T, dir string, by map[string][]string) string {
	var b strings.Builder
	n := 0
	rec := func(typ string, payload map[string]any) {
		n++
		b.WriteString(jsonLine(t, map[string]any{"timestamp": stamp(n), "type": typ, "payload": payload}))
	}
	rec("session_meta", map[string]any{"id": "0199cccc-0000-7000-8000-00000000c0de", "timestamp": stamp(0), "cwd": "/home/dev/proj", "originator": "codex_cli_rs", "cli_version": "0.80.0"})
	for _, s := range by["codex/prompt"] {
		// As Codex writes a prompt: the response item, then the
		// user_message event that is the canonical record of it.
		rec("response_item", map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": s}}})
		rec("event_msg", map[string]any{"type": "user_message", "message": s, "kind": "plain"})
	}
	for _, s := range by["codex/answer"] {
		rec("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": s}}})
	}
	for _, s := range by["codex/reasoning"] {
		rec("response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": s}}})
	}
	for i, s := range by["codex/call-arguments"] {
		args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", s}})
		rec("response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": string(args), "call_id": fmt.Sprintf("call_%d", i)})
	}
	for i, s := range by["codex/call-output"] {
		out, _ := json.Marshal(map[string]any{"output": s + "\n", "metadata": map[string]any{"exit_code": 0}})
		rec("response_item", map[string]any{"type": "function_call_output", "call_id": fmt.Sprintf("call_%d", i), "output": string(out)})
	}
	for _, s := range by["codex/compacted"] {
		rec("compacted", map[string]any{"message": s})
	}
	return writeFile(t, dir, "rollout-2026-03-01T09-00-00-0199cccc-0000-7000-8000-00000000c0de.jsonl", b.String())
}

func writeGemini(t *testing.T, dir string, by map[string][]string) string {
	var b strings.Builder
	b.WriteString(jsonLine(t, map[string]any{"sessionId": "9e3f0c1a-0000-4000-8000-00000000ge00", "projectHash": "PH", "startTime": stamp(0), "lastUpdated": stamp(0), "kind": "main"}))
	n := 0
	msg := func(m map[string]any) {
		n++
		m["id"] = fmt.Sprintf("g%d", n)
		m["timestamp"] = stamp(n)
		b.WriteString(jsonLine(t, m))
	}
	for _, s := range by["gemini/prompt"] {
		msg(map[string]any{"type": "user", "content": []any{map[string]any{"text": s}}})
	}
	for _, s := range by["gemini/answer"] {
		msg(map[string]any{"type": "gemini", "content": s, "thoughts": []any{}})
	}
	for _, s := range by["gemini/thought"] {
		msg(map[string]any{"type": "gemini", "content": "thinking done", "thoughts": []any{map[string]any{"subject": "Plan", "description": s}}})
	}
	for i, s := range by["gemini/tool-args"] {
		msg(map[string]any{"type": "gemini", "content": "running", "toolCalls": []any{map[string]any{"id": fmt.Sprintf("a-%d", i), "name": "run_shell_command",
			"args": map[string]any{"command": s}, "status": "success", "timestamp": stamp(n)}}})
	}
	for i, s := range by["gemini/tool-result"] {
		msg(map[string]any{"type": "gemini", "content": "ran", "toolCalls": []any{map[string]any{"id": fmt.Sprintf("r-%d", i), "name": "run_shell_command",
			"args": map[string]any{"command": "env"}, "status": "success", "timestamp": stamp(n),
			"result": []any{map[string]any{"functionResponse": map[string]any{"id": fmt.Sprintf("r-%d", i), "name": "run_shell_command", "response": map[string]any{"output": s}}}}}}})
	}
	for _, s := range by["gemini/summary"] {
		b.WriteString(jsonLine(t, map[string]any{"$set": map[string]any{"summary": s}}))
		msg(map[string]any{"type": "user", "content": []any{map[string]any{"text": "next"}}})
	}
	return writeFile(t, dir, "session-2026-03-01T09-00-ge00.jsonl", b.String())
}

func writeAider(t *testing.T, dir string, by map[string][]string) string {
	var b strings.Builder
	b.WriteString("# aider chat started at 2026-03-01 09:00:00\n\n")
	prompts, replies, outputs := by["aider/prompt"], by["aider/reply"], by["aider/output"]
	for i := 0; i < max(len(prompts), len(replies), len(outputs)); i++ {
		if i < len(prompts) {
			for _, l := range strings.Split(prompts[i], "\n") {
				b.WriteString("#### " + l + "  \n")
			}
			b.WriteString("\n")
		}
		if i < len(outputs) {
			for _, l := range strings.Split(outputs[i], "\n") {
				b.WriteString("> " + l + "  \n")
			}
			b.WriteString("\n")
		}
		if i < len(replies) {
			b.WriteString(replies[i] + "\n\n")
		}
	}
	return writeFile(t, dir, ".aider.chat.history.md", b.String())
}

// appendOwnEvents sends ragd events by each route: one by one, in a batch,
// and as a JSON-lines import; it returns the redactions reported.
func appendOwnEvents(t *testing.T, c *client.Client, by map[string][]string) map[string]int {
	ctx := context.Background()
	counts := map[string]int{}
	add := func(m map[string]int) {
		for k, v := range m {
			counts[k] += v
		}
	}
	n := 0
	ev := func(session, text, title string, payload json.RawMessage) ragd.Event {
		n++
		return ragd.Event{ID: fmt.Sprintf("own-%d", n), SessionID: session, Type: ragd.TypeChatMessage, Actor: ragd.ActorPerson,
			Text: text, Title: title, Payload: payload, Time: time.Date(2026, 3, 2, 0, 0, n, 0, time.UTC)}
	}
	for _, s := range by["events/text"] {
		res, err := c.AppendEvents(ctx, "demo", []ragd.Event{ev("own-a", s, "", nil)})
		if err != nil {
			t.Fatalf("append: %v", err)
		}
		add(res.Redactions)
	}
	for i, s := range by["events/title"] {
		res, err := c.AppendEvents(ctx, "demo", []ragd.Event{ev(fmt.Sprintf("own-title-%d", i), "a titled message", s, nil)})
		if err != nil {
			t.Fatalf("append: %v", err)
		}
		add(res.Redactions)
	}
	for _, s := range by["events/payload"] {
		p, _ := json.Marshal(map[string]any{"tool": "shell", "input": map[string]any{"command": s}})
		res, err := c.AppendEvents(ctx, "demo", []ragd.Event{ev("own-b", "with a payload", "", p)})
		if err != nil {
			t.Fatalf("append: %v", err)
		}
		add(res.Redactions)
	}
	var batch []ragd.Event
	for _, s := range by["events-batch/text"] {
		batch = append(batch, ev("own-c", s, "", nil))
	}
	res, err := c.AppendEvents(ctx, "demo", batch)
	if err != nil {
		t.Fatalf("append batch: %v", err)
	}
	add(res.Redactions)
	var file strings.Builder
	for _, s := range by["events-import/text"] {
		file.WriteString(jsonLine(t, ev("own-d", s, "", nil)))
	}
	for _, s := range by["events-import/payload"] {
		p, _ := json.Marshal(map[string]any{"output": s})
		file.WriteString(jsonLine(t, ev("own-d", "with a payload", "", p)))
	}
	rep, err := c.ImportEvents(ctx, "demo", strings.NewReader(file.String()))
	if err != nil {
		t.Fatalf("import events: %v", err)
	}
	if rep.Bad > 0 {
		t.Fatalf("import events: bad lines %v", rep.LineErrors)
	}
	add(rep.Redactions)
	return counts
}

package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd"
)

// writeTask writes files into a Cline task folder named id and returns
// the folder.
func writeTask(t *testing.T, id string, files map[string]any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tasks", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range files {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// conversation returns the prompts and answers among evs, in order.
func conversation(evs []ev) (prompts, answers []string) {
	for _, e := range evs {
		switch e.Type {
		case ragd.TypeChatMessage:
			prompts = append(prompts, e.Text)
		case ragd.TypeAgentResponse:
			answers = append(answers, e.Text)
		}
	}
	return prompts, answers
}

type m = map[string]any

// Issue 35 item 4: a ui_messages.json as Cline writes it today (the shapes
// of a real task's file): the task is the first message, a "say text";
// answers streamed as partial stay partial once the task moved on, and
// are shown; only a partial last message is being written. Counted as
// Cline shows them: one prompt, the visible texts and the result.
func TestCline_UIMessagesCountAsShown(t *testing.T) {
	dir := writeTask(t, "1769053680585", map[string]any{"ui_messages.json": []m{
		{"ts": 1769053680590, "type": "say", "say": "text", "text": "Secure the netcode and add DiscardCard.", "images": []string{}, "files": []string{}},
		{"ts": 1769053680600, "type": "say", "say": "api_req_started", "text": `{"request":"<task>x</task>"}`},
		{"ts": 1769053680700, "type": "say", "say": "reasoning", "text": "Read the action system.", "partial": true},
		{"ts": 1769053680800, "type": "say", "say": "text", "text": "I'll start with ActionSystem.cs.", "partial": true},
		{"ts": 1769053680900, "type": "say", "say": "tool", "text": `{"tool":"readFile","path":"ActionSystem.cs"}`},
		{"ts": 1769053681000, "type": "say", "say": "checkpoint_created"},
		{"ts": 1769053681100, "type": "say", "say": "task_progress", "text": "- [x] read"},
		{"ts": 1769053681200, "type": "say", "say": "text", "text": "Now", "partial": true},
		{"ts": 1769053681300, "type": "say", "say": "text", "text": "", "partial": true},
		{"ts": 1769053681400, "type": "say", "say": "text", "text": "All 41 tests passed.", "partial": true},
		{"ts": 1769053681500, "type": "say", "say": "completion_result", "text": "DiscardCard is in, the netcode checked."},
		{"ts": 1769053681600, "type": "ask", "ask": "completion_result", "text": ""},
		{"ts": 1769053681700, "type": "ask", "ask": "resume_completed_task"},
	}})
	evs, _, _, st := readPath(t, Cline, filepath.Join(dir, "ui_messages.json"), Options{})
	prompts, answers := conversation(evs)
	if len(prompts) != 1 || prompts[0] != "Secure the netcode and add DiscardCard." {
		t.Errorf("prompts %q, want the task alone", prompts)
	}
	want := []string{"I'll start with ActionSystem.cs.", "Now", "All 41 tests passed.", "DiscardCard is in, the netcode checked."}
	if strings.Join(answers, "|") != strings.Join(want, "|") {
		t.Errorf("answers %q, want %q: the visible ones", answers, want)
	}
	if st.Incomplete {
		t.Errorf("a finished task read as still being written")
	}
}

// Issue 35 item 4: api_conversation_history.json, the model's copy, read
// when it is the task's only file: the person's typed text (the task,
// feedback, answers to questions, a resumed task's message) and the
// model's visible text (text blocks without the tool calls and thinking
// written in them, the completion's result, a question asked); tool
// results, environment details and Cline's injected reminders are not
// conversation.
func TestCline_APIHistoryAlone(t *testing.T) {
	env := "<environment_details>\n# Current Working Directory (/home/dev/cards) Files\nBase.cs\n</environment_details>"
	dir := writeTask(t, "1769053680585", map[string]any{"api_conversation_history.json": []m{
		{"role": "user", "content": []m{
			{"type": "text", "text": "<task>\nSecure the netcode.\n</task>"},
			{"type": "text", "text": "\n# task_progress RECOMMENDED\n\nWhen starting a new task, include a todo list."},
			{"type": "text", "text": env},
		}},
		{"role": "assistant", "content": []m{
			{"type": "thinking", "thinking": "Start with the action system.", "signature": "x"},
			{"type": "text", "text": "\nI'll read ActionSystem.cs first."},
			{"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": m{"path": "ActionSystem.cs"}},
		}},
		{"role": "user", "content": []m{
			{"type": "text", "text": "[read_file for 'ActionSystem.cs'] Result:\nusing System;"},
			{"type": "text", "text": "\n\n\t\t\t\t# TODO LIST UPDATE REQUIRED - include task_progress"},
			{"type": "text", "text": env},
		}},
		// An older Cline: tools and thinking written in the text.
		{"role": "assistant", "content": []m{
			{"type": "text", "text": "<thinking>\nWhich file?\n</thinking>\n\nBase.cs holds the rules.\n\n<read_file>\n<path>Base.cs</path>\n</read_file>"},
		}},
		{"role": "user", "content": []m{
			{"type": "tool_result", "tool_use_id": "toolu_2", "content": "using UnityEngine;"},
			{"type": "text", "text": env},
		}},
		{"role": "assistant", "content": []m{
			{"type": "tool_use", "id": "toolu_3", "name": "ask_followup_question", "input": m{"question": "Keep Unity.Netcode only?"}},
		}},
		{"role": "user", "content": []m{
			{"type": "text", "text": "[ask_followup_question for 'Keep Unity.Netcode only?'] Result:\n<answer>\nyes, only that\n</answer>"},
			{"type": "text", "text": env},
		}},
		{"role": "assistant", "content": "<attempt_completion>\n<result>\nThe netcode is checked.\n</result>\n</attempt_completion>"},
		{"role": "user", "content": []m{
			{"type": "text", "text": "[attempt_completion] Result:\n\nThe user has provided feedback on the results. Consider their input.\n<feedback>\nadd DiscardCard too\n</feedback>"},
			{"type": "text", "text": env},
		}},
		{"role": "assistant", "content": []m{
			{"type": "text", "text": "Adding DiscardCard."},
			{"type": "tool_use", "id": "toolu_4", "name": "attempt_completion", "input": m{"result": "DiscardCard is in."}},
		}},
	}})
	evs, _, sessions, _ := readPath(t, Cline, filepath.Join(dir, "api_conversation_history.json"), Options{})
	prompts, answers := conversation(evs)
	wantP := []string{"Secure the netcode.", "yes, only that", "add DiscardCard too"}
	if strings.Join(prompts, "|") != strings.Join(wantP, "|") {
		t.Errorf("prompts %q, want %q", prompts, wantP)
	}
	wantA := []string{"I'll read ActionSystem.cs first.", "Base.cs holds the rules.", "Keep Unity.Netcode only?", "The netcode is checked.", "Adding DiscardCard.", "DiscardCard is in."}
	if strings.Join(answers, "|") != strings.Join(wantA, "|") {
		t.Errorf("answers %q, want %q", answers, wantA)
	}
	for _, e := range evs {
		if strings.Contains(e.Text, "environment_details") || strings.Contains(e.Text, "TODO LIST") {
			t.Errorf("event %s %s keeps injected text: %q", e.ID, e.Type, e.Text)
		}
	}
	if len(sessions) == 0 || sessions[0].ID != "cline:1769053680585" || sessions[0].Cwd != "/home/dev/cards" {
		t.Errorf("session %+v, want the task's, with its cwd", sessions)
	}
}

// Issue 35 item 4: beside a ui_messages.json the API history is the same
// conversation again: it is not read twice.
func TestCline_APIHistoryBesideUIMessages(t *testing.T) {
	dir := writeTask(t, "1769053680585", map[string]any{
		"ui_messages.json": []m{{"ts": 1769053680590, "type": "say", "say": "text", "text": "Secure the netcode."}},
		"api_conversation_history.json": []m{
			{"role": "user", "content": []m{{"type": "text", "text": "<task>\nSecure the netcode.\n</task>"}}},
		},
	})
	found, err := Discover(Cline, []string{filepath.Dir(dir)})
	if err != nil || len(found) != 2 {
		t.Fatalf("Discover: %v, %v; want both files of the task", found, err)
	}
	evs, _, _, st := readPath(t, Cline, filepath.Join(dir, "api_conversation_history.json"), Options{})
	if len(evs) != 0 || len(st.Skipped) == 0 {
		t.Errorf("events %v, skipped %v: want none, and the reason", evs, st.Skipped)
	}
}

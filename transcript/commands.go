package transcript

import "strings"

// A slash command the person typed is mechanism ("/init", "/model opus"),
// but the arguments of a command that sends them to the model as a request
// ("/orchestrator plan the queue", Aider's "/ask why?") are what the person
// typed: a prompt. Each tool's built-in commands whose arguments are
// settings (a model, a file, a session to resume) are listed below; other
// commands (the person's own, the tools' prompt commands) with arguments
// are prompts.

// splitSlash splits "/name args…" into the command's name (without the
// slash) and its arguments; ok is false when s is not a slash command.
func splitSlash(s string) (name, args string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "/") || len(s) < 2 {
		return "", "", false
	}
	name, args, _ = strings.Cut(s[1:], " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, args = name[:i], name[i+1:]+" "+args
	}
	if name == "" || strings.Contains(name, "/") {
		// "/usr/bin/env …", "// comment": a path, not a command.
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

// setOf makes a set of names.
func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// claudeSettingCommands are Claude Code's built-in commands; their
// arguments are settings, not requests.
var claudeSettingCommands = setOf("add-dir", "agents", "allowed-tools", "approved-tools", "bashes", "bug", "clear",
	"compact", "config", "context", "cost", "doctor", "exit", "export", "fast", "help", "hooks", "ide", "init",
	"install-github-app", "login", "logout", "mcp", "memory", "migrate-installer", "model", "output-style",
	"permissions", "plugin", "pr-comments", "privacy-settings", "release-notes", "rename", "resume", "review",
	"rewind", "sandbox", "status", "statusline", "tag", "terminal-setup", "theme", "todos", "upgrade", "usage", "vim")

// geminiSettingCommands are Gemini CLI's built-in commands.
var geminiSettingCommands = setOf("about", "auth", "bug", "chat", "clear", "compress", "copy", "corgi", "dir",
	"directory", "docs", "editor", "exit", "extensions", "help", "ide", "init", "mcp", "memory", "model",
	"permissions", "privacy", "quit", "restore", "settings", "setup-github", "stats", "terminal-setup", "theme",
	"tools", "vim")

// aiderPromptCommands are Aider's commands whose arguments are a request
// to the model; all its others take files, settings or shell commands.
var aiderPromptCommands = setOf("ask", "code", "architect", "context")

// commandPrompt returns the prompt a slash command carries: its arguments,
// when it has some and they are a request (settings names the commands
// whose arguments are not; prompts, if not nil, the only ones whose are).
func commandPrompt(text string, settings, prompts map[string]bool) (prompt string, ok bool) {
	name, args, isCmd := splitSlash(text)
	if !isCmd || args == "" || settings[name] || (prompts != nil && !prompts[name]) {
		return "", false
	}
	return args, true
}

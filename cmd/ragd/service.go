package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/kardianos/service"
)

var serviceCommand = command{
	name:    "service",
	summary: "per-user background service: service install|uninstall|start|stop|status",
	usage: `Usage: ragd service install|uninstall|start|stop|status [flags]

Run ragd serve as a per-user background service, through the platform's
manager (systemd --user, launchd, …): install registers this binary as
"ragd serve" (with --config, when given), restarted on failure; uninstall
removes it; start, stop and status do what they say.
`,
	examples: `  ragd service install && ragd service start
  ragd service status
  ragd service install --config ~/.config/ragd/work.toml
`,
	run: cmdService,
}

// program satisfies service.Interface; the service manager only needs it to
// build the unit: it runs `ragd serve`, which handles SIGTERM itself.
type program struct{}

func (program) Start(service.Service) error { return nil }
func (program) Stop(service.Service) error  { return nil }

func newService(e *env) (service.Service, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the ragd binary: %w", err)
	}
	args := []string{"serve"}
	if e.configPath != "" {
		args = append(args, "--config", e.configPath)
	}
	return service.New(program{}, &service.Config{
		Name:        "ragd",
		DisplayName: "ragd local search",
		Description: "Hybrid search over your projects' docs, ADRs and sessions, on a local socket.",
		Executable:  exe,
		Arguments:   args,
		Option:      service.KeyValue{"UserService": true, "Restart": "on-failure"},
	})
}

func cmdService(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("service takes one action: install, uninstall, start, stop or status")
	}
	s, err := newService(e)
	if err != nil {
		return err
	}
	action := pos[0]
	switch action {
	case "install", "uninstall", "start", "stop":
		if err := service.Control(s, action); err != nil {
			return serviceError(s, action, err)
		}
		if e.json {
			return e.printJSON(map[string]string{"action": action, "result": "ok"})
		}
		fmt.Fprintf(e.stdout, "service %s: ok\n", action)
		return nil
	case "status":
		st, err := s.Status()
		state := map[service.Status]string{service.StatusRunning: "running", service.StatusStopped: "stopped", service.StatusUnknown: "unknown"}[st]
		if errors.Is(err, service.ErrNotInstalled) {
			state, err = "not installed", nil
		}
		if err != nil {
			return serviceError(s, "status", err)
		}
		if e.json {
			return e.printJSON(map[string]string{"status": state, "platform": s.Platform()})
		}
		fmt.Fprintf(e.stdout, "service: %s (%s)\n", state, s.Platform())
		return nil
	default:
		return usagef("unknown service action %q: want install, uninstall, start, stop or status", action)
	}
}

// serviceError says why a service action failed in words a person can act
// on: what the service manager itself said (kardianos/service reports only
// "exit status 1"), and the next step.
func serviceError(s service.Service, action string, err error) error {
	said := managerSaid(s.Platform(), action)
	switch {
	case !strings.Contains(s.Platform(), "systemd") && strings.HasPrefix(s.Platform(), "unix-"):
		return fmt.Errorf("service %s: %s: no per-user service manager here (the one found is %s, which installs system-wide init scripts, not a service of yours). "+
			"Run `ragd serve` in the foreground, or from your session's startup", action, strings.TrimRight(err.Error(), ". "), s.Platform())
	case strings.Contains(said, "Failed to connect to bus") || strings.Contains(said, "No medium found"):
		return fmt.Errorf("service %s: no user service manager runs in this session (systemd --user said: %s). "+
			"Run `ragd serve` in the foreground, or from your session's startup; on a server, `loginctl enable-linger $USER` gives you one", action, said)
	case said != "":
		return fmt.Errorf("service %s: %v; the service manager said: %s. Next: `ragd service install` if it is not installed, "+
			"`journalctl --user -u ragd` for the daemon's log, or `ragd serve` in the foreground", action, err, said)
	}
	return fmt.Errorf("service %s: %w (a user service needs systemd --user, launchd, or another manager kardianos/service supports; `ragd serve` runs in the foreground anywhere)", action, err)
}

// managerSaid asks the platform's service manager about ragd's unit the way
// kardianos/service did, and returns what it printed, trimmed to a few
// lines; "" where there is nothing to ask.
func managerSaid(platform, action string) string {
	if !strings.Contains(platform, "systemd") {
		return ""
	}
	verb := action
	if action == "install" || action == "uninstall" {
		verb = "status"
	}
	ctx, cancel := context.WithTimeout(context.Background(), managerTimeout)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "systemctl", "--user", verb, "ragd.service").CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.Join(lines[:min(len(lines), 3)], " / ")
}

// managerTimeout bounds the question to the service manager: it answers at
// once or not at all.
const managerTimeout = 5 * time.Second

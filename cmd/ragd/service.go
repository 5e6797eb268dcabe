package main

import (
	"context"
	"errors"
	"fmt"
	"os"

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
			return fmt.Errorf("service %s: %w (a user service needs systemd --user, launchd, or another manager kardianos/service supports; `ragd serve` runs in the foreground anywhere)", action, err)
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
			return fmt.Errorf("service status: %w", err)
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

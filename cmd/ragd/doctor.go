package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/model"
)

var doctorCommand = command{
	name:    "doctor",
	summary: "check socket, database, sqlite-vec and the embedding provider",
	usage: `Usage: ragd doctor [flags]

Check the configuration file, the daemon's socket, the database and
sqlite-vec, and the embedding provider, and say how to fix what fails.
Without a daemon it still checks the provider as the daemon would. It
fails (exit 1) when a check fails.
`,
	examples: `  ragd doctor
  ragd doctor --json
`,
	run: cmdDoctor,
}

// check is one line of `ragd doctor`.
type check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

func cmdDoctor(ctx context.Context, e *env, args []string) error {
	fs := e.flags()
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	var checks []check
	add := func(c check) { checks = append(checks, c) }

	cfg, sources, paths, err := e.loadSources()
	if err != nil {
		add(check{Name: "config", Detail: err.Error(), Fix: "fix the file, or print a fresh one with `ragd config --defaults`"})
		return e.report(checks)
	}
	if _, statErr := os.Stat(paths.Config); statErr == nil {
		add(check{Name: "config", OK: true, Detail: paths.Config})
	} else {
		add(check{Name: "config", OK: true, Detail: "no file at " + paths.Config + ": defaults"})
	}

	for _, w := range permissionWarnings(paths.Database) {
		add(check{Name: "permissions", Detail: w, Fix: "keep ragd's files private to you (see the chmod above)"})
	}

	c := client.New(paths.Socket)
	defer c.Close()
	h, err := c.HealthChecked(ctx)
	var ce *client.Error
	if errors.As(err, &ce) && ce.Code == api.CodeDatabaseUnavailable {
		// The daemon answers; its database does not.
		add(check{Name: "socket", OK: true, Detail: "ragd answers on " + paths.Socket})
		add(check{Name: "database", Detail: ce.Message,
			Fix: "check the database server, the database and the role's privileges; ragd answers again once it is back"})
		return e.report(checks)
	}
	if err != nil {
		fix := "start it: `ragd serve` (foreground) or `ragd service install && ragd service start`"
		if !errors.Is(err, client.ErrNotRunning) {
			fix = "check the daemon's log"
		}
		add(check{Name: "socket", Detail: err.Error(), Fix: fix})
		// Without a daemon, still check the provider the daemon would
		// choose, and say why.
		choice := chooseProvider(ctx, cfg, sources)
		add(check{Name: "choice", OK: true, Detail: choice.why})
		svc, err := embedding.New(choice.cfg.Embedding.Service(nil), nil)
		if err != nil {
			add(check{Name: "provider", Detail: err.Error(), Fix: "fix [embedding] in " + paths.Config})
		} else {
			add(providerCheck(api.FromEmbeddingHealth(svc.Health(ctx))))
		}
		return e.report(checks)
	}
	add(check{Name: "socket", OK: true, Detail: fmt.Sprintf("ragd %s answers on %s", h.Version, paths.Socket)})
	add(mcpCheck(ctx, paths.Socket))
	add(check{Name: "database", OK: true, Detail: fmt.Sprintf("%s (schema %d, %d chunks of which %d lexical only, %.1f MB)",
		h.Database.Path, h.Database.SchemaVersion, h.Index.Vectors+h.Index.LexicalOnly, h.Index.LexicalOnly, float64(h.Index.FileBytes)/1e6)})
	// The engine says what it offers: sqlite-vec's version, checks of its
	// own.
	if h.Database.SqliteVec != "" {
		add(check{Name: "sqlite-vec", OK: true, Detail: h.Database.SqliteVec + ", vectors in space " + h.Database.Space})
	}
	for _, c := range h.Database.Checks {
		add(check{Name: c.Name, OK: c.OK, Detail: c.Detail, Fix: c.Fix})
	}
	add(providerCheck(h.Embedding))
	if h.Backfill != nil {
		add(check{Name: "vectors", OK: true, Detail: backfillText(h.Backfill)})
	}
	if h.Space != nil {
		add(spaceCheck(h.Space))
	}
	return e.report(checks)
}

// spaceCheck says how flat the embedding space is; a flat one is no
// failure (search answers), but the weighted default misranks in it.
func spaceCheck(p *api.SpaceProfile) check {
	c := check{Name: "space", OK: true, Detail: spaceText(p)}
	if p.WeightedUnreliable {
		c.Fix = "run `ragd calibrate`, or set fusion = \"rrf\" in [search] (`ragd config` says where the file is)"
	}
	return c
}

func providerCheck(h api.EmbeddingHealth) check {
	what := "ollama"
	switch h.Provider {
	case embedding.ProviderOpenAI:
		what = "openai-compatible server"
	case embedding.ProviderBuiltin:
		what = "built-in model (inside ragd)"
	}
	c := check{Name: "provider", OK: h.Available, Detail: fmt.Sprintf("%s at %s, model %s (%d dims)", what, h.Host, h.Model, h.Dims)}
	switch {
	case h.Version == "":
	case h.Provider == embedding.ProviderBuiltin && strings.Contains(h.Version, "@"+model.FolderRevision+"+"):
		c.Detail += ", weights " + h.Version + " (a local folder: not pinned)"
	case h.Provider == embedding.ProviderBuiltin:
		c.Detail += ", weights " + h.Version + " verified"
	default:
		c.Detail += ", ollama " + h.Version
	}
	switch {
	case h.Available:
	case h.Busy:
		// Up, but not answering now: typically embedding a reindex or the
		// background fill. Not a failure to fix.
		c.OK = true
		c.Detail += ": busy, not down: " + h.Reason
		c.Fix = "it is up but does not answer now (embedding a reindex?); searches meanwhile may answer lexical only; check again later"
	default:
		c.Detail += ": " + h.Reason
		c.Fix = serveHint(h) + "; until then search is lexical only"
	}
	return c
}

// serveHint is how to serve the configured embedding model, for a person
// whose provider does not answer.
func serveHint(h api.EmbeddingHealth) string {
	if h.Provider == embedding.ProviderBuiltin {
		return "install its weights once: `ragd model install` (or `ragd model install --from FOLDER|ARCHIVE|URL` offline)"
	}
	if h.Provider == embedding.ProviderOpenAI {
		return "start the server and load the model, or fix [embedding] base_url, model and the API key"
	}
	return "start Ollama (`ollama serve`) and pull the model (`ollama pull " + h.Model + "`), or set OLLAMA_HOST"
}

// report prints the checks and fails when one failed.
func (e *env) report(checks []check) error {
	failed := false
	for _, c := range checks {
		failed = failed || !c.OK
	}
	if e.json {
		e.printJSON(map[string]any{"ok": !failed, "checks": checks})
	} else {
		for _, c := range checks {
			mark := "ok  "
			if !c.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(e.stdout, "%s %-10s %s\n", mark, c.Name, c.Detail)
			if c.Fix != "" {
				fmt.Fprintf(e.stdout, "     %-10s → %s\n", "", c.Fix)
			}
		}
	}
	if failed {
		return errSilent
	}
	return nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	domain "github.com/ragd/ragd"
	"io"
	"time"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/model"
)

// providerProbe bounds the start-up check of whether Ollama answers: a
// local server answers its version in milliseconds.
const providerProbe = 2 * time.Second

// providerChoice is the embedding configuration a daemon starts with, why,
// and, when it was chosen rather than configured, the other one to fall
// back to if the database holds the other's vectors.
type providerChoice struct {
	cfg   daemon.Config
	why   string
	other *daemon.Config
}

// chooseProvider picks the embedding provider: a configured one always
// wins; with none configured, Ollama if it answers, else the built-in
// model if its weights are installed, else Ollama (search answers
// lexical-only until it is up, and says so).
func chooseProvider(ctx context.Context, cfg daemon.Config, sources daemon.Sources) providerChoice {
	if src := sources.Of("embedding.provider"); src != daemon.SourceDefault {
		return providerChoice{cfg: cfg, why: fmt.Sprintf("%s is configured (%s)", cfg.Embedding.Provider, src)}
	}
	builtin := cfg
	builtin.Embedding.UseBuiltin(sources)
	ollama := cfg
	host := cfg.Embedding.Host
	if svc, err := embedding.New(cfg.Embedding.Service(nil), nil); err == nil {
		host = svc.Provider().Endpoint()
		pctx, cancel := context.WithTimeout(ctx, providerProbe)
		_, err := svc.Provider().Version(pctx)
		cancel()
		if err == nil {
			return providerChoice{cfg: ollama, why: "no provider configured; ollama answers at " + host, other: &builtin}
		}
	}
	if builtinInstalled(builtin) {
		return providerChoice{cfg: builtin, why: "no provider configured and no ollama at " + host + ": the built-in model, installed", other: &ollama}
	}
	return providerChoice{cfg: ollama, why: "no provider configured, no ollama at " + host + ", and the built-in model is not installed (`ragd model install`)"}
}

// builtinInstalled reports whether cfg's built-in model has its files.
func builtinInstalled(cfg daemon.Config) bool {
	ec := cfg.Embedding.Service(nil)
	if ec.ModelPath != "" {
		_, err := model.ReadFolder(ec.ModelPath)
		return err == nil
	}
	spec, err := model.Lookup(ec.Model)
	if err != nil {
		return false
	}
	root := ec.ModelDir
	if root == "" {
		if root, err = model.DefaultDir(); err != nil {
			return false
		}
	}
	return spec.Installed(spec.Dir(root))
}

// isSpaceMismatch reports a database holding another space's vectors.
func isSpaceMismatch(err error) bool {
	return errors.Is(err, domain.ErrSpaceMismatch)
}

// modelDownloadOff is the model_url that forbids serve's download.
const modelDownloadOff = "off"

// fetchMissingModel starts, in the background, the install of the
// built-in model cfg configures when its files are missing and model_url
// is not "off": the daemon serves lexical search meanwhile, and the
// provider finds the files on its next use. The channel gets the install's
// outcome (nil at once when nothing was needed).
func fetchMissingModel(ctx context.Context, cfg daemon.Config, log io.Writer) <-chan error {
	done := make(chan error, 1)
	ec := cfg.Embedding.Service(nil)
	// A local model folder (model_path) is the user's: nothing to fetch.
	if ec.Provider != embedding.ProviderBuiltin || ec.ModelPath != "" || cfg.Embedding.ModelURL == modelDownloadOff || builtinInstalled(cfg) {
		done <- nil
		return done
	}
	spec, err := model.Lookup(ec.Model)
	if err != nil {
		done <- err
		return done
	}
	root := ec.ModelDir
	if root == "" {
		if root, err = model.DefaultDir(); err != nil {
			done <- err
			return done
		}
	}
	go func() {
		done <- model.Install(ctx, spec, spec.Dir(root), cfg.Embedding.ModelURL, log)
	}()
	return done
}

package embedding

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/ragd/ragd/api"

	ollama "github.com/ollama/ollama/api"
)

// healthProbe is the text Health embeds: one short sentence is enough to
// prove the model is pulled, loads, and answers with the expected dims.
const healthProbe = "ragd health check"

// Health checks the provider for real: it asks Ollama's version, then embeds
// a probe text (bypassing the cache), each bounded by Config.QueryTimeout.
// So it reports what a search would meet right now: Ollama down, the model
// not pulled, a model answering with other dims, or one too slow for a query
// (for example while it is still loading).
func (s *Service) Health(ctx context.Context) api.EmbeddingHealth {
	h := api.EmbeddingHealth{
		Provider:       "ollama",
		Host:           s.provider.host,
		Model:          s.cfg.Model,
		Dims:           s.space.Dims,
		Space:          s.space.String(),
		DocumentPrefix: s.docPrefix,
		QueryPrefix:    s.queryPrefix,
	}
	down := func(reason string) api.EmbeddingHealth {
		h.Reason = reason
		if ctx.Err() != nil {
			h.Reason = cancelled(ctx, Result{}).Reason
		}
		return h
	}
	if ctx.Err() != nil {
		return down("")
	}

	version, reason := s.version(ctx)
	if reason != "" {
		return down(reason)
	}
	h.Version = version

	if s.modelReason != "" {
		return down(s.modelReason)
	}
	o := s.batch(ctx, []*job{{sent: healthProbe}}, s.cfg.QueryTimeout)
	if o.reason != "" || ctx.Err() != nil {
		return down(o.reason)
	}
	h.Available = true
	return h
}

// version asks Ollama's version, or says why it could not.
func (s *Service) version(ctx context.Context) (version, reason string) {
	vctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	version, err := s.provider.version(vctx)
	if err == nil {
		return version, ""
	}
	var status ollama.StatusError
	if errors.As(err, &status) && status.StatusCode == http.StatusNotFound {
		// Every Ollama has /api/version: something else listens there.
		return "", fmt.Sprintf("no ollama API at %s (GET /api/version: HTTP 404)", s.provider.host)
	}
	f := s.provider.classify(vctx, s.cfg.QueryTimeout, err)
	s.log.Debug("ollama version check failed", "host", s.provider.host, "reason", f.reason, "err", err)
	return "", f.reason
}

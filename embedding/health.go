package embedding

import (
	"context"
	"sync/atomic"

	"github.com/ragd/ragd"
)

// healthProbe is the text Health embeds: one short sentence is enough to
// prove the model is pulled, loads, and answers with the expected dims.
const healthProbe = "ragd health check"

// Health checks the provider for real: it asks the server's version (a
// reachability probe), then embeds a probe text (bypassing the cache), each
// bounded by Config.QueryTimeout. So it reports what a search would meet
// right now: the server down, the model not pulled, a model answering with
// other dims, or one too slow for a query. A server that answered the first
// probe, or took the embedding request and stayed silent, or said it is
// overloaded (HTTP 429, 503) is reported Busy, not down: typically it is
// embedding a reindex, and answers again when that is done.
func (s *Service) Health(ctx context.Context) ragd.EmbeddingHealth {
	h := ragd.EmbeddingHealth{
		Provider:       s.provider.Name(),
		Host:           s.provider.Endpoint(),
		Model:          s.cfg.Model,
		Dims:           s.space.Dims,
		Space:          s.space.String(),
		DocumentPrefix: s.docPrefix,
		QueryPrefix:    s.queryPrefix,
	}
	down := func(reason string) ragd.EmbeddingHealth {
		h.Reason = reason
		if ctx.Err() != nil {
			h.Reason, h.Busy = cancelled(ctx, Result{}).Reason, false
		}
		return h
	}
	if ctx.Err() != nil {
		return down("")
	}
	version, f := s.version(ctx)
	if f.Reason != "" {
		h.Busy = f.Busy
		return down(f.Reason)
	}
	h.Version = version
	if s.modelReason != "" {
		return down(s.modelReason)
	}
	h.ContextLength = s.ContextLength(ctx)

	o := s.batch(withQuery(ctx), []*job{{sent: healthProbe}}, s.cfg.QueryTimeout)
	if o.reason != "" || ctx.Err() != nil {
		// Reachable a moment ago (the version answered): silence now is
		// a busy server.
		h.Busy = o.busy
		return down(o.reason)
	}
	h.Available = true
	return h
}

// version asks the server's version, or says why it could not.
func (s *Service) version(ctx context.Context) (string, Failure) {
	vctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	var sent atomic.Bool
	version, err := s.provider.Version(withSentFlag(vctx, &sent))
	if err == nil {
		return version, Failure{}
	}
	f := classify(s.provider, vctx, s.cfg.QueryTimeout, sent.Load(), err)
	s.log.Debug("provider version check failed", "endpoint", s.provider.Endpoint(), "reason", f.Reason, "err", err)
	return "", f
}

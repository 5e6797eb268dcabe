package search

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/ragd/ragd"
)

// record writes the search's telemetry row and returns its id, or nil when
// the write failed. A failure never fails the search, and never passes
// silently: it is logged at error level with the query.
func (s *Searcher) record(ctx context.Context, r request, resp *ragd.SearchResult) *int64 {
	// A fresh copy of the settings, marshalled now: the row keeps what this
	// search used whatever the configuration becomes.
	weights, err := json.Marshal(r.cfg.Weights())
	if err != nil {
		s.logger().Error("record search telemetry: encode weights", "err", err, "query", r.query.Text)
		return nil
	}
	hits := make([]ragd.TelemetryHit, len(resp.Hits))
	for i, h := range resp.Hits {
		hits[i] = ragd.TelemetryHit{ChunkID: h.ChunkID, Rank: h.Rank, Score: h.Score, VectorScore: h.VectorScore, LexicalScore: h.LexicalScore}
	}
	rec := ragd.SearchRecord{
		ProjectID:       r.ProjectID,
		Query:           r.query.Text,
		Scopes:          r.Scopes,
		Hits:            hits,
		Weights:         weights,
		Degraded:        resp.Degraded,
		VectorAvailable: resp.VectorAvailable,
		LatencyMs:       resp.LatencyMs,
		Actor:           string(r.Actor),
		SessionID:       r.SessionID,
		Purpose:         string(r.Purpose),
		CreatedAt:       s.now(),
	}
	// The search happened even if its caller has gone: keep the row, within
	// the budget of any writer.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryTimeout)
	defer cancel()
	recorder := s.Recorder
	if recorder == nil {
		recorder = s.Store
	}
	id, err := recorder.RecordSearch(ctx, rec)
	if err != nil {
		s.logger().Error("record search telemetry: the answer goes out with searchId null",
			"err", err, "query", r.query.Text, "project", r.ProjectID, "actor", r.Actor)
		return nil
	}
	return &id
}

func (s *Searcher) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default().With("system", "search")
}

func (s *Searcher) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

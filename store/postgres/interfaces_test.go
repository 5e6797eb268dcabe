package postgres

import (
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/search"
)

// What of engine.Store this half of the engine provides (the session half,
// AppendSession, Messages, transcripts and the rest, is in the session
// files); and no sqlite-vec version for doctor.
var (
	_ search.Store               = (*Store)(nil)
	_ index.BackfillStore        = (*Store)(nil)
	_ embedding.Cache            = (*Store)(nil)
	_ engine.ProjectStore        = (*Store)(nil)
	_ engine.StatsStore          = (*Store)(nil)
	_ engine.RunStore            = (*Store)(nil)
	_ engine.Checker             = (*Store)(nil)
	_ interface{ Close() error } = (*Store)(nil)
)

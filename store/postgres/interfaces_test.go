package postgres

import (
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/search"
)

// What of daemon.Store this half of the engine provides (the session half,
// AppendSession, Messages, transcripts and the rest, is in the session
// files); and no sqlite-vec version for doctor.
var (
	_ search.Store               = (*Store)(nil)
	_ index.BackfillStore        = (*Store)(nil)
	_ embedding.Cache            = (*Store)(nil)
	_ daemon.ProjectStore        = (*Store)(nil)
	_ daemon.StatsStore          = (*Store)(nil)
	_ daemon.RunStore            = (*Store)(nil)
	_ daemon.Checker             = (*Store)(nil)
	_ interface{ Close() error } = (*Store)(nil)
)

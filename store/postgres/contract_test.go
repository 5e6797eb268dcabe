package postgres

import (
	"github.com/ragd/ragd/index"
	ragdsearch "github.com/ragd/ragd/search"
)

// The engine's session methods have the contract's signatures: the
// interfaces that name them, as their packages declare them.
var (
	_ ragdsearch.PassageStore = (*Store)(nil)
	_ index.TranscriptStore   = (*Store)(nil)
	_ index.Store             = (*Store)(nil)
)

package postgres

import "github.com/ragd/ragd/store"

// TEMPORARY, for the lead to delete at merge. Branch contract moves these
// three types to package ragd (ragd.ForgetResult, ragd.SessionFilter,
// ragd.TranscriptFile, same fields); until it lands, the engine's session
// methods name them by these aliases of package store's. Once contract is
// merged: point the aliases at ragd's types, or delete this file and write
// ragd.X for X in forget.go, sessionlist.go and transcripts.go.
type (
	ForgetResult   = store.ForgetResult
	SessionFilter  = store.SessionFilter
	TranscriptFile = store.TranscriptFile
)

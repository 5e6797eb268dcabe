package postgres

import "github.com/ragd/ragd"

// TEMPORARY, for the lead to delete at merge. Branch contract moved these
// three types to package ragd (ragd.ForgetResult, ragd.SessionFilter,
// ragd.TranscriptFile, same fields); the engine's session methods still name
// them by these aliases. Delete this file and write ragd.X for X in
// forget.go, sessionlist.go and transcripts.go.
type (
	ForgetResult   = ragd.ForgetResult
	SessionFilter  = ragd.SessionFilter
	TranscriptFile = ragd.TranscriptFile
)

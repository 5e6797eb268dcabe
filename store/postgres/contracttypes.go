package postgres

import "github.com/ragd/ragd"

// TEMPORARY, for the lead to delete at merge. Branch contract moved these
// three types to package ragd; the engine's session methods name them by
// these aliases until forget.go, sessionlist.go and transcripts.go write
// ragd.X themselves. (Pointed at ragd's types by branch pgwire's merge, so
// the engine builds on main.)
type (
	ForgetResult   = ragd.ForgetResult
	SessionFilter  = ragd.SessionFilter
	TranscriptFile = ragd.TranscriptFile
)

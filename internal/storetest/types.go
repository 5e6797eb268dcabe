package storetest

import "github.com/ragd/ragd/store"

// The types the store interface still borrows from the SQLite engine. Branch
// `contract` moves them to package ragd (CONTRACT.md section 2): then these
// become ragd.ForgetResult, ragd.SessionFilter and ragd.TranscriptFile, and
// the suite no longer imports package store. Nothing else in the suite
// names package store.
type (
	ForgetResult   = store.ForgetResult
	SessionFilter  = store.SessionFilter
	TranscriptFile = store.TranscriptFile
)

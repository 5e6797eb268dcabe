package api

import "time"

// ProjectInfo is a project on the wire.
type ProjectInfo struct {
	ID          string    `json:"id"` // the short name
	Path        string    `json:"path"`
	AutoReindex bool      `json:"autoReindex"`
	CreatedAt   time.Time `json:"createdAt"`
	// Stale lists the scopes whose source moved since their last reindex.
	Stale []string `json:"stale"`
	// Language is the language the project's lexical index is analysed
	// with (english, russian, portuguese, spanish, german, french or
	// simple); "" before its first index when none is set.
	Language string `json:"language"`
	// LanguageSetting is the language set for the project; "" means
	// automatic: detected from the text at its first index.
	LanguageSetting string `json:"languageSetting"`
	// Settings are the project's own rules for where its docs are.
	Settings LayoutSettings `json:"settings"`
	// Layout is what the rules find in the repository now: in the answers
	// of add and of a change of settings, absent elsewhere.
	Layout *Layout `json:"layout,omitempty"`
}

// AddProjectRequest registers a git repository.
type AddProjectRequest struct {
	Path        string `json:"path"`           // any path inside the repository
	Name        string `json:"name,omitempty"` // short id; default from the folder name
	AutoReindex bool   `json:"autoReindex,omitempty"`
	// Language sets the language of the lexical index; default automatic.
	Language string `json:"language,omitempty"`
	// Settings are where the project's docs are, where the rules would not
	// find them (or find too much); default none.
	Settings *LayoutSettings `json:"settings,omitempty"`
}

// PatchProjectRequest changes a project's settings; absent fields stay.
type PatchProjectRequest struct {
	AutoReindex *bool `json:"autoReindex"`
	// Language sets the language of the lexical index ("" = automatic).
	// A change rebuilds the project's lexical index from its chunks, with
	// no re-embedding; it is refused (409) during a reindex.
	Language *string `json:"language,omitempty"`
	// Settings replace the project's rules for where its docs are, whole;
	// the next reindex reads by them.
	Settings *LayoutSettings `json:"settings,omitempty"`
}

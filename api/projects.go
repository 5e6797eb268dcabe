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
}

// AddProjectRequest registers a git repository.
type AddProjectRequest struct {
	Path        string `json:"path"`           // any path inside the repository
	Name        string `json:"name,omitempty"` // short id; default from the folder name
	AutoReindex bool   `json:"autoReindex,omitempty"`
}

// PatchProjectRequest changes a project's settings.
type PatchProjectRequest struct {
	AutoReindex *bool `json:"autoReindex"`
}

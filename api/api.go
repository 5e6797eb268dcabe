// Package api holds the wire types of ragd's socket: the request and
// response bodies of every route, the error shape and its codes, and the
// routes' paths. The daemon's handlers and the typed client in package
// client both use them; neither side declares its own. It imports only the
// domain package.
package api

import (
	"encoding/json"
	"net/url"
)

// ErrorBody is every error answer: {"error": {"code": "...", "message":
// "..."}}, with "details" added for the codes that have more to say. It is
// also the answer to a path that is not canonical (400: ., .., //, a
// trailing /) and to a route or method the API does not have (404, 405).
// The one exception is what net/http refuses before any handler runs, a
// malformed request line or header (a raw NUL in the path, headers over
// the size limit): its plain-text 400 or 431, and the connection closed.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail names an error with a stable code and a message for people.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Details carries what a client needs beyond the code, for some codes
	// only, and is absent otherwise: for CodeEventConflict it is the
	// AppendResult (appended, duplicates, conflicts) of the refused append.
	Details json.RawMessage `json:"details,omitempty"`
}

// Error codes of ErrorDetail.Code. A client branches on the code, never on
// the message, which is for people.
const (
	CodeBadRequest           = "bad_request"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodeExists               = "exists"
	CodeAlreadyRunning       = "already_running"
	CodeEventConflict        = "event_conflict"
	CodeBadRepository        = "bad_repository"
	CodeTooLarge             = "too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeShuttingDown         = "shutting_down"
	// CodeClientGone: the client went away before its answer was ready
	// (status 499); no one reads it but a log or a proxy.
	CodeClientGone = "client_gone"
	// CodeTimeout: the request body did not come within the read timeout.
	CodeTimeout = "timeout"
	// CodeDatabaseUnavailable: the database server could not be reached
	// (status 503); the same request may succeed once it is back.
	CodeDatabaseUnavailable = "database_unavailable"
	// CodeIndexCorrupt: the project's index was found corrupt on disk
	// (status 503); ragd reindex rebuilds it.
	CodeIndexCorrupt = "index_corrupt"
	CodeInternal     = "internal"
)

// Version is the API's path prefix: every route is under it.
const Version = "/v1"

// Paths of the routes that name no project.
const (
	PathHealth   = Version + "/health"
	PathProjects = Version + "/projects"
	PathFeedback = Version + "/feedback"
	PathMeasure  = Version + "/measure"
)

// ProjectPath is the path of a project's route: ProjectPath("demo",
// "/search") is /v1/projects/demo/search. The name is escaped; suffix is
// appended as is ("" for the project itself).
func ProjectPath(project, suffix string) string {
	return PathProjects + "/" + url.PathEscape(project) + suffix
}

// EventPath is the path of one event of a project's session log.
func EventPath(project, eventID string) string {
	return ProjectPath(project, "/events/"+url.PathEscape(eventID))
}

// ProjectList is the answer of GET /v1/projects.
type ProjectList struct {
	Projects []ProjectInfo `json:"projects"`
}

// Removed is the answer of DELETE /v1/projects/{project}.
type Removed struct {
	Removed string `json:"removed"`
	// TelemetrySearches and TelemetryVotes count the search telemetry rows
	// deleted with the project. Search ids are never reused.
	TelemetrySearches int `json:"telemetrySearches"`
	TelemetryVotes    int `json:"telemetryVotes"`
}

// HealthChecks is the health route's query parameter that asks for the
// engine's own checks too (ragd doctor): FTS5's integrity-check reads every
// project's lexical index, too dear for the health call every command makes.
const HealthChecks = "checks"

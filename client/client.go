// Package client is the only socket client of the ragd daemon: the ragd
// command, the MCP server, tests and benchmarks use it. It has one method per
// route, each taking a context first and returning the api package's types.
// Error answers come back as *Error, which matches the domain's sentinel
// errors (ragd.ErrNotFound, ragd.ErrInvalid, ...) with errors.Is; a socket
// nobody listens on is ErrNotRunning.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
)

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 1 << 20

// maxStreamLine bounds one line of a progress stream; a report with many
// skipped files is the longest.
const maxStreamLine = 16 << 20

// Client talks HTTP/1.1 + JSON to a daemon over its Unix socket. It is safe
// for concurrent use.
type Client struct {
	socket string
	http   *http.Client
}

// New returns a client of the daemon listening on socket.
func New(socket string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		MaxIdleConnsPerHost: 16,
	}
	// No client timeout: each call's deadline comes from its context, and a
	// reindex legitimately takes minutes.
	return &Client{socket: socket, http: &http.Client{Transport: tr}}
}

// Socket returns the socket path.
func (c *Client) Socket() string { return c.socket }

// Close releases idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Error is an error answer of the daemon: its HTTP status, the stable code
// (api.Code*) and the message for people.
type Error struct {
	Status  int
	Code    string
	Message string
	// Body is the whole answer, for error answers that carry more than the
	// message (error.details: the counts of an event conflict).
	Body json.RawMessage
}

func (e *Error) Error() string { return e.Message }

// Is matches e with the domain's sentinel errors by its code, so callers
// branch with errors.Is(err, ragd.ErrNotFound) whichever side failed.
func (e *Error) Is(target error) bool {
	switch target {
	case ragd.ErrNotFound:
		return e.Code == api.CodeNotFound
	case ragd.ErrInvalid:
		return e.Code == api.CodeBadRequest
	case ragd.ErrExists:
		return e.Code == api.CodeExists
	case ragd.ErrAlreadyRunning:
		return e.Code == api.CodeAlreadyRunning
	case ragd.ErrEventConflict:
		return e.Code == api.CodeEventConflict
	}
	return false
}

// ErrNotRunning means nothing listens on the socket.
var ErrNotRunning = errors.New("ragd daemon is not running")

// Health answers GET /v1/health.
func (c *Client) Health(ctx context.Context) (*api.Health, error) {
	return call[api.Health](ctx, c, http.MethodGet, api.PathHealth, nil)
}

// HealthChecked is Health with the engine's own checks (the database
// server, its extension and schema, FTS5's integrity), for ragd doctor.
func (c *Client) HealthChecked(ctx context.Context) (*api.Health, error) {
	return call[api.Health](ctx, c, http.MethodGet, api.PathHealth+"?"+api.HealthChecks+"=all", nil)
}

// Projects lists the registered projects.
func (c *Client) Projects(ctx context.Context) ([]api.ProjectInfo, error) {
	list, err := call[api.ProjectList](ctx, c, http.MethodGet, api.PathProjects, nil)
	if err != nil {
		return nil, err
	}
	return list.Projects, nil
}

// Project returns one project by name.
func (c *Client) Project(ctx context.Context, project string) (*api.ProjectInfo, error) {
	return call[api.ProjectInfo](ctx, c, http.MethodGet, api.ProjectPath(project, ""), nil)
}

// AddProject registers a git repository.
func (c *Client) AddProject(ctx context.Context, req api.AddProjectRequest) (*api.ProjectInfo, error) {
	return call[api.ProjectInfo](ctx, c, http.MethodPost, api.PathProjects, req)
}

// PatchProject changes a project's settings.
func (c *Client) PatchProject(ctx context.Context, project string, req api.PatchProjectRequest) (*api.ProjectInfo, error) {
	return call[api.ProjectInfo](ctx, c, http.MethodPatch, api.ProjectPath(project, ""), req)
}

// RemoveProject unregisters a project and deletes its index.
func (c *Client) RemoveProject(ctx context.Context, project string) (*api.Removed, error) {
	return call[api.Removed](ctx, c, http.MethodDelete, api.ProjectPath(project, ""), nil)
}

// Search runs a hybrid search in a project.
func (c *Client) Search(ctx context.Context, project string, req api.SearchRequest) (*api.SearchResponse, error) {
	return call[api.SearchResponse](ctx, c, http.MethodPost, api.ProjectPath(project, "/search"), req)
}

// SearchAllProjects searches every registered project with req, each on
// its own ranking statistics, and merges the hits by reciprocal rank (see
// MergeProjects), keeping the request's limit, or by default the
// limit the daemon's searches say they used, of the merged list. A
// project whose search fails is reported in Projects and left out. With
// req.Explain, each project's entry in Projects says what its search made
// of the query, and each hit why it was found. An error comes back only
// when the projects cannot be listed, or every search failed.
func (c *Client) SearchAllProjects(ctx context.Context, req api.SearchRequest) (*api.AllProjectsResponse, error) {
	projects, err := c.Projects(ctx)
	if err != nil {
		return nil, err
	}
	responses := make([]*api.SearchResponse, len(projects))
	errs := make([]error, len(projects))
	var wg sync.WaitGroup
	for i, p := range projects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			responses[i], errs[i] = c.Search(ctx, p.ID, req)
		}()
	}
	wg.Wait()
	out := &api.AllProjectsResponse{Fusion: api.FusionRRF, RRFK: AllProjectsRRFK, Projects: make([]api.ProjectSearch, len(projects))}
	limit, failed := 0, 0
	for i, p := range projects {
		ps := api.ProjectSearch{Project: p.ID, Stale: []string{}}
		if errs[i] != nil {
			ps.Error, failed = errs[i].Error(), failed+1
			out.Projects[i] = ps
			continue
		}
		r := responses[i]
		ps.SearchID, ps.Hits, ps.Degraded, ps.Reason, ps.VectorCoverage, ps.VectorAvailable = r.SearchID, len(r.Hits), r.Degraded, r.Reason, r.VectorCoverage, r.VectorAvailable
		ps.Explain = r.Explain
		if r.Stale != nil {
			ps.Stale = r.Stale
		}
		out.Projects[i] = ps
		// Each project's search used the daemon's default limit: the
		// merged list keeps that many, not the most one project found.
		// (A daemon that does not say gives the most hits one answered.)
		limit = max(limit, r.Limit, len(r.Hits))
	}
	if failed > 0 && failed == len(projects) {
		return nil, fmt.Errorf("search every project: %w", errors.Join(errs...))
	}
	if req.Limit != nil {
		limit = *req.Limit
	}
	out.Hits = MergeProjects(responses, AllProjectsRRFK, limit)
	return out, nil
}

// Feedback records a vote on one hit of one search.
func (c *Client) Feedback(ctx context.Context, req api.FeedbackRequest) (*api.Vote, error) {
	return call[api.Vote](ctx, c, http.MethodPost, api.PathFeedback, req)
}

// Reindex rebuilds scopes of a project and returns the report.
func (c *Client) Reindex(ctx context.Context, project string, req api.ReindexRequest) (*api.Report, error) {
	return call[api.Report](ctx, c, http.MethodPost, api.ProjectPath(project, "/reindex"), req)
}

// ReindexStream rebuilds scopes of a project, calling progress (if not nil)
// with each step as the daemon reports it, and returns the report. An error
// the daemon reports after the stream began (a failed scope, a shutdown)
// comes back as *Error with status 200, together with the report of what
// was done when the daemon has one.
func (c *Client) ReindexStream(ctx context.Context, project string, req api.ReindexRequest, progress func(api.Progress)) (*api.Report, error) {
	return stream[api.Progress, api.Report](ctx, c, api.ProjectPath(project, "/reindex"), req, progress)
}

// Coverage reports what a project's index covers against its sources.
func (c *Client) Coverage(ctx context.Context, project string) (*api.Coverage, error) {
	return call[api.Coverage](ctx, c, http.MethodGet, api.ProjectPath(project, "/coverage"), nil)
}

// AppendEvents appends events to a project's session log. Events refused as
// conflicts are in the result; when every event was refused the daemon
// answers 409 and the error is an *Error matching ragd.ErrEventConflict,
// returned together with the result (the counts and the conflicts).
func (c *Client) AppendEvents(ctx context.Context, project string, events []ragd.Event) (*api.AppendResult, error) {
	res, err := call[api.AppendResult](ctx, c, http.MethodPost, api.ProjectPath(project, "/events"), api.AppendEventsRequest{Events: events})
	var ce *Error
	if errors.As(err, &ce) && ce.Code == api.CodeEventConflict {
		var eb api.ErrorBody
		var details api.AppendResult
		if json.Unmarshal(ce.Body, &eb) == nil && json.Unmarshal(eb.Error.Details, &details) == nil {
			return &details, err
		}
	}
	return res, err
}

// ImportEvents uploads a session event file (JSON lines) to a project.
func (c *Client) ImportEvents(ctx context.Context, project string, file io.Reader) (*api.ImportReport, error) {
	path := api.ProjectPath(project, "/events/import")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://ragd"+path, file)
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := c.roundTrip(req)
	if err != nil {
		return nil, err
	}
	return decode[api.ImportReport](resp)
}

// Event returns one event of a project's session log, so that a session
// citation resolves.
func (c *Client) Event(ctx context.Context, project, id string) (*ragd.Event, error) {
	return call[ragd.Event](ctx, c, http.MethodGet, api.EventPath(project, id), nil)
}

// Passage resolves a citation into the whole section or message, with what
// surrounds it; see api.PassageQuery.
func (c *Client) Passage(ctx context.Context, project string, q api.PassageQuery) (*api.Passage, error) {
	return call[api.Passage](ctx, c, http.MethodGet, api.ProjectPath(project, "/passage")+q.Encode(), nil)
}

// ImportTranscripts imports a coding agent's transcripts, calling progress
// (if not nil) as files are done, and returns the report. Like
// ReindexStream, an error the daemon reports after the stream began comes
// back as *Error with status 200, with the report of what was done.
func (c *Client) ImportTranscripts(ctx context.Context, req api.TranscriptImportRequest, progress func(api.TranscriptProgress)) (*api.TranscriptReport, error) {
	return stream[api.TranscriptProgress, api.TranscriptReport](ctx, c, api.PathTranscriptsImport, req, progress)
}

// ForgetSession deletes one session of a project on purpose: its events
// and chunks. A later import does not bring it back.
func (c *Client) ForgetSession(ctx context.Context, project, sessionID string) (*api.Forgotten, error) {
	return call[api.Forgotten](ctx, c, http.MethodDelete, api.SessionPath(project, sessionID), nil)
}

// RedactSessions re-applies the daemon's redaction rules to the session
// text it stores, for project (a name or id) or, when "", every project.
func (c *Client) RedactSessions(ctx context.Context, project string) (*api.RedactReport, error) {
	return call[api.RedactReport](ctx, c, http.MethodPost, api.PathSessionsRedact, api.RedactRequest{Project: project})
}

// Sessions lists a project's sessions, the most recent first; see
// api.SessionsQuery.
func (c *Client) Sessions(ctx context.Context, project string, q api.SessionsQuery) (*api.SessionList, error) {
	return call[api.SessionList](ctx, c, http.MethodGet, api.ProjectPath(project, "/sessions")+q.Encode(), nil)
}

// Conversation returns one session of a project with all its events.
func (c *Client) Conversation(ctx context.Context, project, sessionID string) (*api.Conversation, error) {
	return call[api.Conversation](ctx, c, http.MethodGet, api.SessionPath(project, sessionID), nil)
}

// FollowStatus reports which transcripts the daemon follows.
func (c *Client) FollowStatus(ctx context.Context) (*api.FollowStatus, error) {
	return call[api.FollowStatus](ctx, c, http.MethodGet, api.PathTranscriptsFollow, nil)
}

// Measure reports on the search telemetry of a window; see api.MeasureQuery.
func (c *Client) Measure(ctx context.Context, q api.MeasureQuery) (*api.MeasureReport, error) {
	return call[api.MeasureReport](ctx, c, http.MethodGet, api.PathMeasure+q.Encode(), nil)
}

// stream posts body asking for a progress stream, calls progress (if not
// nil) with each progress line and returns the report of the last line. An
// error the daemon reports after the stream began comes back as *Error with
// status 200, with the report of what was done when there is one.
func stream[P, R any](ctx context.Context, c *Client, path string, body any, progress func(P)) (*R, error) {
	resp, err := c.send(ctx, http.MethodPost, path, body, "application/x-ndjson")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxStreamLine)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ev api.StreamEvent[P, R]
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("POST %s: decode stream line: %w", path, err)
		}
		switch {
		case ev.Error != nil:
			return ev.Report, &Error{Status: http.StatusOK, Code: ev.Error.Code, Message: ev.Error.Message}
		case ev.Report != nil:
			return ev.Report, nil
		case ev.Progress != nil && progress != nil:
			progress(*ev.Progress)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("POST %s: read stream: %w", path, err)
	}
	return nil, fmt.Errorf("POST %s: the stream ended without a report", path)
}

// call sends a JSON request (body may be nil) and decodes the JSON answer.
func call[T any](ctx context.Context, c *Client, method, path string, body any) (*T, error) {
	resp, err := c.send(ctx, method, path, body, "")
	if err != nil {
		return nil, err
	}
	return decode[T](resp)
}

func decode[T any](resp *http.Response) (*T, error) {
	defer resp.Body.Close()
	var out T
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("%s %s: decode answer: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return &out, nil
}

func (c *Client) send(ctx context.Context, method, path string, body any, accept string) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://ragd"+path, r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	return c.roundTrip(req)
}

func (c *Client) roundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && (errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)) {
			return nil, fmt.Errorf("%w (no answer on %s): start it with `ragd serve` or `ragd service start`", ErrNotRunning, c.socket)
		}
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, errorOf(resp.StatusCode, b)
	}
	return resp, nil
}

// errorOf decodes an error answer; a body not in the error shape becomes the
// message as it is.
func errorOf(status int, body []byte) *Error {
	var eb api.ErrorBody
	if json.Unmarshal(body, &eb) != nil || eb.Error.Message == "" {
		return &Error{Status: status, Code: http.StatusText(status), Message: string(bytes.TrimSpace(body)), Body: body}
	}
	return &Error{Status: status, Code: eb.Error.Code, Message: eb.Error.Message, Body: body}
}

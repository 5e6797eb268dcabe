package daemon

import (
	"context"
	"log/slog"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/search"
)

// Store is what the daemon needs of the engine that keeps its index: what
// search, passage resolution, the indexer, the background fill, transcript
// import and the embedding cache need, and the rest its routes call. The
// SQLite store (package store) is one; a second engine implements this
// and, where it can, the optional interfaces below (VecVersioner,
// Checker).
type Store interface {
	search.Store
	search.PassageStore
	index.Store
	index.BackfillStore
	index.TranscriptStore
	embedding.Cache
	ProjectStore
	SessionStore
	StatsStore
	RunStore
	// Close releases the engine; the daemon calls it last.
	Close() error
}

// ProjectStore registers, changes and finds projects.
type ProjectStore interface {
	Projects(ctx context.Context) ([]ragd.Project, error)
	// Project finds a project by name or path; an error wrapping
	// ragd.ErrNotFound when there is none.
	Project(ctx context.Context, nameOrPath string) (ragd.Project, error)
	// AddProject registers a project; an error wrapping ragd.ErrExists
	// when the name or path is taken.
	AddProject(ctx context.Context, name, path string) (ragd.Project, error)
	SetAutoReindex(ctx context.Context, projectID int64, on bool) error
	SetLayout(ctx context.Context, projectID int64, l ragd.Layout) error
	// RemoveProject deletes a project and everything stored of it.
	RemoveProject(ctx context.Context, projectID int64) (ragd.RemovedTelemetry, error)
	// SearchProject returns the project a recorded search was of.
	SearchProject(ctx context.Context, searchID int64) (ragd.Project, error)
}

// SessionStore lists, reads and forgets stored sessions.
type SessionStore interface {
	ListSessions(ctx context.Context, projectID int64, f ragd.SessionFilter) ([]ragd.SessionInfo, error)
	// SessionEvents returns a session's events in time order; an error
	// wrapping ragd.ErrNotFound when the project has no such session.
	SessionEvents(ctx context.Context, projectID int64, sessionID string) ([]ragd.Event, error)
	// ForgetSession deletes a session and remembers it was forgotten, so
	// that an import does not bring it back; an error wrapping
	// ragd.ErrNotFound when the project has no such session.
	ForgetSession(ctx context.Context, projectID int64, sessionID string) (ragd.ForgetResult, error)
}

// StatsStore describes the database, for the health route and the
// profile of the embedding space.
type StatsStore interface {
	// Path names the database as the health route shows it.
	Path() string
	SchemaVersion(ctx context.Context) (int, error)
	Stats(ctx context.Context) (api.IndexStats, error)
	// RandomPairCosine is the mean cosine of up to pairs random pairs of
	// stored vectors, and how many pairs it measured.
	RandomPairCosine(ctx context.Context, pairs int) (mean float64, n int, err error)
}

// RunStore is what the daemon does to index runs itself (the indexer
// starts and finishes them).
type RunStore interface {
	// AbandonRuns marks as failed the runs a killed daemon left running,
	// and counts them.
	AbandonRuns(ctx context.Context) (int, error)
}

// VecVersioner is an engine whose vectors live in sqlite-vec: the health
// route and ragd doctor show its version. An engine without it shows none.
type VecVersioner interface {
	VecVersion(ctx context.Context) (string, error)
}

// Checker is an engine with checks of its own for ragd doctor (a server's
// version, an extension, the schema): each is shown as one line of the
// report, and one that fails makes doctor fail.
type Checker interface {
	Checks(ctx context.Context) []api.DatabaseCheck
}

// EngineOptions are what the daemon opens its engine with.
type EngineOptions struct {
	// Space names the embedding space of the configured model; Dims is its
	// number of dimensions.
	Space string
	Dims  int
	// ResetSpace drops stored vectors of another space instead of refusing
	// to open.
	ResetSpace bool
	// Vectors is [search] vectors as configured: how an engine that can
	// choose stores its vectors ("quantized", "exact").
	Vectors string
	// Owner is whose rows the daemon writes and whose private sessions it
	// reads, on an engine several people share ([daemon] owner, else the
	// OS user); ShareSessions makes the sessions it writes everyone's
	// ([sessions] share). An engine of one person's file ignores both.
	Owner         string
	ShareSessions bool
	Logger        *slog.Logger
}

// Opener opens the engine that keeps database (a file's path or a URL),
// for Options.Open.
type Opener func(ctx context.Context, database string, opt EngineOptions) (Store, error)

// lockPath is the lock of paths' database: beside a SQLite file, so that
// one daemon at a time uses it; beside the socket for a database at a URL,
// which several daemons (one per person) share, so that one daemon at a
// time serves the socket and nothing is created where the URL would read
// as a folder.
func lockPath(paths Paths) string {
	if ragd.DatabaseScheme(paths.Database) != "" {
		return paths.Socket + ".lock"
	}
	return paths.Database + ".lock"
}

// DisplayDatabase is database as logs and errors show it: a URL without
// its password.
func DisplayDatabase(database string) string {
	if ragd.DatabaseScheme(database) == "" {
		return database
	}
	return ragd.DisplayURL(database)
}

// DefaultVectors is [search] vectors by default: the SQLite engine's
// quantized codes, searched fast and re-ranked exactly (store.VectorMode).
const DefaultVectors = "quantized"

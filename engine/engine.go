// Package engine is the contract of ragd's store engines: Store, the one
// interface every engine implements (the SQLite file of package store, the
// PostgreSQL database of store/postgres), and what opening one takes
// (Options, Opener). The daemon, eval, ragd-bench and the conformance suite
// (internal/storetest) use Store as it is; a consumer that needs less still
// names its own subset (search.Store, index.Store, embedding.Cache, …),
// which Store embeds, so the two cannot drift.
//
// The engines themselves are opened by package engines (engines.Open), which
// imports them; this package imports none, so that the suite and the daemon
// can name the contract without linking an engine, and no engine imports the
// layers above it (docs/adr/0008-package-layout.md).
package engine

import (
	"context"
	"log/slog"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/search"
)

// Store is the full contract of a store engine: what search, passage
// resolution, the indexer, the background fill, transcript import and the
// embedding cache need, the rest the daemon's routes call, and what eval
// reads. internal/storetest tests all of it, on every engine.
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
	CitationStore
	TelemetryStore
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

// SessionStore lists, reads, appends and forgets stored sessions.
type SessionStore interface {
	ListSessions(ctx context.Context, projectID int64, f ragd.SessionFilter) ([]ragd.SessionInfo, error)
	// SessionEvents returns a session's events in time order; an error
	// wrapping ragd.ErrNotFound when the project has no such session.
	SessionEvents(ctx context.Context, projectID int64, sessionID string) ([]ragd.Event, error)
	// ForgetSession deletes a session and remembers it was forgotten, so
	// that an import does not bring it back; an error wrapping
	// ragd.ErrNotFound when the project has no such session.
	ForgetSession(ctx context.Context, projectID int64, sessionID string) (ragd.ForgetResult, error)
	// AppendEvents is AppendSession without chunks.
	AppendEvents(ctx context.Context, projectID int64, events []ragd.Event) (ragd.AppendResult, error)
}

// StatsStore describes the database, for the health route and the
// profile of the embedding space.
type StatsStore interface {
	// Path names the database as the health route shows it.
	Path() string
	SchemaVersion(ctx context.Context) (int, error)
	Stats(ctx context.Context) (ragd.IndexStats, error)
	// RandomPairCosine is the mean cosine of up to pairs random pairs of
	// stored vectors, and how many pairs it measured.
	RandomPairCosine(ctx context.Context, pairs int) (mean float64, n int, err error)
	// IntegrityCheck checks the database's own consistency.
	IntegrityCheck(ctx context.Context) error
}

// RunStore is what the daemon does to index runs itself (the indexer
// starts and finishes them).
type RunStore interface {
	// AbandonRuns marks as failed the runs a killed daemon left running,
	// and counts them.
	AbandonRuns(ctx context.Context) (int, error)
	// Runs lists a project's last runs, newest first, up to limit.
	Runs(ctx context.Context, projectID int64, limit int) ([]ragd.Run, error)
}

// CitationStore is what resolving a golden file's citations reads of a
// project (eval.NewProjectResolver): its conversation messages and its
// chunks.
type CitationStore interface {
	Messages(ctx context.Context, projectID int64, types []string) ([]ragd.Message, error)
	ScopeChunks(ctx context.Context, projectID int64, scope string) ([]ragd.Chunk, error)
}

// TelemetryStore reads recorded searches and their votes back (judgments
// from telemetry, the browse view of a search).
type TelemetryStore interface {
	SearchTelemetry(ctx context.Context, f ragd.TelemetryFilter) (ragd.TelemetryWindow, error)
	LoadSearch(ctx context.Context, id int64) (ragd.SearchRecord, error)
	SearchVotes(ctx context.Context, searchID int64) ([]ragd.Vote, error)
}

// VecVersioner is an engine whose vectors live in sqlite-vec: the health
// route and ragd doctor show its version. An engine without it shows none.
type VecVersioner interface {
	VecVersion(ctx context.Context) (string, error)
}

// Checker is an engine with checks of its own for ragd doctor (a server's
// version, an extension, the schema): each is shown as one line of the
// report, and one that fails makes doctor fail. The health route runs
// them only when asked (its checks parameter): they may read a whole
// index.
type Checker interface {
	Checks(ctx context.Context) []ragd.DatabaseCheck
}

// VectorIndexWaiter is an engine that loads its vector index in the
// background (the SQLite store's quantized codes), searching exactly
// until then. An evaluation or a benchmark waits for it, so that every
// query is retrieved the same way; an engine without it is ready at once.
type VectorIndexWaiter interface {
	WaitVectorIndex(ctx context.Context) error
}

// Options are what an engine is opened with: one struct for every engine
// and every caller; an engine ignores what it has no use for.
type Options struct {
	// Space names the embedding space of the vectors (model/dims), e.g.
	// "nomic-embed-text/768"; Dims is its number of dimensions. Required:
	// the embedding package owns the default model, and an engine never
	// guesses one.
	Space string
	Dims  int
	// ResetSpace drops stored vectors of another space instead of refusing
	// to open.
	ResetSpace bool
	// Vectors is [search] vectors as configured: how an engine that can
	// choose searches its vectors ("quantized", "exact"; "" for the
	// engine's default). The PostgreSQL engine searches its HNSW index
	// whatever it says.
	Vectors string
	// QuantizeFrom is the number of a project's vectors from which a
	// quantized SQLite store searches it through its codes (0: the
	// engine's default).
	QuantizeFrom int
	// Owner is whose rows the daemon writes and whose private sessions it
	// reads, on an engine several people share ([daemon] owner, else the
	// OS user); ShareSessions makes the sessions it writes everyone's
	// ([sessions] share). An engine of one person's file ignores both.
	Owner         string
	ShareSessions bool
	// MaxConns is the connection pool of an engine on a server (0: the
	// URL's pool_max_conns, else the engine's default).
	MaxConns int32
	Logger   *slog.Logger
}

// Opener opens the engine that keeps database (a file's path or a URL).
type Opener func(ctx context.Context, database string, opt Options) (Store, error)

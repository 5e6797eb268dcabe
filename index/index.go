// Package index builds ragd's index of a project: the markdown documents and
// ADRs of its git repository (scopes docs and adr) and the messages of its
// session event log (scope session), as chunks with vectors in the store.
//
// A reindex is full and idempotent: it rebuilds each scope asked for from
// its source and replaces the scope in one short store transaction, so that
// searches see the old scope or the new one, never a mix, and a crash leaves
// the old one whole. Everything slow (reading git, chunking, embedding)
// happens before that transaction. A chunk whose source, position and text
// did not change keeps its id, and its vector: only new text is embedded.
//
// Every reindex says what it did in a ragd.IndexReport, and never claims a full index
// when vectors are missing. ragd.Coverage answers what the index covers now.
//
// The session event log is kept in the store too: AppendEvents and
// ImportEvents add to it, idempotently on the event id, and write the
// chunks of the new messages in the same transaction, so that they search
// lexically at once without a reindex (their vectors follow from the
// background fill). Event fetches one event so that a session citation
// resolves.
package index

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/source"
)

// Embedder embeds texts for indexing. *embedding.Service implements it: it
// never fails, it reports texts it could not embed with nil vectors and a
// reason. Reindex reads the Result's counts, Cause (the failure without
// counts: it counts over the whole scope itself) and ProviderDown (its
// breaker: once set, the rest of the reindex does not ask again); Backfill
// reads Unembeddable (texts the model refused for good, marked in the store
// so that neither asks for them again).
type Embedder interface {
	EmbedDocuments(ctx context.Context, texts []string) embedding.Result
	Space() embedding.Space
}

var _ Embedder = (*embedding.Service)(nil)

// Errors callers branch on (the daemon maps them to HTTP statuses). They are
// returned wrapped, with what failed on which input.
var (
	// ErrAlreadyRunning means a reindex of the project is in progress; the
	// error is a *RunningError saying since when.
	ErrAlreadyRunning = ragd.ErrAlreadyRunning
	// ErrUnknownScope means a scope name other than docs, adr, session or
	// all.
	ErrUnknownScope = errors.New("unknown scope")
	// ErrNotRepository means the project's path is not in a git repository.
	ErrNotRepository = source.ErrNotRepository
	// ErrNoCommits means the project's repository has nothing committed.
	ErrNoCommits = source.ErrNoCommits
	// ErrInvalidEvent means an event breaks the rules of the event format.
	ErrInvalidEvent = ragd.ErrInvalidEvent
	// ErrEventConflict means an event id is already stored with other
	// content.
	ErrEventConflict = ragd.ErrEventConflict
)

// RunningError is the error of a reindex refused because another reindex of
// the same project is running. It matches ErrAlreadyRunning.
type RunningError struct {
	Project string
	Since   time.Time
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("reindex of project %s already running since %s", e.Project, e.Since.Format(time.RFC3339))
}

// Is makes errors.Is(e, ErrAlreadyRunning) true.
func (e *RunningError) Is(target error) bool { return target == ErrAlreadyRunning }

// AllScopes is the scope name that stands for docs, adr and session.
const AllScopes = "all"

// noProviderReason is the embedding reason when no Embedder is configured.
const noProviderReason = "no embedding provider configured"

// LexicalRepairer is a store whose lexical index can be found corrupt on
// disk: RepairLexical rebuilds a project's when it is, and says whether it
// did. Reindex calls it before writing.
type LexicalRepairer interface {
	RepairLexical(ctx context.Context, projectID int64) (bool, error)
}

// Store is what an Indexer needs of the database: one transaction that
// replaces a scope's chunks, the record of index runs, what a scope holds
// now, and the session event log. *store.Store is one; a second store (or a
// test double) implements this and nothing else, without cgo.
type Store interface {
	ReplaceScope(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) (ragd.ReplaceResult, error)
	ChunkStates(ctx context.Context, projectID int64, scope string) (map[string]ragd.ChunkState, error)
	ScopeStats(ctx context.Context, projectID int64, scope string) (ragd.ScopeStats, error)
	StartRun(ctx context.Context, projectID int64, scope string) (ragd.Run, error)
	FinishRun(ctx context.Context, runID int64, status, commit string, report []byte) error
	LastRun(ctx context.Context, projectID int64, scope, status string) (ragd.Run, error)
	// AppendSession stores events and, in the same transaction, the chunks
	// of those it stores: chunks[i] are events[i]'s.
	AppendSession(ctx context.Context, projectID int64, events []ragd.Event, chunks [][]ragd.ChunkInput) (ragd.AppendResult, error)
	Event(ctx context.Context, projectID int64, id string) (ragd.Event, error)
	Messages(ctx context.Context, projectID int64, types []string) ([]ragd.Message, error)
	SessionStats(ctx context.Context, projectID int64, types []string, since time.Time) (ragd.SessionStats, error)
	// SetLanguage sets a project's language and rebuilds its lexical index
	// in it when that changes.
	SetLanguage(ctx context.Context, projectID int64, language string) (ragd.LanguageChange, error)
	// Space names the embedding space of the stored vectors.
	Space() string
	// RewriteSessions rewrites a project's stored session text in place
	// (a redaction pass).
	RewriteSessions(ctx context.Context, projectID int64, rw ragd.Rewriter) (ragd.RewriteResult, error)
}

// Indexer indexes projects into Store. Set its fields, then use it; it is
// safe for concurrent use, and must not be copied after first use.
type Indexer struct {
	// Store is where chunks, runs and session events are kept. Required.
	Store Store
	// Embedder computes vectors. Optional: nil indexes lexical only, with
	// the reason "no embedding provider configured".
	Embedder Embedder
	// InlineVectors is the most new vectors a reindex computes for a scope
	// before writing it. A scope that needs more is written at once,
	// lexical only, and its vectors are left to the background fill
	// (Backfill), so a first index of a year of sessions is searchable in
	// minutes rather than hours. Optional: 0 embeds every scope inline.
	InlineVectors int
	// Backfill is woken after a scope is written with chunks that lack a
	// vector. Optional.
	Backfill *Backfill
	// Chunking sets the chunk sizes. Optional: the zero value means
	// chunking.DefaultOptions().
	Chunking chunking.Options
	// Source tunes how documents are read (size limit, working tree).
	Source source.Options
	// Logger receives a line per scope indexed. Optional: slog.Default().
	Logger *slog.Logger
	// Now is the clock of reports and of "running since". Optional:
	// time.Now.
	Now func() time.Time

	mu      sync.Mutex
	running map[int64]time.Time // project id → start of its reindex
}

func (ix *Indexer) now() time.Time {
	if ix.Now != nil {
		return ix.Now()
	}
	return time.Now()
}

func (ix *Indexer) logger() *slog.Logger {
	if ix.Logger != nil {
		return ix.Logger
	}
	return slog.Default()
}

func (ix *Indexer) chunkOptions() (chunking.Options, error) {
	opt := ix.Chunking
	if opt == (chunking.Options{}) {
		opt = chunking.DefaultOptions()
	}
	if err := opt.Validate(); err != nil {
		return opt, fmt.Errorf("index: %w", err)
	}
	return opt, nil
}

// acquire marks a reindex of p as running, or returns a *RunningError.
func (ix *Indexer) acquire(p ragd.Project) (release func(), err error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if since, ok := ix.running[p.ID]; ok {
		return nil, &RunningError{Project: p.Name, Since: since}
	}
	if ix.running == nil {
		ix.running = map[int64]time.Time{}
	}
	ix.running[p.ID] = ix.now()
	return func() {
		ix.mu.Lock()
		defer ix.mu.Unlock()
		delete(ix.running, p.ID)
	}, nil
}

// Running reports whether a reindex of the project is in progress, and
// since when.
func (ix *Indexer) Running(projectID int64) (since time.Time, ok bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	since, ok = ix.running[projectID]
	return since, ok
}

// ParseScopes turns scope names into the scopes they name, in the order
// docs, adr, session, without repeats. No names, or "all", means every
// scope. An unknown name is an error wrapping ErrUnknownScope.
func ParseScopes(names []string) ([]string, error) {
	want := map[string]bool{}
	for _, n := range names {
		switch {
		case n == AllScopes:
			for _, s := range ragd.Scopes {
				want[s] = true
			}
		case ragd.ValidScope(n):
			want[n] = true
		default:
			return nil, fmt.Errorf("%w %q: want docs, adr, session or all", ErrUnknownScope, n)
		}
	}
	var out []string
	for _, s := range ragd.Scopes {
		if want[s] || len(names) == 0 {
			out = append(out, s)
		}
	}
	return out, nil
}

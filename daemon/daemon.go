// Package daemon is ragd's background service: it owns the store, the
// embedding service, the indexer and the searcher, and serves them as
// HTTP/1.1 + JSON on a Unix socket only its user can reach. It also watches
// each project's git HEAD and refs to mark scopes stale when they move.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/redact"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/source"
)

// Version is ragd's version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// shutdownTimeout bounds a graceful stop: in-flight searches finish well
// within it; a reindex is cancelled at once and leaves the old index whole.
const shutdownTimeout = 5 * time.Second

// Options configure a Daemon.
type Options struct {
	Config Config
	Paths  Paths
	// Open opens the engine that keeps the database ([daemon] database,
	// else Paths.Database), once the daemon holds its lock. Required: the
	// caller chooses the engine (cmd/ragd by the database's form).
	Open engine.Opener
	// ResetVectors drops stored vectors of another embedding space instead of
	// refusing to start (see engine.Options.ResetSpace).
	ResetVectors bool
	Logger       *slog.Logger
}

// Daemon is a running ragd service. Create it with Open, stop it with Close.
type Daemon struct {
	cfg   Config
	paths Paths
	// configModTime is when the configuration file was last changed as the
	// daemon started; nil without a file.
	configModTime *time.Time
	logger        *slog.Logger

	store    engine.Store
	embedder *embedding.Service
	indexer  *index.Indexer
	importer *index.Importer
	backfill *index.Backfill
	// stopBackfill ends the fill's loop early (tests whose answers must
	// not depend on its timing); backfillDone is closed when it ends.
	stopBackfill context.CancelFunc
	backfillDone chan struct{}
	searcher     *search.Searcher
	spaces       spaceProfiles
	watcher      *watcher
	follower     *follower

	// transcripts serialises the reading of transcript files (imports and
	// the follower), so that one file is never read into the store twice
	// at once.
	transcripts sync.Mutex

	ln      net.Listener
	limiter *limitListener
	limits  limits
	lock    *os.File
	srv     *http.Server

	// ctx is cancelled by Close: long work (reindex, streams) derives from
	// it as well as from its request, so shutdown cancels it at once.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	served chan error

	// narrated numbers the rag.* events the daemon appends to session logs,
	// so two in the same nanosecond still get distinct ids.
	narrated atomic.Int64
}

// Open starts a daemon: it takes the database's lock, opens the store
// with opt.Open, and listens on the socket. It returns once the socket
// accepts connections.
func Open(ctx context.Context, opt Options) (_ *Daemon, err error) {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.Open == nil {
		return nil, errors.New("open daemon: no engine to open the database with (Options.Open is nil)")
	}
	cfg, paths := opt.Config, opt.Paths
	if cfg.Daemon.Socket != "" {
		paths.Socket = cfg.Daemon.Socket
	}
	if cfg.Daemon.Database != "" {
		paths.Database = cfg.Daemon.Database
	}
	paths.Lock = lockPath(paths)
	// Logs are written: what they say is redacted like the database.
	opt.Logger = slog.New(redact.Handler(opt.Logger.Handler()))
	// The first import or append should not wait for the rules to compile.
	go redact.Load()
	d := &Daemon{cfg: cfg, paths: paths, limits: defaultLimits, logger: opt.Logger.With("system", "daemon"), served: make(chan error, 1)}
	if fi, err := os.Stat(paths.Config); err == nil {
		t := fi.ModTime().UTC()
		d.configModTime = &t
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			d.closeResources()
		}
	}()

	// The lock first: a second daemon must not even open the database.
	if d.lock, err = lockDatabase(paths.Lock, ragd.RedactDatabase(paths.Database), paths.Socket); err != nil {
		return nil, err
	}
	if d.ln, err = listen(paths.Socket); err != nil {
		return nil, err
	}
	idleWhenFull := d.limits.IdleWhenFull
	if idleWhenFull <= 0 {
		idleWhenFull = defaultIdleWhenFull
	}
	d.limiter = newLimitListener(d.ln, d.limits.MaxConns, idleWhenFull)

	space := embedding.SpaceFor(cfg.Embedding.Service(nil))
	st, err := opt.Open(ctx, paths.Database, engine.Options{
		Space: space.String(), Dims: space.Dims, ResetSpace: opt.ResetVectors, Logger: opt.Logger, Vectors: cfg.Search.Vectors,
		Owner: cfg.Daemon.Owner, ShareSessions: cfg.Sessions.Share,
	})
	if err != nil {
		return nil, err
	}
	d.store = st
	// Runs left "running" by a daemon that was killed will never finish:
	// we hold the lock, so no one else is running them.
	if n, err := d.store.AbandonRuns(ctx); err != nil {
		return nil, err
	} else if n > 0 {
		d.logger.Warn("marked interrupted index runs as failed", "runs", n)
	}
	d.embedder, err = embedding.New(cfg.Embedding.Service(opt.Logger), d.store)
	if err != nil {
		return nil, fmt.Errorf("embedding configuration: %w", err)
	}
	d.indexer = &index.Indexer{
		Store:    d.store,
		Embedder: d.embedder,
		Chunking: cfg.Chunking.Options(),
		Source:   source.Options{MaxFileBytes: cfg.Index.MaxFileBytes, WorkTree: cfg.Index.WorkTree, Layout: cfg.Index.layout()},
		Logger:   opt.Logger,

		InlineVectors: cfg.Index.InlineVectors,
	}
	// Chunks written without a vector (a large reindex, a provider that
	// was down, appended messages) get theirs in the background.
	d.backfill = &index.Backfill{Store: d.store, Embedder: d.embedder, Logger: opt.Logger}
	d.indexer.Backfill = d.backfill
	d.importer = &index.Importer{Store: d.store, Indexer: d.indexer, Lock: &d.transcripts,
		Stale: func(projectID int64) { d.watcher.schedule(projectID) }}
	scfg, err := cfg.Search.searchConfig()
	if err != nil {
		return nil, err
	}
	d.searcher = &search.Searcher{Store: d.store, Embedder: d.embedder, Config: scfg, Logger: opt.Logger,
		KeepFrequentTerms: !cfg.Search.PruneFrequentTerms, Baseline: d.baseline}

	d.watcher, err = newWatcher(d)
	if err != nil {
		return nil, err
	}
	if d.follower, err = newFollower(d); err != nil {
		return nil, fmt.Errorf("follow transcripts: %w", err)
	}
	d.srv = &http.Server{
		Handler:           d.Handler(),
		ReadHeaderTimeout: d.limits.ReadHeader,
		ReadTimeout:       d.limits.Read,
		WriteTimeout:      d.limits.Write,
		IdleTimeout:       d.limits.Idle,
		ConnState:         d.limiter.connState,
		BaseContext:       func(net.Listener) context.Context { return d.ctx },
		ErrorLog:          slog.NewLogLogger(d.logger.Handler(), slog.LevelWarn),
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		err := d.srv.Serve(d.limiter)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		d.served <- err
	}()
	bctx, stop := context.WithCancel(d.ctx)
	d.stopBackfill, d.backfillDone = stop, make(chan struct{})
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer close(d.backfillDone)
		d.backfill.Run(bctx) // resumes the queue a previous run left
	}()
	d.logger.Info("listening", "socket", paths.Socket, "database", ragd.RedactDatabase(paths.Database), "space", space.String(), "version", Version)
	return d, nil
}

// Done returns a channel that receives the server's exit error (nil after
// Close).
func (d *Daemon) Done() <-chan error { return d.served }

// Socket returns the path the daemon listens on.
func (d *Daemon) Socket() string { return d.paths.Socket }

// Store returns the daemon's engine, for tests and tools in this process.
func (d *Daemon) Store() engine.Store { return d.store }

// Close stops the daemon: no new connections, in-flight requests get
// shutdownTimeout to finish, a running reindex is cancelled (its
// transaction rolls back, the old index stays whole), the socket is removed
// and the lock released.
func (d *Daemon) Close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	// Cancel long work first, so Shutdown does not wait on a reindex.
	d.cancel()
	var errs []error
	// Stop the watcher before waiting: its loop and its auto-reindex timers
	// are counted in d.wg, and its loop ends only when it is closed.
	if d.watcher != nil {
		errs = append(errs, d.watcher.close())
	}
	if d.follower != nil {
		errs = append(errs, d.follower.close())
	}
	if d.srv != nil {
		if err := d.srv.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shutdown: %w", err))
			d.srv.Close()
		}
	}
	d.wg.Wait()
	errs = append(errs, d.closeResources())
	d.logger.Info("stopped")
	return errors.Join(errs...)
}

func (d *Daemon) closeResources() error {
	var errs []error
	if d.cancel != nil {
		d.cancel()
	}
	if d.watcher != nil {
		errs = append(errs, d.watcher.close())
	}
	if d.follower != nil {
		errs = append(errs, d.follower.close())
	}
	if d.ln != nil {
		d.ln.Close()
		if err := os.Remove(d.paths.Socket); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if d.store != nil {
		errs = append(errs, d.store.Close())
	}
	if d.lock != nil {
		errs = append(errs, d.lock.Close())
	}
	return errors.Join(errs...)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/internal/vectest"
)

// Bounds of a load run: it is a benchmark a person or a test starts, and
// must end on its own whatever its flags say.
const (
	maxLoadDuration = 10 * time.Minute
	maxLoadClients  = 64
	maxLoadSearches = 1_000_000
	// loadProject names the project a BEIR corpus is indexed as.
	loadProject = "load"
	// reindexProject names the synthetic corpus's second project, the
	// generated repository its reindex loop reindexes.
	reindexProject = "reindex"
	// reindexDocs and reindexSections size that repository: a project of
	// docs about a thousand chunks, so that each reindex walks its tree,
	// compares every document and writes the one that changed.
	reindexDocs, reindexSections = 200, 5
	// writerSession is the followed session the writer appends to.
	writerSession = "load-writer"
	// writerChars is about an agent message's length.
	writerChars = 1000
)

// loadResult is the one JSON line a load run prints.
type loadResult struct {
	Engine  string `json:"engine"`
	Corpus  string `json:"corpus"`
	Project string `json:"project"`
	Chunks  int    `json:"chunks"`
	// Provider is the embedding provider ("none": lexical only).
	Provider string  `json:"provider"`
	Clients  int     `json:"clients"`
	Writer   bool    `json:"writer"`
	Reindex  bool    `json:"reindex"`
	Seconds  float64 `json:"seconds"`
	Searches int     `json:"searches"`
	// Errors counts failed searches and answers without hits; FirstError
	// is the first of them.
	Errors     int    `json:"errors"`
	FirstError string `json:"firstError,omitempty"`
	// Degraded counts answers from the keyword half alone (no query
	// vector in time, or no provider); Reasons counts them by reason.
	Degraded int            `json:"degraded"`
	Reasons  map[string]int `json:"degradedReasons,omitempty"`
	P50      float64        `json:"p50Ms"`
	P95      float64        `json:"p95Ms"`
	P99      float64        `json:"p99Ms"`
	Max      float64        `json:"maxMs"`
	PerSec   float64        `json:"searchesPerSec"`
	// Appends counts the writer's appends of AppendSize messages each.
	Appends       int     `json:"appends"`
	AppendSize    int     `json:"appendSize"`
	AppendsPerSec float64 `json:"appendsPerSec"`
	AppendErrors  int     `json:"appendErrors"`
	Reindexes     int     `json:"reindexes"`
	// SearchIDs counts answers with a searchId; TelemetryRows the rows the
	// store recorded meanwhile: equal when every search was recorded once.
	SearchIDs     int `json:"searchIds"`
	TelemetryRows int `json:"telemetryRows"`
	// CPUMsPerSearch is this process's CPU (daemon, clients, writer) over
	// the run, per search.
	CPUMsPerSearch float64 `json:"cpuMsPerSearch"`
	// Load1 is the machine's 1-minute load average at the start and end.
	Load1 [2]float64 `json:"load1"`
}

type loadFlags struct {
	db, work, beir, provider, host, model string
	n, clients, searches, appendSize      int
	dims                                  int
	duration, queryTimeout                time.Duration
	appendRate                            float64
	writer, reindex, keep                 bool
	// spaceGiven: -model or -dims was given, naming the space of a
	// synthetic corpus built otherwise (-db).
	spaceGiven                        bool
	vectors, cpuProfile, blockProfile string
	batch, concurrency                int
}

// loadCmd runs a daemon in this process over a corpus and measures
// clients searching over its socket, with a writer appending to a session
// and a reindex loop if asked, for a bounded time.
func loadCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	var f loadFlags
	fs.StringVar(&f.db, "db", "", "database: a SQLite file's path (default: WORK/ragd.db) or a postgres:// URL")
	fs.StringVar(&f.work, "work", "", "folder for the daemon's files and the BEIR repository, kept for the next run (default: a new folder, removed)")
	fs.StringVar(&f.beir, "beir", "", "a BEIR folder (SciFact): its corpus is indexed through the socket as project \"load\" (once per -work), its queries searched")
	fs.IntVar(&f.n, "n", 0, "or: the synthetic corpus of N chunks (ragd-bench build, cached; copied for the run), searched with random vectors")
	fs.IntVar(&f.clients, "clients", 8, "concurrent clients, each on its own connection")
	fs.DurationVar(&f.duration, "duration", 15*time.Second, "how long the clients search (at most 10m)")
	fs.IntVar(&f.searches, "searches", 0, "stop after this many searches (0: the duration alone)")
	fs.BoolVar(&f.writer, "writer", false, "a followed session appending -append-size messages a loop meanwhile")
	fs.IntVar(&f.appendSize, "append-size", 10, "messages per append")
	fs.Float64Var(&f.appendRate, "append-rate", 0, "appends per second at most (0: as fast as the daemon takes them)")
	fs.BoolVar(&f.reindex, "reindex", false, "a loop committing a document and reindexing docs meanwhile (-beir: its corpus; -n: a generated repository of a second project)")
	fs.StringVar(&f.provider, "provider", "ollama", "embedding provider: ollama, openai, or none (lexical only); -n serves random vectors itself")
	fs.StringVar(&f.host, "host", "http://127.0.0.1:11500", "the provider's URL: Ollama's host, or an OpenAI-compatible base URL (…/v1)")
	fs.StringVar(&f.model, "model", "glove-100d", "embedding model (-n: the synthetic corpus's own unless given)")
	fs.IntVar(&f.dims, "dims", 100, "embedding dims")
	fs.DurationVar(&f.queryTimeout, "query-timeout", 0, "[embedding] query_timeout (0: the default)")
	fs.IntVar(&f.batch, "batch", 0, "[embedding] batch_size (0: the default)")
	fs.IntVar(&f.concurrency, "concurrency", 0, "[embedding] concurrency (0: the default)")
	fs.StringVar(&f.vectors, "vectors", "", "[search] vectors (SQLite): exact or quantized (default: the daemon's)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the run (daemon and clients) to this file")
	fs.StringVar(&f.blockProfile, "blockprofile", "", "write a profile of where goroutines waited (blocking and mutexes) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	fs.Visit(func(fl *flag.Flag) { f.spaceGiven = f.spaceGiven || fl.Name == "model" || fl.Name == "dims" })
	if err := f.check(); err != nil {
		return err
	}
	ctx := context.Background()
	r, err := runLoadCmd(ctx, f)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(r)
}

func (f *loadFlags) check() error {
	switch {
	case (f.beir == "") == (f.n == 0):
		return errors.New("load: give -beir DIR or -n CHUNKS")
	case f.n < 0:
		return fmt.Errorf("load: -n %d: want a number of chunks", f.n)
	case f.clients < 1 || f.clients > maxLoadClients:
		return fmt.Errorf("load: -clients %d: want 1 to %d", f.clients, maxLoadClients)
	case f.duration <= 0 || f.duration > maxLoadDuration:
		return fmt.Errorf("load: -duration %s: want more than 0 and at most %s", f.duration, maxLoadDuration)
	case f.searches < 0 || f.searches > maxLoadSearches:
		return fmt.Errorf("load: -searches %d: want 0 to %d", f.searches, maxLoadSearches)
	case f.appendSize < 1 || f.appendSize > 100:
		return fmt.Errorf("load: -append-size %d: want 1 to 100", f.appendSize)
	case f.appendRate < 0 || f.appendRate > 1000:
		return fmt.Errorf("load: -append-rate %v: want 0 to 1000", f.appendRate)
	}
	if f.searches == 0 {
		f.searches = maxLoadSearches
	}
	if err := checkDB(f.db); err != nil {
		return err
	}
	switch f.provider {
	case "ollama", "openai", "none":
	default:
		return fmt.Errorf("load: -provider %q: want ollama, openai or none", f.provider)
	}
	if f.provider != "none" {
		if err := loopback(f.host); err != nil {
			return err
		}
	}
	return nil
}

// loopback refuses a provider that is not on this machine: a load run
// sends thousands of requests a minute.
func loopback(host string) error {
	h := host
	if i := strings.Index(h, "://"); i >= 0 {
		h = h[i+3:]
	}
	h, _, _ = strings.Cut(h, "/")
	if name, _, err := net.SplitHostPort(h); err == nil {
		h = name
	}
	if h == "localhost" {
		return nil
	}
	if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("load: -host %s: want a provider on this machine (127.0.0.1, ::1 or localhost)", host)
}

// loadSetup is a daemon ready to be searched and what to search it with.
type loadSetup struct {
	d       *daemon.Daemon
	project string
	chunks  int
	queries []string
	repo    string // the repository of the reindex loop
	// reindexed is the project the reindex loop reindexes: the BEIR
	// corpus's own, or the synthetic corpus's second project.
	reindexed string
	corpus    string
	closers   []func()
}

func (s *loadSetup) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

func runLoadCmd(ctx context.Context, f loadFlags) (*loadResult, error) {
	work := f.work
	if work == "" {
		dir, err := os.MkdirTemp("/tmp", "ragd-load")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	s, err := setUp(ctx, f, work)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return measureLoad(ctx, f, s)
}

// daemonConfig is the configuration of the load's daemon.
func daemonConfig(f loadFlags) daemon.Config {
	cfg := daemon.DefaultConfig()
	switch f.provider {
	case "openai":
		cfg.Embedding.Provider, cfg.Embedding.BaseURL = "openai", f.host
	case "none":
		// An address where nothing listens: every query is answered by the
		// keyword half, as when the provider is down.
		cfg.Embedding.Host = "http://127.0.0.1:1"
	default:
		cfg.Embedding.Host = f.host
	}
	cfg.Embedding.Model, cfg.Embedding.Dims = f.model, f.dims
	if f.queryTimeout > 0 {
		cfg.Embedding.QueryTimeout = daemon.Duration{Duration: f.queryTimeout}
	}
	if f.batch > 0 {
		cfg.Embedding.BatchSize = f.batch
	}
	if f.concurrency > 0 {
		cfg.Embedding.Concurrency = f.concurrency
	}
	if f.vectors != "" {
		cfg.Search.Vectors = f.vectors
	}
	// The corpus is embedded before the run; the writer's messages by the
	// background fill, as a followed session's are.
	cfg.Index.InlineVectors = 0
	return cfg
}

func setUp(ctx context.Context, f loadFlags, work string) (*loadSetup, error) {
	s := &loadSetup{}
	db := f.db
	if f.n > 0 {
		// The synthetic corpus: a copy of the cached one (the run writes
		// telemetry and appends), random vectors of its space from a
		// provider in this process.
		if !f.spaceGiven {
			f.model, f.dims = strings.TrimSuffix(space, "/768"), dims
		}
		if f.provider != "none" {
			srv, err := startRandomProvider()
			if err != nil {
				return nil, err
			}
			s.closers = append(s.closers, func() { srv.Close() })
			f.provider, f.host = "openai", "http://"+srv.Listener.Addr().String()+"/v1"
		}
		s.project, s.corpus = "bench", fmt.Sprintf("synthetic %d", f.n)
		s.queries = syntheticQueries()
		if f.reindex {
			s.repo, s.reindexed = filepath.Join(work, "reindex-repo"), reindexProject
			if _, err := os.Stat(filepath.Join(s.repo, ".git")); err != nil {
				if err := writeReindexRepo(s.repo, s.queries); err != nil {
					return nil, err
				}
			}
		}
		if db == "" {
			cache, err := cacheDir()
			if err != nil {
				return nil, err
			}
			src := corpusPath(cache, f.n)
			if _, err := readBuild(src); err != nil {
				return nil, fmt.Errorf("load: no synthetic corpus of %d chunks in %s: build it first (ragd-bench -sizes %d): %w", f.n, filepath.Dir(src), f.n, err)
			}
			db = filepath.Join(work, "ragd.db")
			if err := copyDB(src, db); err != nil {
				return nil, err
			}
		}
	} else {
		b, err := eval.LoadBEIR(f.beir, "")
		if err != nil {
			return nil, err
		}
		for _, q := range b.Set.Judged() {
			s.queries = append(s.queries, q.Text)
		}
		s.project, s.corpus = loadProject, "beir "+b.Name
		s.repo, s.reindexed = filepath.Join(work, "repo"), loadProject
		if _, err := os.Stat(filepath.Join(s.repo, ".git")); err != nil {
			in, err := b.OpenCorpus()
			if err != nil {
				return nil, err
			}
			_, err = eval.WriteBEIRRepo(ctx, in, s.repo)
			in.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	if len(s.queries) == 0 {
		return nil, errors.New("load: no queries")
	}
	if f.beir != "" && db == "" {
		// Every run starts from the same index: WORK/base-SPACE.db, indexed
		// once, copied for the run (the writer's appends stay in the copy).
		// One per embedding space (none: lexical only).
		name := "lexical"
		if f.provider != "none" {
			name = strings.NewReplacer("/", "_", ":", "_").Replace(fmt.Sprintf("%s-%d", f.model, f.dims))
		}
		base := filepath.Join(work, "base-"+name+".db")
		if _, err := os.Stat(base + ".indexed"); err != nil {
			if err := indexBEIR(ctx, f, work, base, s.repo); err != nil {
				return nil, err
			}
		}
		db = filepath.Join(work, "run.db")
		if err := copyDB(base, db); err != nil {
			return nil, err
		}
	}
	d, err := openDaemon(ctx, f, work, db)
	if err != nil {
		s.close()
		return nil, err
	}
	s.d = d
	s.closers = append(s.closers, func() { d.Close(context.Background()) })
	st, err := d.Store().Stats(ctx)
	if err != nil {
		s.close()
		return nil, err
	}
	for _, n := range st.Chunks {
		s.chunks += n
	}
	// A serving daemon's figures: its vector index loaded (searches scan
	// exactly until then), and its first search's one-time work (the
	// space's profile) done.
	if w, ok := d.Store().(engine.VectorIndexWaiter); ok {
		if err := w.WaitVectorIndex(ctx); err != nil {
			s.close()
			return nil, err
		}
	}
	cl := client.New(d.Socket())
	defer cl.Close()
	if s.reindexed == reindexProject {
		if err := addReindexProject(ctx, cl, s.repo); err != nil {
			s.close()
			return nil, err
		}
	}
	if _, err := cl.Search(ctx, s.project, api.SearchRequest{Query: s.queries[0]}); err != nil {
		s.close()
		return nil, fmt.Errorf("load: first search: %w", err)
	}
	return s, nil
}

// indexBEIR indexes the BEIR repository into base through a daemon's
// socket, then closes the daemon and marks base complete.
func indexBEIR(ctx context.Context, f loadFlags, work, base, repo string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(base + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	d, err := openDaemon(ctx, f, work, base)
	if err != nil {
		return err
	}
	defer d.Close(context.Background())
	cl := client.New(d.Socket())
	defer cl.Close()
	fmt.Fprintf(os.Stderr, "indexing %s through the socket …\n", f.beir)
	if _, err := cl.AddProject(ctx, api.AddProjectRequest{Path: repo, Name: loadProject}); err != nil {
		return err
	}
	rep, err := cl.Reindex(ctx, loadProject, api.ReindexRequest{})
	if err != nil {
		return err
	}
	if !rep.Complete && f.provider != "none" {
		return fmt.Errorf("load: index of %s incomplete: %s", f.beir, rep.Summary)
	}
	if err := d.Close(ctx); err != nil {
		return err
	}
	return os.WriteFile(base+".indexed", []byte(f.provider+" "+f.model+"\n"), 0o600)
}

// openDaemon opens a daemon configured by f on db, with its files in work.
func openDaemon(ctx context.Context, f loadFlags, work, db string) (*daemon.Daemon, error) {
	cfg := daemonConfig(f)
	paths := daemon.Paths{
		Config:     filepath.Join(work, "config.toml"),
		Database:   db,
		RuntimeDir: filepath.Join(work, "run"),
		Socket:     filepath.Join(work, "run", "ragd.sock"),
		Lock:       db + ".lock",
		StateDir:   filepath.Join(work, "state"),
		CacheDir:   filepath.Join(work, "cache"),
	}
	if isURL(db) {
		paths.Lock = paths.Socket + ".lock"
	}
	logger := slog.New(slog.DiscardHandler)
	if lvl := os.Getenv("RAGD_LOAD_LOG"); lvl != "" {
		var l slog.Level
		if err := l.UnmarshalText([]byte(lvl)); err != nil {
			return nil, fmt.Errorf("RAGD_LOAD_LOG=%q: %w", lvl, err)
		}
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
	}
	return daemon.Open(ctx, daemon.Options{Config: cfg, Paths: paths, Open: engines.Open, Logger: logger})
}

// copyDB copies a SQLite database and its write-ahead log.
func copyDB(src, dst string) error {
	for _, suffix := range []string{"", "-wal"} {
		in, err := os.Open(src + suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			return err
		}
		out, err := os.OpenFile(dst+suffix, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		if err != nil {
			in.Close()
			return err
		}
		_, err = io.Copy(out, in)
		in.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("copy %s: %w", src+suffix, err)
		}
	}
	return nil
}

// syntheticQueries are questions over the synthetic corpus's words: mid
// and rare words, some with a frequent one.
func syntheticQueries() []string {
	r := rand.New(rand.NewSource(5))
	out := make([]string, 0, 500)
	for i := range 500 {
		q := fmt.Sprintf("how is w%d related to w%d and w%d?", 300+r.Intn(5000), 100+r.Intn(2000), 1000+r.Intn(20000))
		if i%4 == 0 {
			q = fmt.Sprintf("w%d with w%d in the index", 2+r.Intn(30), 300+r.Intn(5000))
		}
		out = append(out, q)
	}
	return out
}

// startRandomProvider serves OpenAI's embeddings API on loopback with a
// fresh random unit vector of dims values per input.
func startRandomProvider() (*httpServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	r := rand.New(rand.NewSource(17))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"object":"list","data":[]}`)
	})
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, req *http.Request) {
		var in struct {
			Input json.RawMessage `json:"input"`
		}
		if err := json.NewDecoder(req.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var texts []string
		if json.Unmarshal(in.Input, &texts) != nil {
			texts = []string{""}
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Object string `json:"object"`
			Data   []item `json:"data"`
		}{Object: "list"}
		mu.Lock()
		for i := range texts {
			out.Data = append(out.Data, item{"embedding", i, vectest.RandomUnit(r, dims)})
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
	srv := &httpServer{Server: &http.Server{Handler: mux}, Listener: ln}
	go srv.Serve(ln)
	return srv, nil
}

type httpServer struct {
	*http.Server
	Listener net.Listener
}

// measureLoad runs the clients, the writer and the reindex loop.
func measureLoad(ctx context.Context, f loadFlags, s *loadSetup) (*loadResult, error) {
	res := &loadResult{Engine: "sqlite", Corpus: s.corpus, Project: s.project, Chunks: s.chunks, Provider: f.provider,
		Clients: f.clients, Writer: f.writer, Reindex: f.reindex, AppendSize: f.appendSize, Reasons: map[string]int{}}
	if f.n > 0 && f.provider != "none" {
		res.Provider = "random (in process)"
	}
	if isURL(f.db) {
		res.Engine = "postgres"
	}
	st0, err := s.d.Store().Stats(ctx)
	if err != nil {
		return nil, err
	}
	stopProfiles, err := startProfiles(f)
	if err != nil {
		return nil, err
	}
	res.Load1[0] = load1()
	cpu0 := cpuTime()

	runCtx, cancel := context.WithTimeout(ctx, f.duration)
	defer cancel()
	var (
		next      atomic.Int64
		mu        sync.Mutex
		latencies []time.Duration
		wg        sync.WaitGroup
	)
	// The queries in a shuffled order, each once before any repeats, as
	// different people and agents would ask them.
	order := rand.New(rand.NewSource(1)).Perm(len(s.queries))
	started := time.Now()
	for range f.clients {
		wg.Go(func() {
			cl := client.New(s.d.Socket())
			defer cl.Close()
			for runCtx.Err() == nil {
				i := next.Add(1)
				if i > int64(f.searches) {
					return
				}
				q := s.queries[order[int(i-1)%len(order)]]
				t0 := time.Now()
				// The search itself is not cut at the run's end: its
				// latency counts whole.
				resp, err := cl.Search(ctx, s.project, api.SearchRequest{Query: q})
				took := time.Since(t0)
				mu.Lock()
				latencies = append(latencies, took)
				switch {
				case err != nil:
					res.Errors++
					if res.FirstError == "" {
						res.FirstError = err.Error()
					}
				case len(resp.Hits) == 0:
					res.Errors++
					if res.FirstError == "" {
						res.FirstError = fmt.Sprintf("search %q: no hits", q)
					}
				}
				if err == nil {
					if resp.Degraded {
						res.Degraded++
						res.Reasons[resp.Reason]++
					}
					if resp.SearchID != nil {
						res.SearchIDs++
					}
				}
				mu.Unlock()
			}
		})
	}
	var side sync.WaitGroup
	var sideErr error
	var sideMu sync.Mutex
	fail := func(err error) {
		sideMu.Lock()
		defer sideMu.Unlock()
		if sideErr == nil {
			sideErr = err
		}
	}
	if f.writer {
		side.Go(func() {
			cl := client.New(s.d.Socket())
			defer cl.Close()
			r := rand.New(rand.NewSource(99))
			run := strconv.FormatInt(time.Now().UnixNano(), 36)
			var tick <-chan time.Time
			if f.appendRate > 0 {
				t := time.NewTicker(time.Duration(float64(time.Second) / f.appendRate))
				defer t.Stop()
				tick = t.C
			}
			// At least one append, however short the run.
			for i := 0; i == 0 || runCtx.Err() == nil; i++ {
				if tick != nil && i > 0 {
					select {
					case <-tick:
					case <-runCtx.Done():
						return
					}
				}
				events := make([]ragd.Event, f.appendSize)
				now := time.Now().UTC()
				for j := range events {
					typ, actor := ragd.TypeChatMessage, "user"
					if j%2 == 1 {
						typ, actor = ragd.TypeAgentResponse, "agent"
					}
					events[j] = ragd.Event{ID: fmt.Sprintf("%s-%d-%d", run, i, j), SessionID: writerSession + "-" + run,
						Type: typ, Actor: actor, Text: message(r, s.queries), Time: now.Add(time.Duration(j) * time.Microsecond)}
				}
				if _, err := cl.AppendEvents(ctx, s.project, events); err != nil {
					res.AppendErrors++
					fail(fmt.Errorf("append: %w", err))
					continue
				}
				res.Appends++
			}
		})
	}
	if f.reindex {
		side.Go(func() {
			cl := client.New(s.d.Socket())
			defer cl.Close()
			// At least one reindex, however short the run.
			for v := 1; v == 1 || runCtx.Err() == nil; v++ {
				if err := changeDoc(s.repo, v); err != nil {
					fail(err)
					return
				}
				if _, err := cl.Reindex(ctx, s.reindexed, api.ReindexRequest{Scope: ragd.ScopeDocs}); err != nil {
					fail(fmt.Errorf("reindex: %w", err))
					return
				}
				res.Reindexes++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(started)
	cancel()
	side.Wait()
	if err := stopProfiles(); err != nil {
		return nil, err
	}
	res.Load1[1] = load1()
	if sideErr != nil && res.AppendErrors == 0 {
		return nil, sideErr
	}
	st1, err := s.d.Store().Stats(ctx)
	if err != nil {
		return nil, err
	}
	res.TelemetryRows = st1.Searches - st0.Searches
	res.Searches = len(latencies)
	res.Seconds = elapsed.Seconds()
	slices.Sort(latencies)
	res.P50, res.P95, res.P99 = msPct(latencies, 0.50), msPct(latencies, 0.95), msPct(latencies, 0.99)
	if len(latencies) > 0 {
		res.Max = ms(latencies[len(latencies)-1])
	}
	res.PerSec = float64(res.Searches) / elapsed.Seconds()
	res.AppendsPerSec = float64(res.Appends) / elapsed.Seconds()
	if res.Searches > 0 {
		res.CPUMsPerSearch = ms(cpuTime()-cpu0) / float64(res.Searches)
	}
	if len(res.Reasons) == 0 {
		res.Reasons = nil
	}
	return res, nil
}

// message is a writer's message of about writerChars characters, from
// the queries' words, so that it is found by them.
func message(r *rand.Rand, queries []string) string {
	var b strings.Builder
	for b.Len() < writerChars {
		b.WriteString(queries[r.Intn(len(queries))])
		b.WriteByte(' ')
	}
	return b.String()
}

// writeReindexRepo writes the synthetic corpus's reindex repository at
// dir: reindexDocs documents of reindexSections sections each, their text
// the queries' words (as the writer's messages), committed on main.
func writeReindexRepo(dir string, queries []string) error {
	if _, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	}); err != nil {
		return fmt.Errorf("reindex repository: init %s: %w", dir, err)
	}
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		return fmt.Errorf("reindex repository: %w", err)
	}
	r := rand.New(rand.NewSource(7))
	for i := range reindexDocs {
		var b strings.Builder
		fmt.Fprintf(&b, "# Document %d\n", i)
		for j := range reindexSections {
			fmt.Fprintf(&b, "\n## Section %d\n\n%s\n", j, message(r, queries))
		}
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("%04d.md", i)), []byte(b.String()), 0o600); err != nil {
			return fmt.Errorf("reindex repository: %w", err)
		}
	}
	return commitAll(dir, "the load's reindex repository")
}

// addReindexProject adds the reindex repository as project reindexProject
// (if the daemon lacks it) and indexes it, before the run is timed.
func addReindexProject(ctx context.Context, cl *client.Client, repo string) error {
	if _, err := cl.AddProject(ctx, api.AddProjectRequest{Path: repo, Name: reindexProject}); err != nil {
		var ae *client.Error
		if !errors.As(err, &ae) || ae.Status != http.StatusConflict {
			return fmt.Errorf("load: add the reindex project: %w", err)
		}
	}
	if _, err := cl.Reindex(ctx, reindexProject, api.ReindexRequest{}); err != nil {
		return fmt.Errorf("load: index the reindex project: %w", err)
	}
	return nil
}

// changeDoc commits a new version of one document of the reindex loop's
// repository.
func changeDoc(repo string, v int) error {
	dir := filepath.Join(repo, "docs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return fmt.Errorf("reindex loop: no documents in %s", dir)
	}
	name := filepath.Join(dir, entries[v%len(entries)].Name())
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	data = append(data, fmt.Sprintf("\nRevision %d of the load's reindex loop.\n", v)...)
	if err := os.WriteFile(name, data, 0o600); err != nil {
		return err
	}
	return commitAll(repo, fmt.Sprintf("load revision %d", v))
}

func msPct(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	f := make([]float64, len(sorted))
	for i, d := range sorted {
		f[i] = ms(d)
	}
	return pct(f, p)
}

// cpuTime is this process's user and system CPU so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// load1 is the machine's 1-minute load average (0 when unknown).
func load1() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	return v
}

// commitAll commits every change of the repository's work tree.
func commitAll(repo, msg string) error {
	r, err := git.PlainOpen(repo)
	if err != nil {
		return err
	}
	wt, err := r.Worktree()
	if err != nil {
		return err
	}
	if err := wt.AddGlob("docs"); err != nil {
		return fmt.Errorf("reindex loop: add: %w", err)
	}
	sig := &object.Signature{Name: "ragd-bench", Email: "bench@ragd.invalid", When: time.Now()}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig}); err != nil {
		return fmt.Errorf("reindex loop: commit: %w", err)
	}
	return nil
}

// blockRate samples one blocking event per this many nanoseconds blocked.
const blockRate = 10_000

// startProfiles starts the profiles f asks for; the function returned
// stops them and writes them.
func startProfiles(f loadFlags) (func() error, error) {
	var cpu *os.File
	if f.cpuProfile != "" {
		var err error
		if cpu, err = os.Create(f.cpuProfile); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, err
		}
	}
	if f.blockProfile != "" {
		runtime.SetBlockProfileRate(blockRate)
		runtime.SetMutexProfileFraction(1)
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return err
			}
		}
		if f.blockProfile == "" {
			return nil
		}
		defer runtime.SetBlockProfileRate(0)
		defer runtime.SetMutexProfileFraction(0)
		for name, path := range map[string]string{"block": f.blockProfile, "mutex": f.blockProfile + ".mutex"} {
			out, err := os.Create(path)
			if err != nil {
				return err
			}
			err = pprof.Lookup(name).WriteTo(out, 0)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
		return nil
	}, nil
}

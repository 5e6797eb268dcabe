// Package daemontest runs ragd daemons for tests: a private world of files
// (the XDG directories, a short socket path), a daemon in this process with
// its socket client, a git repository of docs and ADRs to index, and the
// helpers that drive them over the socket. Every helper takes a testing.TB
// and fails the test on an unexpected error.
package daemontest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/store"
	"github.com/ragd/ragd/store/postgres"
)

// Model is the embedding model the tests configure; Dims its (small) vector
// length, so that indexing is quick.
const (
	Model = "nomic-embed-text"
	Dims  = 64
)

// Timeout bounds every wait of a test: generous, because two loaded cores
// are shared with other test binaries.
const Timeout = 60 * time.Second

// World is a private set of ragd's files: the XDG base directories under one
// short temporary directory, and the paths a daemon computes from them.
type World struct {
	Dir   string
	Paths daemon.Paths
	// Env holds the XDG_* variables that make daemon.DefaultPaths (and so the
	// ragd command) find Paths, plus empty RAGD_* and OLLAMA_HOST overrides.
	Env []string
}

// NewWorld makes a World in a new directory under /tmp (t.TempDir is too
// long for a Unix socket path), removed when the test ends.
func NewWorld(tb testing.TB) *World {
	tb.Helper()
	skipUnlessIndependent(tb)
	dir, err := os.MkdirTemp("/tmp", "rg")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	w := &World{Dir: dir}
	xdg := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_DATA_HOME":   filepath.Join(dir, "data"),
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"XDG_CACHE_HOME":  filepath.Join(dir, "cache"),
		"XDG_RUNTIME_DIR": filepath.Join(dir, "run"),
	}
	for k, v := range xdg {
		w.Env = append(w.Env, k+"="+v)
	}
	for _, k := range []string{"RAGD_SOCKET", "RAGD_DB", "RAGD_LOG_LEVEL", "RAGD_CONFIG", "OLLAMA_HOST",
		"RAGD_OLLAMA_HOST", "RAGD_MODEL", "RAGD_DIMS", "RAGD_FUSION"} {
		w.Env = append(w.Env, k+"=")
	}
	runtime := filepath.Join(xdg["XDG_RUNTIME_DIR"], "ragd")
	w.Paths = daemon.Paths{
		Config:     filepath.Join(xdg["XDG_CONFIG_HOME"], "ragd", "config.toml"),
		Database:   filepath.Join(xdg["XDG_DATA_HOME"], "ragd", "ragd.db"),
		RuntimeDir: runtime,
		Socket:     filepath.Join(runtime, "ragd.sock"),
		Lock:       filepath.Join(xdg["XDG_DATA_HOME"], "ragd", "ragd.db.lock"),
		StateDir:   filepath.Join(xdg["XDG_STATE_HOME"], "ragd"),
		CacheDir:   filepath.Join(xdg["XDG_CACHE_HOME"], "ragd"),
	}
	if err := os.MkdirAll(filepath.Dir(w.Paths.Database), 0o700); err != nil {
		tb.Fatal(err)
	}
	return w
}

// Setenv sets the World's environment for the rest of the test (with
// t.Setenv), so that the ragd command run in this process finds its daemon.
func (w *World) Setenv(t *testing.T) {
	t.Helper()
	for _, kv := range w.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Config returns the defaults with the embedding provider at host, model
// Model with Dims dimensions, a query timeout long enough that a loaded
// machine does not turn a search into a degraded one, and every reindex
// embedding its scopes before writing them (tests of the background fill
// set Index.InlineVectors).
func Config(host string) daemon.Config {
	cfg := daemon.DefaultConfig()
	cfg.Embedding.Host = host
	cfg.Embedding.Model = Model
	cfg.Embedding.Dims = Dims
	cfg.Embedding.QueryTimeout = daemon.Duration{Duration: 30 * time.Second}
	cfg.Index.AutoDebounce = daemon.Duration{Duration: 50 * time.Millisecond}
	cfg.Index.InlineVectors = 0
	return cfg
}

// Logger returns the daemons' logger: silent, unless RAGD_TEST_LOG is set
// (debug, info, warn, error), then to stderr. A test's own t.Log would
// panic when the daemon logs after the test ended.
func Logger() *slog.Logger {
	level := os.Getenv("RAGD_TEST_LOG")
	if level == "" {
		return slog.New(slog.DiscardHandler)
	}
	var l slog.Level
	l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// Daemon is a daemon running in this process, with a client of its socket.
type Daemon struct {
	*daemon.Daemon
	Client *client.Client
	World  *World
	Config daemon.Config
	store  *store.Store
	pg     *postgres.Store
	engine engine.Store
}

// Store returns the daemon's SQLite store, for tests that look at what it
// holds beyond what the daemon asks of an engine (votes, an integrity
// check).
func (d *Daemon) Store() *store.Store { return d.store }

// Start opens a daemon in w with cfg on the engine EngineEnv chooses (the
// SQLite store by default), closed when the test ends (or earlier by Stop).
// On PostgreSQL, cfg's database is the test's PGlite database.
func Start(tb testing.TB, w *World, cfg daemon.Config) *Daemon {
	tb.Helper()
	if OnPostgres() {
		cfg.Daemon.Database = postgresDatabase(tb)
		return StartWith(tb, w, cfg, OpenPostgres)
	}
	return StartWith(tb, w, cfg, OpenSQLite)
}

// StartWith is Start with the engine open opens (an engine wrapped to
// offer or hide optional interfaces); Store is nil unless it is the
// SQLite store, Postgres nil unless it is OpenPostgres's.
func StartWith(tb testing.TB, w *World, cfg daemon.Config, open engine.Opener) *Daemon {
	tb.Helper()
	return StartLogged(tb, w, cfg, open, Logger())
}

// StartLogged is StartWith logging to logger, for tests of what the
// daemon logs.
func StartLogged(tb testing.TB, w *World, cfg daemon.Config, open engine.Opener, logger *slog.Logger) *Daemon {
	tb.Helper()
	var opened engine.Store
	recording := func(ctx context.Context, database string, opt engine.Options) (engine.Store, error) {
		s, err := open(ctx, database, opt)
		opened = s
		return s, err
	}
	d, err := daemon.Open(context.Background(), daemon.Options{Config: cfg, Paths: w.Paths, Open: recording, Logger: logger})
	if err != nil {
		tb.Fatalf("open daemon: %v", err)
	}
	td := &Daemon{Daemon: d, Client: client.New(d.Socket()), World: w, Config: cfg}
	td.engine = opened
	td.store, _ = opened.(*store.Store)
	td.pg, _ = opened.(*postgres.Store)
	tb.Cleanup(func() { td.Stop(tb) })
	return td
}

// OpenSQLite is the engine of the tests' daemons (daemon.Options.Open):
// the SQLite store at database, as ragd serve opens a plain path.
func OpenSQLite(ctx context.Context, database string, opt engine.Options) (engine.Store, error) {
	return engines.Open(ctx, database, opt)
}

// Stop closes the daemon; it may be called more than once.
func (d *Daemon) Stop(tb testing.TB) {
	tb.Helper()
	if d.Client == nil {
		return
	}
	d.Client.Close()
	d.Client = nil
	if err := d.Close(context.Background()); err != nil {
		tb.Errorf("close daemon: %v", err)
	}
}

// Section is the text of one markdown section of Corpus: distinct words per
// file and section, so that a search can aim at one.
func Section(file, section int, version string) string {
	return fmt.Sprintf("Paragraph %s of file%d section%d: the daemon answers searches over its socket "+
		"with citations to the file and the heading. Token alpha%d beta%d gamma%d.\n",
		version, file, section, file, section, file*100+section)
}

// Corpus returns files documents of sections sections each (see CorpusFile
// and CorpusPath).
func Corpus(files, sections int, version string) map[string]string {
	out := map[string]string{}
	for f := range files {
		out[CorpusPath(f)] = CorpusFile(f, sections, version)
	}
	return out
}

// CorpusPath is the path of document f of Corpus: every fifth one is an ADR
// under docs/adr/, the others are under docs/guide/.
func CorpusPath(f int) string {
	if f%5 == 0 {
		return fmt.Sprintf("docs/adr/%04d-decision.md", f)
	}
	return fmt.Sprintf("docs/guide/d%04d.md", f)
}

// CorpusFile is document f of Corpus: a title and sections sections of one
// chunk each; version changes every section's text.
func CorpusFile(f, sections int, version string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Document %d\n\n", f)
	for s := range sections {
		fmt.Fprintf(&b, "## Part %d\n\n%s\n", s, Section(f, s, version))
	}
	return b.String()
}

// Docs is a small project: a guide, an ADR, and a licence file, which is
// not read.
var Docs = map[string]string{
	"LICENSE.md": "# Not indexed\n\nLicence files are left out.\n",
	"docs/guide.md": "# Guide\n\n## Install\n\nRun the daemon with ragd serve; it listens on a Unix socket " +
		"readable by its owner only.\n\n## Search\n\nHybrid search fuses the vector and the lexical signal " +
		"with weights 0.6 and 0.4 and drops hits below the threshold.\n",
	"docs/adr/0001-storage.md": "# ADR 1: Storage\n\n## Decision\n\nWe keep every chunk in one SQLite " +
		"database: vectors in sqlite-vec, text in FTS5, telemetry beside it.\n\n## Consequences\n\n" +
		"Backups are one file; the write-ahead log lets searches read while a reindex writes.\n",
}

// Repo makes a git repository with files committed on main.
func Repo(tb testing.TB, files map[string]string) *gittest.Repo {
	tb.Helper()
	r := gittest.New(tb)
	r.Commit(tb, "initial", files)
	return r
}

// Fatal fails tb with what, the error, and for a daemon error answer its
// status and code.
func Fatal(tb testing.TB, what string, err error) {
	tb.Helper()
	var ce *client.Error
	if errors.As(err, &ce) {
		tb.Fatalf("%s: %d %s: %s", what, ce.Status, ce.Code, ce.Message)
	}
	tb.Fatalf("%s: %v", what, err)
}

// AddProject registers the repository at path as project name.
func AddProject(tb testing.TB, c *client.Client, path, name string) api.ProjectInfo {
	tb.Helper()
	p, err := c.AddProject(context.Background(), api.AddProjectRequest{Path: path, Name: name})
	if err != nil {
		Fatal(tb, "add project", err)
	}
	return *p
}

// ProjectPath is the API path of a project's route.
func ProjectPath(project, rest string) string { return api.ProjectPath(project, rest) }

// Reindex rebuilds scopes of project (all when none) and returns the report.
func Reindex(tb testing.TB, c *client.Client, project string, scopes ...string) *api.Report {
	tb.Helper()
	rep, err := c.Reindex(context.Background(), project, api.ReindexRequest{Scopes: scopes})
	if err != nil {
		Fatal(tb, "reindex", err)
	}
	return rep
}

// Search runs a search.
func Search(tb testing.TB, c *client.Client, project string, req api.SearchRequest) api.SearchResponse {
	tb.Helper()
	resp, err := c.Search(context.Background(), project, req)
	if err != nil {
		Fatal(tb, "search "+req.Query, err)
	}
	return *resp
}

// Coverage reads a project's coverage.
func Coverage(tb testing.TB, c *client.Client, project string) api.Coverage {
	tb.Helper()
	cov, err := c.Coverage(context.Background(), project)
	if err != nil {
		Fatal(tb, "coverage", err)
	}
	return *cov
}

// ScopeCoverage returns scope's part of cov.
func ScopeCoverage(tb testing.TB, cov api.Coverage, scope string) *api.ScopeCoverage {
	tb.Helper()
	for _, sc := range cov.Scopes {
		if sc.Scope == scope {
			return sc
		}
	}
	tb.Fatalf("coverage has no scope %s", scope)
	return nil
}

// Project reads a project as GET /v1/projects lists it.
func Project(tb testing.TB, c *client.Client, name string) api.ProjectInfo {
	tb.Helper()
	list, err := c.Projects(context.Background())
	if err != nil {
		Fatal(tb, "list projects", err)
	}
	for _, p := range list {
		if p.ID == name {
			return p
		}
	}
	tb.Fatalf("GET /v1/projects does not list %s: %+v", name, list)
	return api.ProjectInfo{}
}

// Answer is a raw HTTP answer.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// ErrorBody decodes the answer as the daemon's error shape, failing tb when
// it is not exactly {"error": {"code", "message"}} with both set (and
// "details", only for the codes that have them).
func (a Answer) ErrorBody(tb testing.TB) api.ErrorDetail {
	tb.Helper()
	var eb map[string]json.RawMessage
	if err := json.Unmarshal(a.Body, &eb); err != nil || len(eb) != 1 || eb["error"] == nil {
		tb.Fatalf("error body %q: want {\"error\": {...}} (%v)", a.Body, err)
	}
	var d map[string]json.RawMessage
	err := json.Unmarshal(eb["error"], &d)
	var ed api.ErrorDetail
	if err == nil {
		err = json.Unmarshal(eb["error"], &ed)
	}
	fields := 2
	if ed.Code == api.CodeEventConflict {
		fields = 3
	}
	if err != nil || len(d) != fields || ed.Code == "" || ed.Message == "" {
		tb.Fatalf("error body %q: want error.code and error.message, both set, and details only with %s (%v)", a.Body, api.CodeEventConflict, err)
	}
	if ct := a.Header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("error answer content type %q, want application/json", ct)
	}
	return ed
}

// Do sends one raw request over socket, on a fresh connection, and reads
// the whole answer. contentType "" sends none.
func Do(tb testing.TB, socket, method, path, contentType string, body []byte) Answer {
	tb.Helper()
	hc := HTTPClient(socket)
	defer hc.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://ragd"+path, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hc.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: read answer: %v", method, path, err)
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// HTTPClient is a plain HTTP client of socket, as curl --unix-socket is.
func HTTPClient(socket string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}}
}

// WaitFor polls cond every 10ms until it holds, failing tb with what after
// Timeout. It is for conditions no event announces, such as a reindex
// winding down after its client went away.
func WaitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(Timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", Timeout, what)
		}
		<-tick.C
	}
}

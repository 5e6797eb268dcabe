package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	domain "github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/store"
)

// serveProcess is `ragd serve` running as a child process (this test
// binary, see TestMain) in a World.
type serveProcess struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	log strings.Builder // its stderr
}

// startServe starts `ragd serve` in w with the extra environment env, and
// returns once its log says it listens.
func startServe(t *testing.T, w *daemontest.World, env ...string) *serveProcess {
	t.Helper()
	sp := &serveProcess{cmd: exec.Command(os.Args[0], "serve")}
	sp.cmd.Env = append(append(append(os.Environ(), w.Env...), mainChildEnv+"=1", "RAGD_LOG_LEVEL=debug"), env...)
	stderr, err := sp.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sp.cmd.ProcessState == nil {
			sp.cmd.Process.Kill()
			sp.cmd.Wait()
		}
	})
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			sp.mu.Lock()
			sp.log.WriteString(sc.Text() + "\n")
			sp.mu.Unlock()
			if !seen && strings.Contains(sc.Text(), "msg=listening") {
				seen = true
				listening <- true
			}
		}
		if !seen {
			listening <- false
		}
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatalf("ragd serve ended before listening: %v\n%s", sp.cmd.Wait(), sp.logText())
		}
	case <-time.After(daemontest.Timeout):
		t.Fatalf("ragd serve not listening after %s:\n%s", daemontest.Timeout, sp.logText())
	}
	return sp
}

func (sp *serveProcess) logText() string {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.log.String()
}

// wait waits for the process to end, at most daemontest.Timeout.
func (sp *serveProcess) wait(t *testing.T) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- sp.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(daemontest.Timeout):
		sp.cmd.Process.Kill()
		t.Fatalf("ragd serve still running %s after the signal:\n%s", daemontest.Timeout, sp.logText())
		return nil
	}
}

// storeIDs opens the database at path as ragd would, checks its integrity
// and lists the chunk ids of every scope, sorted.
func storeIDs(t *testing.T, path string) []string {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, path, store.Options{Space: daemontest.Model + "/64", Dims: daemontest.Dims, Logger: daemontest.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatalf("integrity: %v", err)
	}
	p, err := s.Project(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, scope := range domain.Scopes {
		cs, err := s.ScopeChunks(ctx, p.ID, scope)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// TestServe_SIGTERMDuringReindex stops `ragd serve` with SIGTERM while a
// reindex waits on the embedder: it exits 0, removes its socket, and the
// index is the last complete one, whole.
func TestServe_SIGTERMDuringReindex(t *testing.T) {
	const files, sections = 60, 10
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	w := daemontest.NewWorld(t)
	repo := daemontest.Repo(t, daemontest.Corpus(files, sections, "v1"))

	// The complete index, by a daemon in this process.
	d := daemontest.Start(t, w, daemontest.Config(srv.URL))
	daemontest.AddProject(t, d.Client, repo.Dir, "big")
	if rep := daemontest.Reindex(t, d.Client, "big"); !rep.Complete {
		t.Fatalf("first index: %s", rep.Summary)
	}
	d.Stop(t)
	before := storeIDs(t, w.Paths.Database)
	if len(before) < files*sections {
		t.Fatalf("first index has %d chunks, want at least %d", len(before), files*sections)
	}

	// Every text changes, and the embedder hangs: the next reindex stays in
	// its embed phase until it is cancelled.
	repo.Commit(t, "v2", daemontest.Corpus(files, sections, "v2"))
	srv.SetFault(srv.Hang())
	sp := startServe(t, w, "RAGD_OLLAMA_HOST="+srv.URL, "RAGD_MODEL="+daemontest.Model, "RAGD_DIMS=64")

	c := client.New(w.Paths.Socket)
	defer c.Close()
	var phases []string
	signalled := false
	ctx, cancel := context.WithTimeout(context.Background(), daemontest.Timeout)
	defer cancel()
	report, err := c.ReindexStream(ctx, "big", api.ReindexRequest{}, func(p api.Progress) {
		phases = append(phases, p.Phase)
		if p.Phase == api.PhaseEmbed && !signalled {
			signalled = true
			if err := sp.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Errorf("SIGTERM: %v", err)
			}
		}
	})
	if !signalled {
		t.Fatalf("the reindex never reached its embed phase: %v, phases %v\n%s", err, phases, sp.logText())
	}
	// The shutdown waits for the stream to say why it ends: the last line
	// holds the error and the report of what was done.
	var streamErr *client.Error
	if !errors.As(err, &streamErr) || streamErr.Code != api.CodeShuttingDown || report == nil || report.Complete ||
		report.Scopes[0].Status != api.StatusCancelled {
		t.Errorf("last stream line: error %v report %+v", err, report)
	}

	if err := sp.wait(t); err != nil {
		t.Fatalf("ragd serve after SIGTERM: %v, want exit 0\n%s", err, sp.logText())
	}
	if !strings.Contains(sp.logText(), "msg=stopped") {
		t.Errorf("no 'stopped' in the log:\n%s", sp.logText())
	}
	if _, err := os.Lstat(w.Paths.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket after SIGTERM: %v, want it removed", err)
	}
	if after := storeIDs(t, w.Paths.Database); !slices.Equal(after, before) {
		t.Errorf("index after SIGTERM mid-reindex: %d chunks, want the %d of the last complete index", len(after), len(before))
	}

	// The next daemon starts on it and finishes the job.
	srv.SetFault(nil)
	d = daemontest.Start(t, w, daemontest.Config(srv.URL))
	cov := daemontest.Coverage(t, d.Client, "big")
	if sc := daemontest.ScopeCoverage(t, cov, "docs"); !sc.Stale {
		t.Errorf("docs after the interrupted reindex: %+v, want stale", sc)
	}
	if rep := daemontest.Reindex(t, d.Client, "big"); !rep.Complete {
		t.Errorf("reindex after restart: %s", rep.Summary)
	}
}

// TestServe_SecondInstanceRefused: `ragd serve` beside a running daemon
// fails, naming the socket and the pid that holds it.
func TestServe_SecondInstanceRefused(t *testing.T) {
	d := startDaemon(t, ollamatest.ClosedURL(t))
	_, _, err := ragdErr(t, "serve")
	if err == nil {
		t.Fatal("a second ragd serve started")
	}
	for _, want := range []string{"another ragd daemon is running", d.Socket(), "pid " + strconv.Itoa(os.Getpid())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := d.Client.Health(context.Background()); err != nil {
		t.Errorf("first daemon after the refusal: %v", err)
	}
}

package index_test

// Benchmarks on real documents:
//
//	go test -tags sqlite_fts5 -run '^$' -bench . -benchtime 3x ./index/
//
// The corpora come from the project's shared folder (RAGD_SHARED_DIR, by
// default ../../shared from this package): the docs of two projects as
// tarballs, and the SciFact corpus of BEIR. A missing file fails the
// benchmark; it never skips.

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"github.com/ragd/ragd/internal/testdb"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/source"
)

func sharedDir() string {
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared")
}

// benchRepo is a corpus committed to a git repository.
type benchRepo struct {
	name  string
	dir   string
	bytes int64 // markdown bytes the indexer reads
	files int
}

// benchRepos builds the three corpora under dir.
func benchRepos(b *testing.B, dir string) []benchRepo {
	b.Helper()
	ctx := context.Background()
	var out []benchRepo
	for _, name := range []string{"cometbft-md-5bba72c", "kuma-docs-348b652"} {
		path := filepath.Join(sharedDir(), "corpora", name+".tar.gz")
		repo := filepath.Join(dir, name)
		if err := untar(path, repo); err != nil {
			b.Fatalf("benchmark corpus %s: %v (set RAGD_SHARED_DIR to the shared folder)", path, err)
		}
		if err := commitAll(repo); err != nil {
			b.Fatalf("commit %s: %v", repo, err)
		}
		out = append(out, measure(b, name, repo))
	}
	path := filepath.Join(sharedDir(), "bench", "scifact", "corpus.jsonl.gz")
	f, err := os.Open(path)
	if err != nil {
		b.Fatalf("benchmark corpus %s: %v (set RAGD_SHARED_DIR to the shared folder)", path, err)
	}
	defer f.Close()
	repo := filepath.Join(dir, "scifact")
	if _, err := eval.WriteBEIRRepo(ctx, f, repo); err != nil {
		b.Fatalf("benchmark corpus %s: %v", path, err)
	}
	return append(out, measure(b, "scifact", repo))
}

func measure(b *testing.B, name, repo string) benchRepo {
	b.Helper()
	tree, err := source.ReadDocs(context.Background(), repo, source.Options{})
	if err != nil {
		b.Fatalf("read %s: %v", repo, err)
	}
	r := benchRepo{name: name, dir: repo, files: len(tree.Files)}
	for _, f := range tree.Files {
		r.bytes += int64(len(f.Content))
	}
	return r
}

// untar extracts the regular files of a .tar.gz into dir.
func untar(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg || !filepath.IsLocal(h.Name) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		w, err := os.Create(dst)
		if err != nil {
			return err
		}
		_, err = io.Copy(w, tr)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}

// commitAll commits the docs folder of dir into a new repository.
func commitAll(dir string) error {
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		return err
	}
	wt, err := r.Worktree()
	if err != nil {
		return err
	}
	if err := wt.AddWithOptions(&git.AddOptions{Path: "docs"}); err != nil {
		return err
	}
	sig := &object.Signature{Name: "bench", Email: "bench@ragd.invalid", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	_, err = wt.Commit("corpus", &git.CommitOptions{Author: sig, Committer: sig})
	return err
}

// peakMemory samples the live heap while it runs, and resets and reads the
// process's peak resident set (VmHWM), to report a reindex's memory.
type peakMemory struct {
	stop    chan struct{}
	done    sync.WaitGroup
	stopped bool
	heap    uint64 // bytes of live heap objects, highest sample
	hwm     int64  // VmHWM when sampling stopped, 0 if unknown
}

func startPeak() *peakMemory {
	// Writing 5 to clear_refs resets VmHWM to the current RSS (Linux).
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	m := &peakMemory{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	m.done.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			m.heap = max(m.heap, sample[0].Value.Uint64())
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	})
	return m
}

// stopSampling ends the measurement; report does it too.
func (m *peakMemory) stopSampling() {
	if m.stopped {
		return
	}
	m.stopped = true
	close(m.stop)
	m.done.Wait()
	m.hwm, _ = vmHWM()
}

// report reports the peaks. Call it after the last b.ResetTimer, which
// drops reported metrics.
func (m *peakMemory) report(b *testing.B) {
	m.stopSampling()
	b.ReportMetric(float64(m.heap)/(1<<20), "peak-heap-MB")
	if m.hwm > 0 {
		b.ReportMetric(float64(m.hwm)/(1<<20), "VmHWM-MB")
	}
}

func vmHWM() (int64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// BenchmarkIndex measures a first index of docs and adr into a fresh store,
// end to end (git read, chunking, embedding, write with FTS), in MB/s of
// markdown: "lexical" without a provider, "ollamatest" with ollamatest's
// fake Ollama (768 dims, over HTTP on loopback; it embeds far faster than a
// real model, so this is a lower bound of a real first index).
func BenchmarkIndex(b *testing.B) {
	for _, r := range benchRepos(b, b.TempDir()) {
		for _, mode := range []string{"lexical", "ollamatest"} {
			b.Run(r.name+"/"+mode, func(b *testing.B) {
				var srv *ollamatest.Server
				if mode == "ollamatest" {
					srv = ollamatest.NewServer(b, ollamatest.Options{})
				}
				b.SetBytes(r.bytes)
				b.ReportAllocs()
				var chunks int
				peak := startPeak()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					s := openStoreAt(b, filepath.Join(b.TempDir(), fmt.Sprint("ragd", i, ".db")), embedding.DefaultDims)
					p := testdb.AddProject(b, s, "p", r.dir)
					ix := newIndexer(s, nil)
					if srv != nil {
						ix.Embedder = service(b, srv.URL, s, embedding.DefaultDims)
					}
					b.StartTimer()
					rep := reindex(b, ix, p, "docs", "adr")
					b.StopTimer()
					if srv != nil && !rep.Complete {
						b.Fatalf("incomplete: %s", rep.Summary)
					}
					chunks = rep.Scopes[0].Chunks.Total + rep.Scopes[1].Chunks.Total
					s.Close()
					b.StartTimer()
				}
				peak.report(b)
				b.ReportMetric(float64(r.files), "files")
				b.ReportMetric(float64(chunks), "chunks")
			})
		}
	}
}

// BenchmarkReindexUnchanged measures a reindex of an unchanged corpus after
// a first index with a provider, ollamatest's fake Ollama (see
// BenchmarkIndex). It fails if the reindex calls the provider. x-faster is
// the one first index timed here over the mean unchanged reindex; compare
// with BenchmarkIndex/<corpus>/ollamatest for a steadier figure. A real
// model embeds far slower than the fake, so the real speed-up is larger.
func BenchmarkReindexUnchanged(b *testing.B) {
	for _, r := range benchRepos(b, b.TempDir()) {
		b.Run(r.name, func(b *testing.B) {
			s := openStoreAt(b, filepath.Join(b.TempDir(), "ragd.db"), embedding.DefaultDims)
			srv := ollamatest.NewServer(b, ollamatest.Options{})
			ix := newIndexer(s, service(b, srv.URL, s, embedding.DefaultDims))
			p := testdb.AddProject(b, s, "p", r.dir)

			peak := startPeak()
			start := time.Now()
			first := reindex(b, ix, p, "docs", "adr")
			firstTime := time.Since(start)
			peak.stopSampling()
			if !first.Complete {
				b.Fatalf("first index incomplete: %s", first.Summary)
			}
			calls := srv.Calls()

			b.SetBytes(r.bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rep := reindex(b, ix, p, "docs", "adr")
				if !rep.Complete || rep.Scopes[0].Chunks.Inserted != 0 {
					b.Fatalf("unchanged reindex: %s", rep.Summary)
				}
			}
			b.StopTimer()
			if extra := srv.Calls() - calls; extra != 0 {
				b.Fatalf("an unchanged reindex made %d provider calls, want 0", extra)
			}
			per := b.Elapsed() / time.Duration(b.N)
			peak.report(b)
			b.ReportMetric(float64(firstTime.Milliseconds()), "first-ms")
			b.ReportMetric(float64(calls), "first-calls")
			b.ReportMetric(0, "calls/op")
			b.ReportMetric(firstTime.Seconds()/per.Seconds(), "x-faster")
		})
	}
}

package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// Sizes of the generated import, overridable for the full-scale run:
// RAGD_BENCH_SESSIONS=10000 RAGD_BENCH_MESSAGES=50 is a heavy year, 500,000
// messages. The defaults keep the benchmark's CI run short.
const (
	defaultBenchSessions = 200
	defaultBenchMessages = 50
	// heapSampleEvery is how often the peak heap is sampled: often enough
	// to see a batch's worth of growth, rarely enough not to slow the run.
	heapSampleEvery = 20 * time.Millisecond
)

// writeClaudeSessions writes sessions Claude Code transcripts of messages
// messages each (a person and the agent by turns, each agent turn with a
// tool call), one file per session as the tool does.
func writeClaudeSessions(tb testing.TB, dir string, sessions, messages int) {
	tb.Helper()
	for s := range sessions {
		sub := filepath.Join(dir, fmt.Sprintf("-proj-%03d", s%100))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			tb.Fatal(err)
		}
		f, err := os.Create(filepath.Join(sub, fmt.Sprintf("s%06d.jsonl", s)))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		sid := fmt.Sprintf("sess-%06d", s)
		for m := range messages {
			ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(s*messages+m) * time.Second).Format(time.RFC3339)
			if m%2 == 0 {
				fmt.Fprintf(w, `{"sessionId":%q,"cwd":"/work/proj","type":"user","uuid":"u%d-%d","timestamp":%q,"message":{"role":"user","content":"Question %d of session %d: how does the importer stream a year of transcripts with bounded memory?"}}`+"\n", sid, s, m, ts, m, s)
				continue
			}
			fmt.Fprintf(w, `{"sessionId":%q,"cwd":"/work/proj","type":"assistant","uuid":"a%d-%d","timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":"Answer %d: it reads line by line and stores events in batches of five hundred."},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"ls"}}]}}`+"\n", sid, s, m, ts, m, m)
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkTranscriptImport imports generated Claude Code transcripts
// through the daemon's socket (no embeddings: an import stores events; the
// session reindex embeds them) and reports messages/s and the peak heap.
//
//	RAGD_BENCH_SESSIONS=10000 RAGD_BENCH_MESSAGES=50 go test -run '^$' -bench TranscriptImport -benchtime 1x ./daemon/
func BenchmarkTranscriptImport(b *testing.B) {
	sessions, messages := envInt(b, "RAGD_BENCH_SESSIONS", defaultBenchSessions), envInt(b, "RAGD_BENCH_MESSAGES", defaultBenchMessages)
	dir := b.TempDir()
	writeClaudeSessions(b, dir, sessions, messages)
	d := daemontest.Start(b, daemontest.NewWorld(b), daemontest.Config("http://127.0.0.1:1"))

	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(heapSampleEvery)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()

	var total int
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		// A project of its own each time: its checkpoints are its own, so
		// every file is read again in full.
		repo := daemontest.Repo(b, map[string]string{"docs/a.md": "# A\n"})
		name := fmt.Sprintf("bench%d", i)
		daemontest.AddProject(b, d.Client, repo.Dir, name)
		b.StartTimer()
		rep, err := d.Client.ImportTranscripts(context.Background(), api.TranscriptImportRequest{Format: "claude-code", Paths: []string{dir}, Project: name}, nil)
		if err != nil {
			daemontest.Fatal(b, "import", err)
		}
		if rep.Files != sessions || rep.Indexed != sessions*messages {
			b.Fatalf("imported %d files, %d messages; want %d and %d", rep.Files, rep.Indexed, sessions, sessions*messages)
		}
		total += rep.Indexed
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "messages/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

package daemon_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/internal/gittest"
)

// loadCorpus is the repository of a load run: files documents of sections
// sections, one chunk per section.
type loadCorpus struct {
	repo            *gittest.Repo
	files, sections int
	version         int // of the file the reindex loop changes next
}

// startLoad starts a daemon over a repository of files×sections chunks,
// indexed, as project "load".
func startLoad(tb testing.TB, files, sections int) (*daemontest.Daemon, *loadCorpus) {
	return startLoadDims(tb, files, sections, daemontest.Dims)
}

// startLoadDims is startLoad with vectors of dims values.
func startLoadDims(tb testing.TB, files, sections, dims int) (*daemontest.Daemon, *loadCorpus) {
	tb.Helper()
	srv := ollamatest.NewServer(tb, ollamatest.Options{Models: map[string]int{daemontest.Model: dims}})
	cfg := daemontest.Config(srv.URL)
	cfg.Embedding.Dims = dims
	if v := os.Getenv("RAGD_LOAD_VECTORS"); v != "" {
		cfg.Search.Vectors = v
	}
	d := daemontest.Start(tb, daemontest.NewWorld(tb), cfg)
	lc := &loadCorpus{repo: daemontest.Repo(tb, daemontest.Corpus(files, sections, "v0")), files: files, sections: sections}
	daemontest.AddProject(tb, d.Client, lc.repo.Dir, "load")
	rep := daemontest.Reindex(tb, d.Client, "load")
	if !rep.Complete {
		tb.Fatalf("load index: %s", rep.Summary)
	}
	return d, lc
}

// change commits a new version of one file, turning it round the corpus.
func (lc *loadCorpus) change(tb testing.TB) {
	tb.Helper()
	lc.version++
	f := lc.version % lc.files
	lc.repo.Commit(tb, fmt.Sprintf("change %d", lc.version),
		map[string]string{daemontest.CorpusPath(f): daemontest.CorpusFile(f, lc.sections, fmt.Sprintf("v%d", lc.version))})
}

// loadQuery is the i-th query of client c: words that pick out one section,
// words that many share, or a phrase.
func loadQuery(c, i int, lc *loadCorpus) string {
	n := c*7919 + i*104729
	f, s := n%lc.files, (n/lc.files)%lc.sections
	switch i % 3 {
	case 0:
		return fmt.Sprintf("alpha%d beta%d", f, s)
	case 1:
		return fmt.Sprintf("citations heading gamma%d", f*100+s)
	default:
		return fmt.Sprintf(`"daemon answers" section%d`, s)
	}
}

// stopwatch is the timer of a benchmark.
type stopwatch interface {
	StartTimer()
	StopTimer()
}

// loadResult is what a load run measured.
type loadResult struct {
	answers   int // searches answered
	withID    int // answers with a non-null searchId
	narrated  int // answers to searches from a session
	errs      []string
	latencies []time.Duration // sorted
	elapsed   time.Duration   // first search sent to last answer
	reindexes int
	rows      int // telemetry rows written during the run
	events    int // rag.search events written during the run
}

func (r loadResult) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := max(0, int(float64(len(r.latencies))*p+0.5)-1)
	return r.latencies[min(i, len(r.latencies)-1)]
}

// runLoad sends searches searches from clients concurrent clients, each on
// its own connections, every fourth search from a session; with reindex,
// the calling goroutine meanwhile commits a change and reindexes docs, over
// and over, until the searches are done. timer, if not nil, is started and
// stopped around the searches.
func runLoad(tb testing.TB, d *daemontest.Daemon, lc *loadCorpus, clients, searches int, reindex bool, timer stopwatch) loadResult {
	tb.Helper()
	ctx := context.Background()
	p, err := d.Store().Project(ctx, "load")
	if err != nil {
		tb.Fatal(err)
	}
	rows0, events0 := telemetry(tb, d, p.ID)

	var (
		next    atomic.Int64
		mu      sync.Mutex
		res     loadResult
		wg      sync.WaitGroup
		done    = make(chan struct{})
		started = time.Now()
	)
	if timer != nil {
		timer.StartTimer()
	}
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := client.New(d.Socket())
			defer cl.Close()
			var lat []time.Duration
			var answers, withID, narrated int
			var errs []string
			for i := int(next.Add(1)); i <= searches; i = int(next.Add(1)) {
				req := api.SearchRequest{Query: loadQuery(c, i, lc)}
				if i%4 == 0 {
					req.SessionID, req.Actor = fmt.Sprintf("load-%d", c), "agent"
				}
				t0 := time.Now()
				resp, err := cl.Search(ctx, "load", req)
				lat = append(lat, time.Since(t0))
				switch {
				case err != nil:
					errs = append(errs, err.Error())
				case len(resp.Hits) == 0 || resp.Degraded:
					errs = append(errs, fmt.Sprintf("search %q: %d hits, degraded %v (%s)", req.Query, len(resp.Hits), resp.Degraded, resp.Reason))
				default:
					answers++
					if resp.SearchID != nil {
						withID++
						if req.SessionID != "" {
							narrated++
						}
					}
				}
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			res.answers += answers
			res.withID += withID
			res.narrated += narrated
			res.errs = append(res.errs, errs...)
			mu.Unlock()
		}()
	}
	go func() {
		wg.Wait()
		if timer != nil {
			timer.StopTimer()
		}
		res.elapsed = time.Since(started)
		close(done)
	}()

	var reindexErr error
	if reindex {
	loop:
		for reindexErr == nil {
			select {
			case <-done:
				break loop
			default:
			}
			lc.change(tb)
			var rep *api.Report
			rep, reindexErr = d.Client.Reindex(ctx, "load", api.ReindexRequest{Scope: "docs"})
			if reindexErr == nil && !rep.Complete {
				reindexErr = fmt.Errorf("reindex %d incomplete", res.reindexes+1)
			}
			res.reindexes++
		}
	}
	<-done
	if reindexErr != nil {
		tb.Fatalf("reindex loop: %v", reindexErr)
	}
	slices.Sort(res.latencies)
	rows1, events1 := telemetry(tb, d, p.ID)
	res.rows, res.events = rows1-rows0, events1-events0
	return res
}

// envInt reads a positive integer from the environment, or gives def.
func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// telemetry counts the telemetry rows and the project's rag.search events.
func telemetry(tb testing.TB, d *daemontest.Daemon, projectID int64) (rows, events int) {
	tb.Helper()
	st, err := d.Store().Stats(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	told, err := d.Store().Messages(context.Background(), projectID, []string{"rag.search"})
	if err != nil {
		tb.Fatal(err)
	}
	return st.Searches, len(told)
}

// check fails tb unless the run had no error, one telemetry row per answer
// with a searchId, and one rag.search event per such answer from a session.
func (r loadResult) check(tb testing.TB, searches int) {
	tb.Helper()
	if len(r.errs) > 0 {
		tb.Errorf("%d of %d searches failed; first: %s", len(r.errs), searches, r.errs[0])
	}
	if r.answers != searches {
		tb.Errorf("%d answers to %d searches", r.answers, searches)
	}
	if r.rows != r.withID {
		tb.Errorf("%d telemetry rows for %d answers with a searchId", r.rows, r.withID)
	}
	if r.withID != r.answers {
		tb.Errorf("%d of %d answers without a searchId", r.answers-r.withID, r.answers)
	}
	if r.events != r.narrated {
		tb.Errorf("%d rag.search events for %d answered searches from a session", r.events, r.narrated)
	}
}

// TestLoad_TelemetryRowsMatchAnswers is BenchmarkLoad in small: eight
// clients search while a loop commits and reindexes, under the race
// detector; every answer with a searchId has its telemetry row.
func TestLoad_TelemetryRowsMatchAnswers(t *testing.T) {
	d, lc := startLoad(t, 20, 4)
	const clients, searches = 8, 160
	for _, reindex := range []bool{false, true} {
		r := runLoad(t, d, lc, clients, searches, reindex, nil)
		r.check(t, searches)
		if reindex && r.reindexes == 0 {
			t.Error("no reindex ran during the searches")
		}
		t.Logf("reindexing %v: %d searches in %v (%d reindexes), p95 %v", reindex, r.answers, r.elapsed, r.reindexes, r.percentile(0.95))
	}
}

// BenchmarkLoad measures searches per second and the 95th percentile
// latency of 8 concurrent clients over the socket against an index of 10k
// chunks of 64 dims, idle and while a loop commits and reindexes the docs
// scope:
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkLoad -benchtime 2000x ./daemon/
//
// RAGD_LOAD_FILES (of ten chunks each) and RAGD_LOAD_DIMS size the index:
// the case is 100k chunks of 768 dims (docs/adr/0009-scale.md),
//
//	RAGD_LOAD_FILES=10000 RAGD_LOAD_DIMS=768 go test … -benchtime 1000x ./daemon/
func BenchmarkLoad(b *testing.B) {
	const sections, clients = 10, 8
	files, dims := envInt(b, "RAGD_LOAD_FILES", 1000), envInt(b, "RAGD_LOAD_DIMS", daemontest.Dims)
	t0 := time.Now()
	d, lc := startLoadDims(b, files, sections, dims)
	b.Logf("indexed %d chunks of %d dims in %s", files*sections, dims, time.Since(t0).Round(time.Second))
	st, err := d.Store().Stats(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if n := st.Chunks["docs"] + st.Chunks["adr"]; n < files*sections {
		b.Fatalf("index of %d chunks, want at least %d", n, files*sections)
	}
	for _, reindex := range []bool{false, true} {
		name := "idle"
		if reindex {
			name = "reindexing"
		}
		b.Run(name, func(b *testing.B) {
			b.StopTimer()
			r := runLoad(b, d, lc, clients, b.N, reindex, b)
			r.check(b, b.N)
			b.ReportMetric(float64(r.answers)/r.elapsed.Seconds(), "searches/s")
			b.ReportMetric(float64(r.percentile(0.95).Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(r.percentile(0.50).Microseconds())/1000, "p50-ms")
			if reindex {
				b.ReportMetric(float64(r.reindexes), "reindexes")
			}
		})
	}
}

package index_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/store"
)

// The kill test re-runs this test binary as a child that reindexes and is
// killed by the parent as soon as it says its write begins.
const (
	killChildEnv = "RAGD_INDEX_KILL_CHILD" // set in the child: its database path
	killHostEnv  = "RAGD_INDEX_KILL_HOST"  // the parent's fake Ollama
	writeLine    = "WRITE-BEGINS"
)

// killDims is a real model's size, so that the replace transaction writes
// enough vector pages to be under way when the kill lands.
const killDims = 768

// killCorpus returns version v of a corpus of files×sections documents,
// every section's text differing between versions.
func killCorpus(v, files, sections int) map[string]string {
	out := map[string]string{}
	for f := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "# Document %d\n\n", f)
		for s := range sections {
			fmt.Fprintf(&b, "## Section %d\n\n", s)
			for w := range 6 {
				fmt.Fprintf(&b, "Version %d of document %d, section %d, sentence %d, says something distinct. ", v, f, s, w)
			}
			b.WriteString("\n\n")
		}
		out[fmt.Sprintf("docs/d%03d.md", f)] = b.String()
	}
	return out
}

func TestReindex_KilledMidWriteLeavesOldIndexWhole(t *testing.T) {
	if db := os.Getenv(killChildEnv); db != "" {
		killChild(t, db, os.Getenv(killHostEnv))
		return
	}
	ctx := context.Background()
	dbPath := filepath.Join(t.TempDir(), "ragd.db")
	s := openStoreAt(t, dbPath, killDims)
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{testModel: killDims}})
	repo := gittest.New(t)
	oldHead := repo.Commit(t, "v1", killCorpus(1, 60, 40))
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, service(t, srv.URL, s, killDims))
	rep := reindex(t, ix, p, "docs")
	if !rep.Complete {
		t.Fatalf("first index incomplete: %s", rep.Summary)
	}
	old := chunks(t, s, p, "docs")
	oldRun, err := s.LastRun(ctx, p.ID, "docs", ragd.RunOK)
	if err != nil || oldRun.Commit != oldHead {
		t.Fatalf("first run: %+v, %v", oldRun, err)
	}
	s.Close()

	// Version 2 changes every chunk, drops some files and adds others: its
	// write deletes and inserts every row.
	next := killCorpus(2, 70, 40)
	for f := 50; f < 60; f++ {
		delete(next, fmt.Sprintf("docs/d%03d.md", f))
	}
	repo.Commit(t, "v2", next)
	for f := 50; f < 60; f++ {
		repo.Remove(t, "drop", fmt.Sprintf("docs/d%03d.md", f))
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestReindex_KilledMidWriteLeavesOldIndexWhole$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+dbPath, killHostEnv+"="+srv.URL)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var seen []string
	writing := false
	for !writing && sc.Scan() {
		writing = sc.Text() == writeLine
		seen = append(seen, sc.Text())
	}
	if err := syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	werr := cmd.Wait()
	if !writing {
		t.Fatalf("child ended before its write: %v\nstdout: %s\nstderr: %s", werr, strings.Join(seen, "\n"), stderr.String())
	}
	// Evidence that the kill landed inside the replace transaction: SQLite
	// spills a large transaction's pages to the WAL before it commits.
	if fi, err := os.Stat(dbPath + "-wal"); err == nil {
		t.Logf("WAL after the kill: %.1f MB", float64(fi.Size())/(1<<20))
	}

	// The database is whole, and the index is exactly the old one or
	// exactly the new one.
	s = openStoreAt(t, dbPath, killDims)
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatalf("after kill: %v", err)
	}
	after := chunks(t, s, p, "docs")
	assertSearchable(t, s, p, after)
	var lastOK time.Time
	if cov, err := newIndexer(s, nil).Coverage(ctx, p); err == nil && cov.Scopes[0].LastIndexed != nil {
		lastOK = *cov.Scopes[0].LastIndexed
	}
	ix = newIndexer(s, service(t, srv.URL, s, killDims))
	reindex(t, ix, p, "docs")
	fresh := chunks(t, s, p, "docs")
	switch {
	case slices.Equal(ids(after), ids(old)):
		t.Logf("killed mid-write: the old index (%d chunks) is whole", len(old))
		if !lastOK.Equal(oldRun.FinishedAt) {
			t.Errorf("the killed run counts as the last index")
		}
	case slices.Equal(ids(after), ids(fresh)):
		t.Logf("the kill came after the commit: the new index (%d chunks) is whole", len(fresh))
	default:
		t.Fatalf("after the kill the index is a mix: %d chunks, old %d, new %d", len(after), len(old), len(fresh))
	}
	// The killed run stays "running" and is not taken as the last index.
	runs, _ := s.Runs(ctx, p.ID, 0)
	if len(runs) != 3 || runs[1].Status != ragd.RunRunning {
		t.Errorf("runs: %+v", runs)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// assertSearchable checks that the FTS and vector indexes agree with the
// chunks: every chunk's own text finds it, and KNN sees one vector per chunk.
func assertSearchable(t *testing.T, s *store.Store, p ragd.Project, cs []ragd.Chunk) {
	t.Helper()
	ctx := context.Background()
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	f := ragd.Filter{ProjectID: p.ID}
	all, err := sn.LexicalCandidates(ctx, f, ragd.LexicalQuery{Terms: []ragd.LexicalTerm{{Word: "document", Tokens: []string{"document"}}}}, 10*len(cs)+10)
	if err != nil || len(all.Candidates) != len(cs) {
		t.Fatalf("FTS finds %d chunks, the table has %d (%v)", len(all.Candidates), len(cs), err)
	}
	q := make([]float32, killDims)
	q[0] = 1
	knn, err := sn.VectorCandidates(ctx, f, q, len(cs)+10)
	if err != nil || len(knn) != len(cs) {
		t.Fatalf("KNN sees %d vectors for %d chunks (%v)", len(knn), len(cs), err)
	}
}

// killChild is the child's side: reindex docs, saying when the write
// begins, so that the parent kills it there.
func killChild(t *testing.T, db, host string) {
	ctx := context.Background()
	s, err := store.Open(ctx, db, store.Options{Space: testModel + fmt.Sprintf("/%d", killDims), Dims: killDims, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Project(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	ix := newIndexer(s, service(t, host, s, killDims))
	_, err = ix.Reindex(ctx, p, []string{"docs"}, func(pr ragd.Progress) {
		if pr.Phase == ragd.PhaseWrite && pr.Done == 0 {
			fmt.Println(writeLine)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Not killed in time: the parent sees the new index, whole.
	fmt.Println("child finished")
}

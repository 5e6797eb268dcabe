package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/pgtest"
)

func TestCheckDB(t *testing.T) {
	for _, tc := range []struct {
		db, want string
	}{
		{"/tmp/x/ragd.db", ""},
		{"postgres://u:pw@h/db", ""},
		{"PostgreSQL://h/db", ""},
		{"mysql://u:secret@h/db", `unknown scheme "mysql"`},
	} {
		err := checkDB(tc.db)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret")) {
			t.Errorf("checkDB(%q) = %v, want %q", tc.db, err, tc.want)
		}
	}
}

// TestBuild_RemovesOnlyItsFiles: a build starts over by removing the
// corpus's own files, never the folder -db names a file in; without -db
// it refuses.
func TestBuild_RemovesOnlyItsFiles(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "corpus.db")
	for range 2 { // the second build starts over on the first's files
		if err := buildCmd([]string{"-n", "30", "-db", db}); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile(mine); err != nil || string(data) != "kept" {
		t.Errorf("a file beside the corpus: %q, %v after two builds", data, err)
	}
	if b, err := readBuild(db); err != nil || b.Chunks != 30 {
		t.Errorf("build record %+v, %v", b, err)
	}
	if err := buildCmd([]string{"-n", "30"}); err == nil || !strings.Contains(err.Error(), "-db is required") {
		t.Errorf("build without -db: %v, want it required", err)
	}
}

// TestScanRecall: the exact scan rebuilds the corpus build wrote, ids
// included, so an exact engine's KNN scores recall 1 against it.
func TestScanRecall(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "c", "ragd.db")
	const n = 60
	if err := buildCmd([]string{"-n", "60", "-db", db}); err != nil {
		t.Fatal(err)
	}
	b, err := readBuild(db)
	if err != nil || b.Chunks != n || b.WriteSeconds <= 0 || b.WriteSeconds > b.Seconds {
		t.Fatalf("build record %+v, %v", b, err)
	}
	st, err := openBench(ctx, db, "exact")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.Project(ctx, "bench")
	if err != nil {
		t.Fatal(err)
	}
	sn, err := st.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	got, err := scanRecall(ctx, n, ragd.Filter{ProjectID: p.ID}, sn)
	if err != nil || got != 1 {
		t.Fatalf("scan recall of an exact search = %v, %v: want 1", got, err)
	}
	// A second build starts over: the same corpus, not two.
	if err := buildCmd([]string{"-n", "60", "-db", db}); err != nil {
		t.Fatal(err)
	}
	again, err := openCorpus(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	stats, err := again.Stats(ctx)
	total := 0
	for _, c := range stats.Chunks {
		total += c
	}
	if err != nil || total != n || stats.Projects != 1 {
		t.Errorf("after a second build: %d chunks in %d projects (%v), want %d in 1", total, stats.Projects, err, n)
	}
}

// TestLoad runs the load command over the socket on a small synthetic
// corpus, with the writer: every search answered and recorded once, the
// writer's appends stored, and the bounds refused.
func TestLoad(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("RAGD_BENCH_CACHE", cache)
	if err := buildCmd([]string{"-n", "90", "-db", corpusPath(cache, 90)}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	err := loadCmd([]string{"-n", "90", "-clients", "4", "-searches", "40", "-duration", "5m", "-writer", "-append-size", "3", "-reindex"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var r loadResult
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("output %q: want one JSON line (%v)", out.String(), err)
	}
	if r.Searches != 40 || r.Errors != 0 || r.Degraded != 0 || r.SearchIDs != 40 || r.TelemetryRows != 40 {
		t.Errorf("searches %d, errors %d (%s), degraded %d, searchIds %d, telemetry rows %d: want 40 answered, recorded once",
			r.Searches, r.Errors, r.FirstError, r.Degraded, r.SearchIDs, r.TelemetryRows)
	}
	if r.Appends < 1 || r.AppendErrors != 0 || r.Reindexes < 1 || r.Chunks != 90 || r.P50 <= 0 || r.P50 > r.P95 || r.P95 > r.P99 || r.P99 > r.Max {
		t.Errorf("appends %d (%d errors), reindexes %d, chunks %d (the searched project's), p50/p95/p99/max %v/%v/%v/%v",
			r.Appends, r.AppendErrors, r.Reindexes, r.Chunks, r.P50, r.P95, r.P99, r.Max)
	}
	for _, args := range [][]string{
		{"-n", "90", "-duration", "11m"},
		{"-n", "90", "-clients", "0"},
		{"-n", "90", "-host", "http://192.0.2.1:11434"},
		{"-clients", "2"},
	} {
		if err := loadCmd(args, io.Discard); err == nil {
			t.Errorf("load %v: no error", args)
		}
	}
}

// TestLoad_Postgres is TestLoad on the PostgreSQL engine (PGlite), without
// the writer: the corpus built in the database, the daemon on its URL.
func TestLoad_Postgres(t *testing.T) {
	db := pgtest.Fresh(t)
	if err := buildCmd([]string{"-n", "60", "-db", db}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	// PGlite serves one query at a time on each of few connections: the
	// daemon's pool stays well below them (internal/pgtest). No writer:
	// on PGlite the fill's transaction and an append's read on another
	// connection wait for each other (seen here; a PostgreSQL server
	// serves both), which the SQLite test covers.
	err := loadCmd([]string{"-n", "60", "-db", db + "&pool_max_conns=3", "-work", t.TempDir(), "-clients", "2", "-searches", "12", "-duration", "5m"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	var r loadResult
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if r.Engine != "postgres" || r.Searches != 12 || r.Errors != 0 || r.Degraded != 0 || r.SearchIDs != 12 || r.TelemetryRows != 12 {
		t.Errorf("%+v: want 12 searches on postgres answered and recorded once", r)
	}
}

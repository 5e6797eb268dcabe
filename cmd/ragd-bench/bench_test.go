package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd"
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

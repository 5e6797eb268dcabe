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
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/vectest"
	"github.com/ragd/ragd/store"
)

// Corpus recipe, as search/bench_test.go has it.
const (
	dims = 768
	// space names the synthetic embedding space.
	space = "bench/768"
	// zipfS and vocabulary make word frequencies like natural text's: "w1"
	// is as common as "the", "w5000" as rare as a technical term.
	zipfS      = 1.07
	vocabulary = 50_000
	// contentChars is about a real chunk's size.
	contentChars = 1200
	// chunksPerFile groups docs and adr chunks into files, session chunks
	// into sessions.
	chunksPerFile = 100
	corpusSeed    = 42
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func content(z *rand.Zipf) string {
	b := make([]byte, 0, contentChars+100)
	for len(b) < contentChars {
		b = append(b, 'w')
		b = strconv.AppendUint(b, z.Uint64()+1, 10)
		b = append(b, ' ')
	}
	return string(b)
}

// corpus calls fn with each scope's chunks of the corpus of n chunks, a
// third in each scope, in the order build writes them: the same chunks
// every time (a seeded generator), so that measure can rebuild the
// vectors to check an engine's KNN against an exact one.
func corpus(n int, fn func(scope string, in []ragd.ChunkInput) error) error {
	r := rand.New(rand.NewSource(corpusSeed))
	z := rand.NewZipf(r, zipfS, 2, vocabulary)
	for i, scope := range ragd.Scopes {
		from, to := i*n/len(ragd.Scopes), (i+1)*n/len(ragd.Scopes)
		in := make([]ragd.ChunkInput, 0, to-from)
		for j := from; j < to; j++ {
			c := ragd.ChunkInput{Position: j, Content: content(z), ContentHash: strconv.Itoa(j), Vector: vectest.RandomUnit(r, dims)}
			if scope == ragd.ScopeSession {
				c.SessionID, c.EventID = fmt.Sprintf("s%06d", j/chunksPerFile), fmt.Sprintf("e%07d", j)
			} else {
				c.SourcePath = fmt.Sprintf("docs/%s/f%06d.md", scope, j/chunksPerFile)
			}
			in = append(in, c)
		}
		if err := fn(scope, in); err != nil {
			return err
		}
	}
	return nil
}

// buildCmd writes a corpus of n chunks, each scope in one ReplaceScope as
// a reindex writes it, and records the build's time, the writes' time,
// peak memory and size beside it (a SQLite file) or on standard output (a
// database at a URL, which holds one corpus at a time: its bench project
// is removed first).
func buildCmd(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	n := fs.Int("n", 10_000, "chunks")
	db := fs.String("db", "", "database: a SQLite file's path or a postgres:// URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *db == "" {
		return errors.New("build: -db is required: the SQLite file or postgres:// URL to build the corpus in")
	}
	if err := checkDB(*db); err != nil {
		return err
	}
	ctx := context.Background()
	if !isURL(*db) {
		// A half-built corpus is useless: start over, removing the
		// corpus's own files only (never the folder: -db may name a file
		// in one that holds other things).
		if err := removeCorpusFiles(*db); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(*db), 0o700); err != nil {
			return err
		}
	}
	start := time.Now()
	st, err := openCorpus(ctx, *db)
	if err != nil {
		return err
	}
	if old, err := st.Project(ctx, "bench"); err == nil {
		if _, err := st.RemoveProject(ctx, old.ID); err != nil {
			return fmt.Errorf("remove the previous corpus: %w", err)
		}
	} else if !errors.Is(err, ragd.ErrNotFound) {
		return err
	}
	p, err := st.AddProject(ctx, "bench", "/bench")
	if err != nil {
		return err
	}
	var write time.Duration
	err = corpus(*n, func(scope string, in []ragd.ChunkInput) error {
		t0 := time.Now()
		if _, err := st.ReplaceScope(ctx, p.ID, scope, in); err != nil {
			return err
		}
		took := time.Since(t0)
		write += took
		fmt.Fprintf(os.Stderr, "  %s: %d chunks written in %s (%.0f chunks/s)\n", scope, len(in), took.Round(time.Millisecond), float64(len(in))/took.Seconds())
		return nil
	})
	if err != nil {
		return err
	}
	b := buildInfo{Chunks: *n, WriteSeconds: write.Seconds()}
	if b.DBMB, err = dbMB(ctx, st, *db); err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	b.Seconds, b.PeakRSSMB = time.Since(start).Seconds(), procStatus("VmHWM")
	if !isURL(*db) {
		b.DBMB = fileMB(*db, *db+"-wal")
	}
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	if isURL(*db) {
		_, err = fmt.Printf("%s\n", data)
		return err
	}
	return os.WriteFile(buildInfoPath(*db), data, 0o600)
}

// removeCorpusFiles removes the files a build at db writes: the database,
// its telemetry database (each with its WAL and shared-memory files) and
// the build record.
func removeCorpusFiles(db string) error {
	var files []string
	for _, base := range []string{db, store.TelemetryPath(db)} {
		files = append(files, base, base+"-wal", base+"-shm")
	}
	files = append(files, buildInfoPath(db))
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("build: start over: %w", err)
		}
	}
	return nil
}

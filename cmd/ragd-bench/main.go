// Command ragd-bench measures ragd's store and search at scale: it builds a
// synthetic corpus of 10k, 100k and 1M chunks (Zipf-distributed words,
// random unit vectors of 768 dims, as the Go benchmarks build them) once,
// caches each in the user's cache folder, and prints the table of
// docs/scale.md for each size.
//
//	make bench-scale                      # every size
//	go run ./cmd/ragd-bench -sizes 10000  # one size
//
// Each corpus is built and measured in a process of its own, so the memory
// figures are the build's peak and the serving process's resident set.
//
// ragd-bench load runs a daemon in this process and measures clients
// searching over its socket, with a followed session appending and a
// reindex loop if asked, and prints one JSON line (docs/scale.md):
//
//	ragd-bench load -beir ../shared/bench/scifact -work W -clients 8 -duration 15s -writer
//	ragd-bench load -n 100000 -provider none -clients 8 -writer
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "build":
		err = buildCmd(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "measure":
		err = measureCmd(os.Args[2:])
	case len(os.Args) > 1 && os.Args[1] == "load":
		err = loadCmd(os.Args[2:], os.Stdout)
	default:
		err = run(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ragd-bench:", err)
		os.Exit(1)
	}
}

// corpusVersion names the corpus's recipe: change it when the generator or
// the schema it is built with changes, and the cache rebuilds.
const corpusVersion = "v1"

// cacheDir is where corpora live: never in the repository.
func cacheDir() (string, error) {
	if d := os.Getenv("RAGD_BENCH_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache folder (set RAGD_BENCH_CACHE): %w", err)
	}
	return filepath.Join(base, "ragd-bench"), nil
}

func corpusPath(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("scale-%s-%d", corpusVersion, n), "ragd.db")
}

func run(args []string) error {
	fs := flag.NewFlagSet("ragd-bench", flag.ContinueOnError)
	sizes := fs.String("sizes", "10000,100000,1000000", "corpus sizes in chunks, comma-separated")
	modes := fs.String("modes", "exact,quantized", "vector search modes to measure (SQLite; a postgres:// database is measured in mode hnsw)")
	db := fs.String("db", "", "a postgres:// URL: build and measure each size in that database (it holds one corpus at a time, so each is rebuilt) instead of SQLite files in the cache folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkDB(*db); err != nil {
		return err
	}
	if *db != "" && !isURL(*db) {
		return fmt.Errorf("-db %q: want a postgres:// URL (SQLite corpora live in the cache folder)", *db)
	}
	if *db != "" {
		*modes = hnswMode
	}
	dir, err := cacheDir()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var results []measurement
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 3 {
			return fmt.Errorf("size %q: want a number of chunks ≥ 3", s)
		}
		path := corpusPath(dir, n)
		var b buildInfo
		if *db != "" {
			path = *db
			fmt.Fprintf(os.Stderr, "building %d chunks in %s …\n", n, redact(path))
			if err := child(self, &b, "build", "-n", strconv.Itoa(n), "-db", path); err != nil {
				return fmt.Errorf("build %d: %w", n, err)
			}
		} else if b, err = readBuild(path); err != nil {
			fmt.Fprintf(os.Stderr, "building %d chunks in %s …\n", n, filepath.Dir(path))
			if err := child(self, nil, "build", "-n", strconv.Itoa(n), "-db", path); err != nil {
				return fmt.Errorf("build %d: %w", n, err)
			}
			if b, err = readBuild(path); err != nil {
				return err
			}
		}
		for _, mode := range strings.Split(*modes, ",") {
			fmt.Fprintf(os.Stderr, "measuring %d chunks, %s vectors …\n", n, mode)
			var m measurement
			if err := child(self, &m, "measure", "-n", strconv.Itoa(n), "-db", path, "-mode", mode); err != nil {
				return fmt.Errorf("measure %d %s: %w", n, mode, err)
			}
			m.Build = b
			results = append(results, m)
		}
	}
	printTable(os.Stdout, results)
	return nil
}

// child runs this program with args and decodes its JSON answer into out.
func child(self string, out any, args ...string) error {
	cmd := exec.Command(self, args...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(stdout.Bytes(), out)
}

// buildInfo is what building a corpus measured; it is kept beside it.
type buildInfo struct {
	Chunks  int     `json:"chunks"`
	Seconds float64 `json:"seconds"`
	// WriteSeconds is the time spent in ReplaceScope alone: Chunks over it
	// is the index throughput, without generating the corpus.
	WriteSeconds float64 `json:"writeSeconds"`
	PeakRSSMB    float64 `json:"peakRssMb"`
	// DBMB is the database's size on disk after the build.
	DBMB float64 `json:"dbMb"`
}

func buildInfoPath(db string) string { return filepath.Join(filepath.Dir(db), "build.json") }

// readBuild reads a complete corpus's build record; a corpus without one was
// not finished.
func readBuild(db string) (buildInfo, error) {
	var b buildInfo
	data, err := os.ReadFile(buildInfoPath(db))
	if err != nil {
		return b, err
	}
	return b, json.Unmarshal(data, &b)
}

// procStatus reads a field of /proc/self/status in MB (VmRSS, VmHWM).
func procStatus(field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

func fileMB(paths ...string) float64 {
	var total int64
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	return float64(total) / (1 << 20)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

package redact_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd/redact"
)

// benchTexts reads the lines of the real transcripts under
// RAGD_BENCH_DIR (or /work/shared/bench/transcripts): what the redactor
// sees on an import.
func benchTexts(b *testing.B) []string {
	dir := os.Getenv("RAGD_BENCH_DIR")
	if dir == "" {
		dir = "/work/shared/bench/transcripts"
	}
	var texts []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) == ".md" && filepath.Base(p) == "README.md" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			texts = append(texts, sc.Text())
		}
		return sc.Err()
	})
	if err != nil {
		b.Fatalf("bench transcripts: %v (set RAGD_BENCH_DIR to the transcripts folder)", err)
	}
	return texts
}

// BenchmarkString redacts every line of the real transcripts: MB/s is
// the redactor's throughput on text with (almost) no secret.
func BenchmarkString(b *testing.B) {
	texts := benchTexts(b)
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	redact.String("warm up the rules", nil)
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		for _, t := range texts {
			redact.String(t, nil)
		}
	}
}

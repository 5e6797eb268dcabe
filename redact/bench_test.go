package redact_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/redact"
	"github.com/ragd/ragd/transcript"
)

// benchDir is the folder of real transcripts: RAGD_BENCH_DIR, else the
// shared folder beside the repository.
func benchDir() string {
	if d := os.Getenv("RAGD_BENCH_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "bench", "transcripts")
}

// benchLines reads the lines of the real transcripts.
func benchLines(b *testing.B) []string {
	dir := benchDir()
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

// BenchmarkString redacts the texts the readers make of the real
// transcripts (prompts, answers, tool calls with their JSON input, tool
// output): what the redactor sees on an import. MB/s is its throughput
// on text with (almost) no secret.
func BenchmarkString(b *testing.B) {
	texts := benchEventTexts(b)
	benchTexts := func(b *testing.B, texts []string) {
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
	b.Run("events", func(b *testing.B) { benchTexts(b, texts) })
	// The transcript lines themselves, JSON with every string escaped:
	// the worst case (what a keep-raw payload would cost).
	b.Run("raw-lines", func(b *testing.B) { benchTexts(b, benchLines(b)) })
}

// benchEventTexts reads the real transcripts with package transcript
// and returns the text and title of every event.
func benchEventTexts(b *testing.B) []string {
	var texts []string
	for _, f := range transcript.Formats {
		files, err := transcript.Discover(f, []string{filepath.Join(benchDir(), string(f))})
		if err != nil {
			b.Fatalf("bench transcripts: %v (set RAGD_BENCH_DIR to the transcripts folder)", err)
		}
		for _, p := range files {
			fh, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			_, err = transcript.Read(f, fh, p, transcript.Options{}, func(_ *transcript.Session, e ragd.Event) error {
				texts = append(texts, e.Text)
				if e.Title != "" {
					texts = append(texts, e.Title)
				}
				return nil
			})
			fh.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	if len(texts) == 0 {
		b.Fatalf("no events in %s", benchDir())
	}
	return texts
}

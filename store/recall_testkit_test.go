//go:build testkit

// The recall of the quantized vector search on real embeddings: SciFact's
// corpus and training queries embedded by the test kit's server.
//
//	eval "$(../shared/testkit/use-lite up)"
//	go test -tags sqlite_fts5,testkit -run '^TestKitQuantizedRecall' -v ./store/
//
// The vectors are cached in the user cache folder (ragd-bench/), keyed by
// model, so only the first run waits for the server. It fails, rather than
// skips, when the server is not configured.

package store

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ragd/ragd"
)

// recallTarget is the bar: recall@12 against the exact KNN.
const recallTarget = 0.95

// The sample of SciFact embedded: documents, and characters of each.
const (
	recallDocs     = 2000
	recallDocChars = 600
)

func TestKitQuantizedRecall(t *testing.T) {
	host, model := os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_TESTKIT_MODEL")
	dims, err := strconv.Atoi(os.Getenv("RAGD_TESTKIT_DIMS"))
	if host == "" || model == "" || err != nil || dims <= 0 {
		t.Fatalf("testkit tier needs OLLAMA_HOST, RAGD_TESTKIT_MODEL and RAGD_TESTKIT_DIMS "+
			"(eval \"$(../shared/testkit/use-lite up)\"); got %q, %q, %q", host, model, os.Getenv("RAGD_TESTKIT_DIMS"))
	}
	dir := sharedDir(t)
	// The kit's servers embed a few long texts a second on the shared
	// cores: a sample of the corpus, each document cut to its title and
	// lead, keeps the first run to minutes.
	docs := readJSONL(t, filepath.Join(dir, "bench", "scifact", "corpus.jsonl.gz"), true)[:recallDocs]
	for i, d := range docs {
		if r := []rune(d); len(r) > recallDocChars {
			docs[i] = string(r[:recallDocChars])
		}
	}
	queries := readJSONL(t, filepath.Join(dir, "bench", "scifact", "queries-train.jsonl"), false)
	docVecs := cachedEmbeddings(t, host, model, dims, "scifact-corpus", docs)
	queryVecs := cachedEmbeddings(t, host, model, dims, "scifact-queries-train", queries)

	ctx := context.Background()
	s := mustOpen(t, dims)
	p := mustProject(t, s, "scifact")
	var in []ragd.ChunkInput
	for i, v := range docVecs {
		in = append(in, docChunk(fmt.Sprintf("docs/%05d.md", i/100), i, docs[i], v))
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if dims < quantizedMinDims {
		// Short vectors are never searched through the codes, whatever the
		// project's size: the store scans them exactly.
		if s.quantizedMin != math.MaxInt {
			t.Fatalf("%s (%d dims): codes used from %d vectors, want never below %d dims", model, dims, s.quantizedMin, quantizedMinDims)
		}
		t.Logf("%s (%d dims): scanned exactly, as every vector shorter than %d dims; the recall curve of its codes follows", model, dims, quantizedMinDims)
	}
	const k = 12
	exact := make([]map[string]bool, len(queryVecs))
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	s.quantizedMin = len(docVecs) + 1 // exact
	for i, q := range queryVecs {
		got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, q, k)
		if err != nil {
			t.Fatal(err)
		}
		exact[i] = map[string]bool{}
		for _, c := range got {
			exact[i][c.ChunkID] = true
		}
	}
	s.quantizedMin = 0
	// The shortlist of a large project is shortlistFactor·k; on this small
	// corpus the floor would hide the curve, so it is lifted.
	s.minShortlist = 0
	recallAt := map[int]float64{}
	for _, factor := range []int{1, 2, 4, 8, 16, 32} {
		s.shortlistFactor = factor
		var found, total int
		for i, q := range queryVecs {
			got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, q, k)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range got {
				if exact[i][c.ChunkID] {
					found++
				}
			}
			total += len(exact[i])
		}
		recallAt[factor] = float64(found) / float64(total)
		t.Logf("%s, %d docs, %d queries: shortlist %d (%d×k): recall@%d %.4f",
			model, len(docVecs), len(queryVecs), factor*k, factor, k, recallAt[factor])
	}
	if r := recallAt[shortlistFactor]; r < recallTarget && dims >= quantizedMinDims {
		t.Errorf("recall@%d %.4f at the configured shortlist factor %d, want ≥ %.2f", k, r, shortlistFactor, recallTarget)
	}
}

func sharedDir(t *testing.T) string {
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared")
}

// readJSONL reads the texts of a BEIR file: title and text of each line.
func readJSONL(t *testing.T, path string, gz bool) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r *bufio.Scanner
	if gz {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = bufio.NewScanner(z)
	} else {
		r = bufio.NewScanner(f)
	}
	r.Buffer(nil, 1<<22)
	var out []string
	for r.Scan() {
		var rec struct{ Title, Text string }
		if err := json.Unmarshal(r.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, ragdText(rec.Title, rec.Text))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func ragdText(title, text string) string {
	if title == "" {
		return text
	}
	return title + "\n\n" + text
}

// cachedEmbeddings embeds texts with the server, or reads them from the
// cache of an earlier run.
func cachedEmbeddings(t *testing.T, host, model string, dims int, name string, texts []string) [][]float32 {
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(base, "ragd-bench", "vectors", fmt.Sprintf("%s-%s-%d.f32", name, model, len(texts)))
	if data, err := os.ReadFile(path); err == nil && len(data) == 4*dims*len(texts) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, dims)
			for j := range out[i] {
				out[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*(i*dims+j):]))
			}
		}
		return out
	}
	t0 := time.Now()
	const batch = 32
	var out [][]float32
	var buf bytes.Buffer
	for start := 0; start < len(texts); start += batch {
		body, _ := json.Marshal(map[string]any{"model": model, "input": texts[start:min(start+batch, len(texts))], "truncate": true})
		resp, err := http.Post(host+"/api/embed", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Embeddings [][]float32 }
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || len(r.Embeddings) != min(batch, len(texts)-start) {
			t.Fatalf("embed %s %d: %v (%d vectors)", name, start, err, len(r.Embeddings))
		}
		for _, v := range r.Embeddings {
			if len(v) != dims {
				t.Fatalf("embed %s: %d dims, want %d", name, len(v), dims)
			}
			for _, x := range v {
				buf.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(x)))
			}
		}
		out = append(out, r.Embeddings...)
	}
	t.Logf("embedded %d %s texts in %s", len(texts), name, time.Since(t0).Round(time.Second))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		os.WriteFile(path, buf.Bytes(), 0o600)
	}
	return out
}

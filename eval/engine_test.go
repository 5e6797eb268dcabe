package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/engine"
	"github.com/ragd/ragd/engines"
	"github.com/ragd/ragd/internal/pgtest"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store/postgres"
)

// The PostgreSQL engine is an evaluation's store.
var _ engine.Store = (*postgres.Store)(nil)

func TestDatabaseScheme(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/home/me/.local/share/ragd/ragd.db", ""},
		{"ragd.db", ""},
		{"./postgres:x.db", ""},
		{"C:/x", "c"},
		{"postgres://u@h/db", "postgres"},
		{"PostgreSQL://h/db", "postgresql"},
		{"mysql://h/db", "mysql"},
		{"1x://h", ""},
	} {
		if got := ragd.DatabaseScheme(tc.in); got != tc.want {
			t.Errorf("ragd.DatabaseScheme(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestOpen_RefusesOtherSchemes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := engines.Open(context.Background(), "mysql://u:secret@h/db", engine.Options{Space: "test/8", Dims: 8, Logger: quiet})
	if err == nil || !strings.Contains(err.Error(), `unknown scheme "mysql"`) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("engines.Open(mysql://…) = %v: want an unknown scheme, without the password", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused URL created %d entries in the working directory", len(entries))
	}
}

// TestPrepare_Postgres runs the evaluation path on the PostgreSQL engine:
// a BEIR corpus indexed into the database and every standard mode
// measured, then a golden file on a repository indexed into a database of
// its own (--repo).
func TestPrepare_Postgres(t *testing.T) {
	ctx := context.Background()
	const dims = 32
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"nomic-embed-text": dims}})
	emb := embedding.Config{Host: srv.URL, Model: "nomic-embed-text", Dims: dims, IndexTimeout: 30 * time.Second}
	beir := syntheticBEIR(t, 60, 1)
	work := filepath.Join(t.TempDir(), "work")

	ev, err := Prepare(ctx, Options{BEIR: beir, Work: work, Database: pgtest.Fresh(t), Embedding: emb,
		Search: search.DefaultConfig(), Bootstrap: DefaultBootstrap(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	rep := ev.Evaluate(nil)
	if rep.Index == nil || rep.Index.Chunks == 0 || rep.Index.Embedded != rep.Index.Chunks || !rep.Index.Complete {
		t.Errorf("index %+v: want every chunk written and embedded", rep.Index)
	}
	if rep.VectorUnavailable != 0 {
		t.Errorf("%d queries without a vector: %s", rep.VectorUnavailable, rep.VectorReason)
	}
	means := map[string]map[string]float64{}
	for _, m := range rep.Modes {
		means[m.Name] = m.Means
	}
	for _, name := range []string{"lexical", "vector", "weighted", "rrf"} {
		m, ok := means[name]
		if !ok {
			t.Fatalf("no mode %s in %v", name, means)
		}
		for _, metric := range Metrics {
			if v := m[metric]; !(v > 0 && v <= 1) {
				t.Errorf("%s %s = %v: want a measured value in (0, 1]", name, metric, v)
			}
		}
	}
	// Each query's topic words are in its relevant documents only:
	// the PostgreSQL engine's ranking finds them, as bm25 does.
	if lex := means["lexical"]; lex[NDCG10] < 0.9 || lex[Recall100] != 1 {
		t.Errorf("lexical on postgres: %v", lex)
	}
	ev.Close()

	// A golden file of the corpus's repository, indexed with --repo into
	// a database of its own.
	golden := filepath.Join(t.TempDir(), "golden.jsonl")
	var lines []string
	for q := range 5 {
		line, err := json.Marshal(map[string]any{"query": fmt.Sprintf("what about topic%dword and theme%d", q, q),
			"relevant": []map[string]any{{"sourcePath": BEIRPath(fmt.Sprintf("doc/%d", q)), "grade": 2}}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(line))
	}
	if err := os.WriteFile(golden, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ev, err = Prepare(ctx, Options{Golden: golden, Repo: filepath.Join(work, repoDir), Database: pgtest.Fresh(t), Embedding: emb,
		Search: search.DefaultConfig(), Bootstrap: DefaultBootstrap(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	rep = ev.Evaluate(nil)
	if rep.Counts.Judged != 5 || rep.Index == nil || rep.Index.Chunks == 0 || !strings.HasPrefix(rep.Dataset, "golden.jsonl on project repo") {
		t.Errorf("golden on --repo: %+v, index %+v, dataset %q", rep.Counts, rep.Index, rep.Dataset)
	}
	for _, m := range rep.Modes {
		if m.Means[NDCG10] <= 0 {
			t.Errorf("golden on --repo, %s: nDCG@10 %v", m.Name, m.Means[NDCG10])
		}
	}
}

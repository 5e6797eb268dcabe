package eval

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBEIR writes a BEIR folder: files maps names to contents; a name
// ending in .gz is gzip-compressed.
func writeBEIR(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			tb.Fatal(err)
		}
		if strings.HasSuffix(name, ".gz") {
			gz := gzip.NewWriter(f)
			gz.Write([]byte(content))
			gz.Close()
		} else {
			f.WriteString(content)
		}
		f.Close()
	}
	return dir
}

func fileSHA256(tb testing.TB, path string) string {
	tb.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

const tinyCorpus = `{"_id": "d1", "title": "Aspirin", "text": "Aspirin reduces heart attack risk."}
{"_id": "d2", "title": "Statins", "text": "Statins lower cholesterol."}
{"_id": "d3", "title": "", "text": "Vitamin C does not cure colds."}
`

func TestLoadBEIR(t *testing.T) {
	dir := writeBEIR(t, map[string]string{
		"corpus.jsonl.gz": tinyCorpus,
		"queries-train.jsonl": `{"_id": "q1", "text": "aspirin heart"}
{"_id": 2, "text": "cholesterol drugs"}
{"_id": "q3", "text": "unjudged"}
{"_id": "q4", "text": "judged on a missing doc"}
`,
		"qrels-train.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\n2\td2\t2\n2\td2\t1\n2\td3\t0\nq4\tdX\t1\nq9\td1\t1\n",
	})
	b, err := LoadBEIR(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if b.Split != "train" || b.Docs != 3 || b.CorpusSHA256 != fileSHA256(t, b.Corpus) {
		t.Errorf("split %q, %d docs, sha %q (want the file's)", b.Split, b.Docs, b.CorpusSHA256)
	}
	r := b.Report
	if r.Queries != 4 || r.Evaluated != 3 || r.WithoutQrels != 1 || r.Qrels != 6 || r.NotRelevant != 1 ||
		r.Duplicates != 1 || r.UnknownQueries != 1 || r.UnknownDocs != 1 {
		t.Errorf("report %+v", r)
	}
	if len(b.Set.Queries) != 3 {
		t.Fatalf("%d queries, want 3", len(b.Set.Queries))
	}
	q2 := b.Set.Queries[1]
	if q2.ID != "2" || len(q2.Relevant) != 1 || q2.Relevant[0].DocID != "d2" || q2.Relevant[0].Grade != 2 || q2.Unit != UnitDocument {
		t.Errorf("query 2: %+v (a repeated judgment keeps the highest score; score 0 is not relevant)", q2)
	}
	q4 := b.Set.Queries[2]
	if len(q4.Relevant) != 0 || len(q4.Unresolvable) != 1 || q4.Unresolvable[0].Citation.DocID != "dX" {
		t.Errorf("query q4: %+v: a judgment on a document not in the corpus is unresolvable", q4)
	}
	w := strings.Join(b.Set.Warnings, "\n")
	if !strings.Contains(w, "1 judgments name queries not in queries-train.jsonl (ignored), e.g. q9") ||
		!strings.Contains(w, "1 judgments name documents not in corpus.jsonl.gz (unresolvable, counted apart), e.g. dX") {
		t.Errorf("warnings:\n%s", w)
	}
	if c := b.Set.Counts(); c.Judged != 2 || c.NoRelevant != 1 || c.Unresolvable != 1 {
		t.Errorf("counts %+v", c)
	}
}

func TestLoadBEIRBadInput(t *testing.T) {
	good := map[string]string{
		"corpus.jsonl":    tinyCorpus,
		"queries.jsonl":   `{"_id": "q1", "text": "aspirin"}` + "\n",
		"qrels/test.tsv":  "q1\td1\t1\n",
		"qrels/train.tsv": "q1\td2\t1\n",
	}
	with := func(change map[string]string, drop ...string) map[string]string {
		m := map[string]string{}
		for k, v := range good {
			m[k] = v
		}
		for k, v := range change {
			m[k] = v
		}
		for _, k := range drop {
			delete(m, k)
		}
		return m
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		split string
		want  string
	}{
		{"no corpus", with(nil, "corpus.jsonl"), "test", "missing the corpus: looked for corpus.jsonl, corpus.jsonl.gz"},
		{"no queries", with(nil, "queries.jsonl"), "test", "missing the queries: looked for queries-test.jsonl, queries.jsonl"},
		{"no qrels of the split", with(nil), "dev", "missing the judgments of split dev: looked for qrels/dev.tsv, qrels-dev.tsv"},
		{"several splits", with(nil), "", "judgments of several splits (test, train): choose one with --split"},
		{"no qrels at all", with(nil, "qrels/test.tsv", "qrels/train.tsv"), "", "missing the judgments: looked for qrels.tsv"},
		{"duplicate query", with(map[string]string{"queries.jsonl": `{"_id": "q1", "text": "a"}` + "\n\n" + `{"_id": "q1", "text": "b"}` + "\n"}), "test",
			`queries.jsonl:3: duplicate query id "q1" (first on line 1)`},
		{"query not JSON", with(map[string]string{"queries.jsonl": "{\"_id\": \"q1\", \"text\": \"a\"}\nnope\n"}), "test", "queries.jsonl:2: not a JSON object"},
		{"query without text", with(map[string]string{"queries.jsonl": `{"_id": "q1"}` + "\n"}), "test", `queries.jsonl:1: query q1: missing "text"`},
		{"bad score", with(map[string]string{"qrels/test.tsv": "q1\td1\t1\nq1\td2\thigh\n"}), "test", `test.tsv:2: score "high": want an integer`},
		{"bad qrels line", with(map[string]string{"qrels/test.tsv": "q1\td1\n"}), "test", "test.tsv:1: want query-id, corpus-id and score"},
		{"corpus without id", with(map[string]string{"corpus.jsonl": `{"title": "x", "text": "y"}` + "\n"}), "test", `corpus.jsonl: document 1 has no "_id"`},
		{"nothing judged", with(map[string]string{"qrels/test.tsv": "q7\td1\t1\n"}), "test", "no query of queries.jsonl has a judgment"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeBEIR(t, c.files)
			_, err := LoadBEIR(dir, c.split)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	if _, err := LoadBEIR("/nonexistent/beir", ""); err == nil || !strings.Contains(err.Error(), "/nonexistent/beir") {
		t.Errorf("missing folder: %v", err)
	}
	// TREC's four-column qrels, split given.
	dir := writeBEIR(t, with(map[string]string{"qrels/test.tsv": "q1 0 d1 1\n"}))
	b, err := LoadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Set.Queries) != 1 || b.Set.Queries[0].Relevant[0].DocID != "d1" {
		t.Errorf("TREC qrels: %+v", b.Set.Queries)
	}
}

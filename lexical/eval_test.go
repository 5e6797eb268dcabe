package lexical_test

// A regression check of ranking per language, without the store: the
// judged sets under testdata/lang are ranked with bm25 as FTS5 computes it
// (k1 1.2, b 0.75, idf floored), one document per file, over the analysed
// tokens, and nDCG@10 is compared between the analysis of the text's
// language and an approximation of today's (FTS5 porter over unicode61:
// Porter on ASCII words, everything else lowercased and folded).
//
//	go test -tags sqlite_fts5 -run TestJudgedSets -v ./lexical/
//
// The Russian set also ranks the seed documents, read from the shared
// folder (RAGD_SHARED_DIR, by default ../../shared from this package).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/porter"

	"github.com/ragd/ragd/lexical"
)

// Parameters of FTS5's bm25() and of the metric.
const (
	bm25K1   = 1.2
	bm25B    = 0.75
	idfFloor = 1e-6 // FTS5 floors a negative idf at this
	ndcgAt   = 10
)

// minGain is the least nDCG@10 the language's analysis must add over
// today's on its own set: the sets were written to need stemming, and a
// smaller gain means the stemmer stopped joining inflections.
const minGain = 0.05

func sharedDir() string {
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared")
}

type judgedQuery struct {
	ID       string `json:"id"`
	Query    string `json:"query"`
	Relevant []struct {
		SourcePath string `json:"sourcePath"`
	} `json:"relevant"`
}

func readJudged(t *testing.T, path string) []judgedQuery {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("judged set: %v", err)
	}
	defer f.Close()
	var out []judgedQuery
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q judgedQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

// readDocs reads every file under dir/sub, keyed by its path from dir.
func readDocs(t *testing.T, dir, sub string, docs map[string]string) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		docs[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("read %s: %v (set RAGD_SHARED_DIR to the shared folder)", filepath.Join(dir, sub), err)
	}
}

// analysis is one way of turning documents and queries into tokens.
type analysis struct {
	name  string
	doc   func(string) []string
	query func(string) [][]string // OR-ed terms, each a phrase
}

func languageAnalysis(t *testing.T, lang lexical.Language) analysis {
	a := mustNew(t, lang)
	return analysis{
		name: string(lang),
		doc:  a.Analyze,
		query: func(q string) [][]string {
			var terms [][]string
			words := strings.Fields(q)
			for _, w := range words {
				if a.IsStopWord(w) {
					continue
				}
				for _, term := range a.Word(w) {
					terms = append(terms, term.Tokens)
				}
			}
			return terms
		},
	}
}

// todayAnalysis approximates FTS5's porter tokenizer over unicode61 with
// remove_diacritics 2, and today's English stop words: Porter stems
// ASCII words and leaves the others.
func todayAnalysis(t *testing.T) analysis {
	simple := mustNew(t, lexical.Simple)
	env := snowballstem.NewEnv("")
	stem := func(toks []string) []string {
		out := make([]string, len(toks))
		for i, tok := range toks {
			out[i] = tok
			if strings.IndexFunc(tok, func(r rune) bool { return r >= 0x80 }) < 0 {
				env.SetCurrent(tok)
				porter.Stem(env)
				out[i] = env.Current()
			}
		}
		return out
	}
	return analysis{
		name: "today",
		doc:  func(s string) []string { return stem(simple.Analyze(s)) },
		query: func(q string) [][]string {
			var terms [][]string
			for _, w := range strings.Fields(q) {
				if simple.IsStopWord(w) {
					continue
				}
				if toks := stem(simple.Phrase(w).Tokens); len(toks) > 0 {
					terms = append(terms, toks)
				}
			}
			return terms
		},
	}
}

// ndcg ranks docs for each query with bm25 and returns the mean nDCG@10.
func ndcg(docs map[string]string, queries []judgedQuery, an analysis) float64 {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range docs {
			if !yield(k) {
				return
			}
		}
	})
	toks := make([][]string, len(names))
	total := 0
	for i, n := range names {
		toks[i] = an.doc(docs[n])
		total += len(toks[i])
	}
	avgdl := float64(total) / float64(len(names))
	var sum float64
	for _, q := range queries {
		terms := an.query(q.Query)
		type scored struct {
			name  string
			score float64
		}
		var ranked []scored
		tf := make([][]int, len(terms))
		for j, term := range terms {
			tf[j] = make([]int, len(names))
			for i := range names {
				tf[j][i] = countRun(toks[i], term)
			}
		}
		for i, n := range names {
			var s float64
			for j := range terms {
				if tf[j][i] == 0 {
					continue
				}
				df := 0
				for _, c := range tf[j] {
					if c > 0 {
						df++
					}
				}
				idf := math.Max(math.Log((float64(len(names))-float64(df)+0.5)/(float64(df)+0.5)), idfFloor)
				f := float64(tf[j][i])
				s += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(len(toks[i]))/avgdl))
			}
			if s > 0 {
				ranked = append(ranked, scored{n, s})
			}
		}
		sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
		rel := map[string]bool{}
		for _, r := range q.Relevant {
			rel[r.SourcePath] = true
		}
		var dcg, ideal float64
		for k := 0; k < ndcgAt && k < len(ranked); k++ {
			if rel[ranked[k].name] {
				dcg += 1 / math.Log2(float64(k+2))
			}
		}
		for k := 0; k < ndcgAt && k < len(rel); k++ {
			ideal += 1 / math.Log2(float64(k+2))
		}
		sum += dcg / ideal
	}
	return sum / float64(len(queries))
}

// countRun counts the occurrences of run as adjacent tokens in toks.
func countRun(toks, run []string) int {
	n := 0
	for i := 0; i+len(run) <= len(toks); i++ {
		if slices.Equal(toks[i:i+len(run)], run) {
			n++
		}
	}
	return n
}

func TestJudgedSets(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		lang  lexical.Language
		seeds bool
	}{
		{"testdata/lang/ru", lexical.Russian, true},
		{"testdata/lang/pt", lexical.Portuguese, false},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			docs := map[string]string{}
			readDocs(t, tc.dir, "docs", docs)
			queries := readJudged(t, filepath.Join(tc.dir, "golden.jsonl"))
			if len(queries) < 30 || len(docs) < 15 {
				t.Fatalf("%d queries over %d documents: the set is too small", len(queries), len(docs))
			}
			if tc.seeds {
				seeds := map[string]string{}
				readDocs(t, sharedDir(), "seeds", seeds)
				if len(seeds) == 0 {
					t.Fatalf("no seed in %s", filepath.Join(sharedDir(), "seeds"))
				}
				for k, v := range seeds {
					docs[k] = v
				}
				queries = append(queries, readJudged(t, filepath.Join(tc.dir, "seeds.jsonl"))...)
			}
			for _, q := range queries {
				for _, r := range q.Relevant {
					if _, ok := docs[r.SourcePath]; !ok {
						t.Fatalf("query %s cites %s, which is not in the set", q.ID, r.SourcePath)
					}
				}
			}
			scores := map[string]float64{}
			var line []string
			for _, an := range []analysis{todayAnalysis(t), languageAnalysis(t, lexical.Simple),
				languageAnalysis(t, lexical.English), languageAnalysis(t, tc.lang)} {
				scores[an.name] = ndcg(docs, queries, an)
				line = append(line, fmt.Sprintf("%s %.3f", an.name, scores[an.name]))
			}
			t.Logf("%s: %d queries, %d documents: nDCG@10 %s", tc.lang, len(queries), len(docs), strings.Join(line, ", "))
			if gain := scores[string(tc.lang)] - scores["today"]; gain < minGain {
				t.Errorf("%s gains %.3f nDCG@10 over today's analysis, want at least %.2f", tc.lang, gain, minGain)
			}
		})
	}
}

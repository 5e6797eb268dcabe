package eval

// The judged Russian and Portuguese sets of lexical/testdata/lang through
// the real pipeline: their documents committed to a git repository, indexed
// lexical-only, the language set (and the lexical index rebuilt) per run,
// the golden files read, resolved and replayed as `ragd eval GOLDEN` does.
// The Russian set also ranks the seed documents, read from the shared
// folder at test time (RAGD_SHARED_DIR, by default ../../shared from this
// package) and committed as markdown.
//
//	go test -tags sqlite_fts5 -run TestJudgedLanguages -v ./eval/

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// minLanguageGain is the least lexical nDCG@10 the project's right
// language must add over analysing it with no stemming (simple: today's
// analysis of Cyrillic text) and, for Latin-script text, over English
// (today's Porter): the sets were written to need stemming.
const minLanguageGain = 0.05

func sharedDir() string {
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared")
}

// readTree reads every file under dir, keyed by its slash path from dir.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("read %s: %v (set RAGD_SHARED_DIR to the shared folder)", dir, err)
	}
	return out
}

func TestJudgedLanguages(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		lang  lexical.Language
		seeds bool
		// against are the analyses the language must beat by
		// minLanguageGain.
		against []lexical.Language
	}{
		{"../lexical/testdata/lang/ru", lexical.Russian, true, []lexical.Language{lexical.Simple}},
		{"../lexical/testdata/lang/pt", lexical.Portuguese, false, []lexical.Language{lexical.Simple, lexical.English}},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			ctx := context.Background()
			files := map[string]string{}
			for p, text := range readTree(t, filepath.Join(tc.dir, "docs")) {
				files["docs/"+p] = text
			}
			golden, err := os.ReadFile(filepath.Join(tc.dir, "golden.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if tc.seeds {
				seeds := readTree(t, filepath.Join(sharedDir(), "seeds"))
				if len(seeds) == 0 {
					t.Fatalf("no seed in %s", filepath.Join(sharedDir(), "seeds"))
				}
				judged, err := os.ReadFile(filepath.Join(tc.dir, "seeds.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				// Seeds are plain text: committed as markdown under docs/,
				// and their citations follow them.
				for name, text := range seeds {
					md := "docs/seeds/" + strings.TrimSuffix(name, filepath.Ext(name)) + ".md"
					files[md] = text
					judged = bytes.ReplaceAll(judged, []byte(`"seeds/`+name+`"`), []byte(`"`+md+`"`))
				}
				golden = append(golden, judged...)
			}
			repo := gittest.New(t)
			repo.Commit(t, "docs", files)

			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ragd.db"), store.Options{Space: "none/8", Dims: 8, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			p, err := st.AddProject(ctx, "lang", repo.Dir)
			if err != nil {
				t.Fatal(err)
			}
			ix := &index.Indexer{Store: st, Logger: quiet}
			if _, err := ix.Reindex(ctx, p, nil, nil); err != nil {
				t.Fatal(err)
			}
			if p, err = st.Project(ctx, "lang"); err != nil {
				t.Fatal(err)
			}
			if p.LexicalLanguage != string(tc.lang) {
				t.Errorf("detected %q, want %s", p.LexicalLanguage, tc.lang)
			}
			set, err := ParseGolden(bytes.NewReader(golden), "golden.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			res, err := NewProjectResolver(ctx, st, p)
			if err != nil {
				t.Fatal(err)
			}
			set.Resolve(res)
			queries := set.Judged()
			if len(queries) < 30 || len(set.Warnings) > 0 {
				t.Fatalf("%d judged queries, warnings %q", len(queries), set.Warnings)
			}

			ndcg := map[lexical.Language]float64{}
			var line []string
			for _, lang := range append([]lexical.Language{tc.lang}, append(tc.against, lexical.English)...) {
				if _, done := ndcg[lang]; done {
					continue
				}
				if _, err := ix.SetLanguage(ctx, p, string(lang)); err != nil {
					t.Fatal(err)
				}
				s := &search.Searcher{Store: st, Config: search.DefaultConfig(), Logger: quiet}
				rs, err := Retrieve(ctx, s, queries, RetrieveOptions{ProjectID: p.ID, Depth: 100})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rs {
					if r.R.Query.Language != lang {
						t.Fatalf("query %q analysed as %s in a %s index", r.Query.Text, r.R.Query.Language, lang)
					}
				}
				ndcg[lang] = Evaluate(rs, []Mode{LexicalMode(100)}, 2)[0].Means[NDCG10]
				line = append(line, fmt.Sprintf("%s %.3f", lang, ndcg[lang]))
			}
			t.Logf("%s: %d queries, %d documents, lexical nDCG@10: %s", tc.lang, len(queries), len(files), strings.Join(line, ", "))
			for _, other := range tc.against {
				if gain := ndcg[tc.lang] - ndcg[other]; gain < minLanguageGain {
					t.Errorf("%s gains %.3f nDCG@10 over %s, want at least %.2f", tc.lang, gain, other, minLanguageGain)
				}
			}
		})
	}
}

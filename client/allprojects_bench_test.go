package client_test

import (
	"archive/tar"
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// sharedDir is the shared bench folder: RAGD_SHARED_DIR, else the one
// beside the repository.
func sharedDir() string {
	if d := os.Getenv("RAGD_SHARED_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared")
}

// corpusFiles reads a tarball of markdown into a repository's files, each
// member under docs/ (as the golden sets' README says to fill it).
func corpusFiles(tb testing.TB, path string) map[string]string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("the judged corpora (RAGD_SHARED_DIR=/work/shared): %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	files := map[string]string{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatalf("read %s: %v", path, err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(h.Name, ".md") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			tb.Fatal(err)
		}
		files["docs/"+strings.TrimPrefix(h.Name, "./")] = string(b)
	}
	return files
}

type judged struct {
	Query    string `json:"query"`
	Relevant []struct {
		SourcePath  string   `json:"sourcePath"`
		HeadingPath []string `json:"headingPath"`
	} `json:"relevant"`
}

func readJudged(tb testing.TB, path string) []judged {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []judged
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var j judged
		if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		out = append(out, j)
	}
	return out
}

// answers reports whether h is one of j's judged sections.
func (j judged) answers(h api.Hit) bool {
	for _, r := range j.Relevant {
		if h.Origin.SourcePath == r.SourcePath && slices.Equal(h.Origin.HeadingPath, r.HeadingPath) {
			return true
		}
	}
	return false
}

// judgedK is the k of hit@k: the default search limit.
const judgedK = 6

// BenchmarkAllProjects_JudgedSets indexes the CometBFT and Kuma corpora
// as two projects and asks each judged query of both sets twice: of its
// own project alone, and of every project merged by rank. It reports the
// share of queries with a judged section in the top 6 each way (own_hit@6,
// merged_hit@6), the queries the merge loses (lost), and the time of one
// merged search. rawscore_hit@6 is the merge not taken: both lists by their
// raw scores, which are on each project's own statistics.
//
//	RAGD_SHARED_DIR=/work/shared go test ./client/ -run '^$' -bench JudgedSets -benchtime 20x
func BenchmarkAllProjects_JudgedSets(b *testing.B) {
	shared := sharedDir()
	srv := ollamatest.NewServer(b, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := daemontest.Start(b, daemontest.NewWorld(b), daemontest.Config(srv.URL))
	c := d.Client
	sets := []struct{ project, tarball, golden string }{
		{"cometbft", "cometbft-md-5bba72c.tar.gz", "cometbft.jsonl"},
		{"kuma", "kuma-docs-348b652.tar.gz", "kuma.jsonl"},
	}
	for _, s := range sets {
		repo := daemontest.Repo(b, corpusFiles(b, filepath.Join(shared, "corpora", s.tarball)))
		daemontest.AddProject(b, c, repo.Dir, s.project)
		daemontest.Reindex(b, c, s.project, "docs")
	}
	ctx := context.Background()
	limit := judgedK
	queries, own, merged, lost, raw := 0, 0, 0, 0, 0
	var last string
	for _, s := range sets {
		for _, j := range readJudged(b, filepath.Join(shared, "bench", "golden", s.golden)) {
			req := api.SearchRequest{Query: j.Query, Limit: &limit, Actor: "agent:bench"}
			alone, err := c.Search(ctx, s.project, req)
			if err != nil {
				daemontest.Fatal(b, "search", err)
			}
			all, err := c.SearchAllProjects(ctx, req)
			if err != nil {
				daemontest.Fatal(b, "search every project", err)
			}
			// The merge not taken: both projects' hits by their raw scores.
			var byScore []api.ProjectHit
			for _, o := range sets {
				r, err := c.Search(ctx, o.project, req)
				if err != nil {
					daemontest.Fatal(b, "search", err)
				}
				for _, h := range r.Hits {
					byScore = append(byScore, api.ProjectHit{Hit: h, Project: o.project})
				}
			}
			slices.SortStableFunc(byScore, func(x, y api.ProjectHit) int { return cmp.Compare(y.Score, x.Score) })
			byScore = byScore[:min(len(byScore), limit)]
			if slices.ContainsFunc(byScore, func(h api.ProjectHit) bool { return h.Project == s.project && j.answers(h.Hit) }) {
				raw++
			}
			foundAlone := slices.ContainsFunc(alone.Hits, j.answers)
			foundMerged := slices.ContainsFunc(all.Hits, func(h api.ProjectHit) bool { return h.Project == s.project && j.answers(h.Hit) })
			queries++
			if foundAlone {
				own++
			}
			if foundMerged {
				merged++
			}
			if foundAlone && !foundMerged {
				lost++
			}
			last = j.Query
		}
	}
	req := api.SearchRequest{Query: last, Limit: &limit, Actor: "agent:bench"}
	for b.Loop() {
		if _, err := c.SearchAllProjects(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(own)/float64(queries), "own_hit@6")
	b.ReportMetric(float64(merged)/float64(queries), "merged_hit@6")
	b.ReportMetric(float64(lost), "lost")
	b.ReportMetric(float64(raw)/float64(queries), "rawscore_hit@6")
	b.ReportMetric(float64(queries), "queries")
}

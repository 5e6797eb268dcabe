package search

import (
	"context"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
)

// TestSearch_UnspacedScripts: Chinese and Japanese text, which a word
// tokenizer would keep as whole clauses, is found by a few of its
// characters, best ranked where most of them occur; English text beside
// it ranks as before.
func TestSearch_UnspacedScripts(t *testing.T) {
	st := sqlitedb.OpenDims(t, 4)
	project := testdb.AddProject(t, st, "cjk", "/repos/cjk").ID
	testdb.Replace(t, st, project, ragd.ScopeDocs, []ragd.ChunkInput{
		doc("docs/ja.md", 0, []string{"検索"}, "このデーモンはプロジェクトごとに全文検索の索引を作ります。", unit(1)),
		doc("docs/zh.md", 0, []string{"索引"}, "我们使用倒排索引来加速全文检索。", unit(1)),
		doc("docs/en.md", 0, []string{"Search"}, "The daemon builds a full-text search index per project.", unit(1)),
	})
	s := searcher(st, nil)
	for _, tc := range []struct {
		query string
		want  []string // source paths, in rank order
	}{
		{"全文検索", []string{"docs/ja.md", "docs/zh.md"}}, // 全文 in both, 検索 in ja only
		{"倒排索引", []string{"docs/zh.md", "docs/ja.md"}}, // 索引 in both, 倒排 in zh only
		{"検索エンジン", []string{"docs/ja.md"}},
		{"全文检索", []string{"docs/zh.md", "docs/ja.md"}},
		{"full-text search index", []string{"docs/en.md"}},
	} {
		res, err := s.Search(context.Background(), Request{ProjectID: project, Query: tc.query, Limit: 10, Fusion: FusionRRF})
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Origin.SourcePath)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q found %v, want %v", tc.query, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q found %v, want %v", tc.query, got, tc.want)
				break
			}
		}
	}
}

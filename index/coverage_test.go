package index_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/source"
)

func coverage(tb testing.TB, ix *index.Indexer, p ragd.Project) (*ragd.Coverage, map[string]*ragd.ScopeCoverage) {
	tb.Helper()
	cov, err := ix.Coverage(context.Background(), p)
	if err != nil {
		tb.Fatalf("coverage: %v", err)
	}
	by := map[string]*ragd.ScopeCoverage{}
	for _, sc := range cov.Scopes {
		by[sc.Scope] = sc
	}
	return cov, by
}

func TestCoverage_FreshStaleAndLexicalOnly(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	_, svc := fakeOllama(t, s, testDims)
	repo := gittest.New(t)
	files := map[string]string{"docs/lfs.md": gittest.LFSPointer("big")}
	for k, v := range corpus {
		files[k] = v
	}
	head := repo.Commit(t, "docs", files)
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)

	// Never indexed.
	cov, by := coverage(t, ix, p)
	if cov.Head == nil || cov.Head.Commit != head || cov.Head.Branch != gittest.Branch || cov.Running {
		t.Fatalf("head: %+v", cov.Head)
	}
	if d := by["docs"]; d.Unit != "files" || d.Total != 4 || d.Skipped != 1 || d.Indexed != 0 || !d.Stale || d.StaleReason != "never indexed" || d.LastIndexed != nil {
		t.Errorf("docs before: %+v", d)
	}
	if se := by["session"]; se.Unit != "sessions" || se.Total != 0 || se.Stale {
		t.Errorf("session before: %+v", se)
	}

	reindex(t, ix, p)
	_, by = coverage(t, ix, p)
	for scope, want := range map[string]int{"docs": 3, "adr": 3} {
		sc := by[scope]
		if sc.Indexed != want || sc.Stale || sc.LastCommit != head || sc.LastIndexed == nil || sc.LexicalOnly != 0 || sc.Chunks == 0 {
			t.Errorf("%s after reindex: %+v", scope, sc)
		}
	}
	if d := by["docs"]; d.Total != 4 || !slices.Equal(d.Unindexed, []string{}) {
		t.Errorf("docs: total %d (the LFS pointer counts, unindexed), unindexed %v", d.Total, d.Unindexed)
	}

	// A crashed run (started, never finished) is not the last indexed one.
	lastIndexed := *by["docs"].LastIndexed
	if _, err := s.StartRun(ctx, p.ID, "docs"); err != nil {
		t.Fatal(err)
	}

	// A new commit makes docs and adr stale; messages stored without their
	// chunks (by an older ragd, or the store alone) make session stale.
	moved := repo.Commit(t, "more", map[string]string{"docs/new.md": doc("New", 2)})
	var unchunked []ragd.Event
	if _, err := source.ReadEvents(strings.NewReader(eventFile), func(e ragd.Event) error {
		unchunked = append(unchunked, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendEvents(ctx, p.ID, unchunked); err != nil {
		t.Fatal(err)
	}
	_, by = coverage(t, ix, p)
	d := by["docs"]
	if !d.Stale || !strings.Contains(d.StaleReason, "HEAD moved from "+head[:12]+" to "+moved[:12]) || !d.LastIndexed.Equal(lastIndexed) {
		t.Errorf("docs after a commit: %+v", d)
	}
	if d.Total != 5 || d.Indexed != 3 || !slices.Equal(d.Unindexed, []string{"docs/new.md"}) {
		t.Errorf("docs counts after a commit: %+v", d)
	}
	if !by["adr"].Stale {
		t.Errorf("adr not stale after HEAD moved")
	}
	se := by["session"]
	if se.Total != 3 || se.Indexed != 0 || se.Messages != 4 || !se.Stale || se.StaleReason != "4 messages appended since the last index without chunks" || !slices.Equal(se.Unindexed, []string{"s1", "s2", "s3"}) {
		t.Errorf("session after appends: %+v", se)
	}

	// Reindex with the provider down: new chunks are counted apart.
	down := newIndexer(s, downService(t, s))
	rep := reindex(t, down, p)
	_, by = coverage(t, down, p)
	d = by["docs"]
	if d.Stale || d.Indexed != 4 || d.LexicalOnly == 0 || d.LexicalOnly != scopeReport(t, rep, "docs").LexicalOnly {
		t.Errorf("docs after a degraded reindex: %+v", d)
	}
	if se := by["session"]; se.Stale || se.Indexed != 3 || se.MessagesIndexed != 4 || se.LexicalOnly != se.Chunks {
		t.Errorf("session after reindex: %+v", se)
	}

	// One more message, appended through the indexer: indexed at once, so
	// the scope stays fresh. A tool event is no message: it changes nothing.
	if _, err := ix.AppendEvents(ctx, p, []ragd.Event{event("n1", "s1", "chat.message", "one more", 60)}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.AppendEvents(ctx, p, []ragd.Event{event("n2", "s1", "tool.call", "", 61)}); err != nil {
		t.Fatal(err)
	}
	_, by = coverage(t, ix, p)
	if se := by["session"]; se.Stale || se.Indexed != 3 || se.Messages != 5 || se.MessagesIndexed != 5 || se.LexicalOnly != se.Chunks {
		t.Errorf("session after an indexed append: %+v", se)
	}
	// One stored without its chunks: stale again.
	if _, err := s.AppendEvents(ctx, p.ID, []ragd.Event{event("n3", "s2", "chat.message", "and another", 62)}); err != nil {
		t.Fatal(err)
	}
	_, by = coverage(t, ix, p)
	if se := by["session"]; !se.Stale || se.StaleReason != "1 message appended since the last index without chunks" || se.MessagesIndexed != 5 {
		t.Errorf("session after an unindexed append: %+v", se)
	}

	b, _ := json.Marshal(api.FromScopeCoverage(*by["docs"]))
	for _, k := range []string{`"total":`, `"indexed":`, `"lexicalOnly":`, `"lastIndexed":`, `"lastCommit":`, `"stale":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("coverage JSON lacks %s: %s", k, b)
		}
	}
}

func TestCoverage_UnreadableRepository(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	ix := newIndexer(s, nil)
	if _, err := ix.AppendEvents(ctx, p, []ragd.Event{event("e1", "s1", "chat.message", "hi", 0)}); err != nil {
		t.Fatal(err)
	}
	reindex(t, ix, p, "session")
	cov, by := coverage(t, ix, p)
	if cov.Head != nil || len(cov.Notes) != 1 || !strings.Contains(cov.Notes[0], "not a git repository") {
		t.Errorf("coverage: head %+v notes %v", cov.Head, cov.Notes)
	}
	if d := by["docs"]; d.Total != 0 || d.Stale {
		t.Errorf("docs: %+v", d)
	}
	if se := by["session"]; se.Total != 1 || se.Indexed != 1 || se.Stale || se.LexicalOnly != 1 {
		t.Errorf("session: %+v", se)
	}
}

func TestCoverage_WorkTreeMode(t *testing.T) {
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "v1", map[string]string{"docs/a.md": "# A\n\none\n"})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, nil)
	ix.Source.WorkTree = true
	reindex(t, ix, p, "docs")
	if _, by := coverage(t, ix, p); by["docs"].Stale || by["docs"].Indexed != 1 {
		t.Errorf("fresh: %+v", by["docs"])
	}
	repo.WriteUncommitted(t, "docs/a.md", "# A\n\ntwo\n")
	cov, by := coverage(t, ix, p)
	if d := by["docs"]; !d.Stale || !strings.Contains(d.StaleReason, "working tree") || !cov.Head.WorkTree {
		t.Errorf("after an edit on disk: %+v", d)
	}
}

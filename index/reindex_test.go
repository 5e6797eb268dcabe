package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/source"
	"github.com/ragd/ragd/store"
)

// corpus is a small repository's documents, with the folder rules on
// display.
var corpus = map[string]string{
	"testdata/README.md":        doc("Readme of test data, not read", 1),
	"docs/intro.md":             doc("Intro", 2),
	"docs/guide/setup.markdown": doc("Setup", 3),
	"docs/adr/0001-sqlite.md":   doc("Use SQLite", 2),
	"docs/adr/sub/0002-vec.MD":  doc("Use sqlite-vec", 1),
	"docs/ADR/upper.md":         doc("Upper-case ADR folder is adr too", 1),
	"docs/adrx.md":              doc("Not the adr folder", 1),
	"notes.txt":                 "plain text outside doc folders: data, not read",
}

func TestReindex_DocsAndADRFromHead(t *testing.T) {
	s := openStore(t)
	srv, svc := fakeOllama(t, s, testDims)
	repo := gittest.New(t)
	head := repo.Commit(t, "docs", corpus)
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)

	var log progressLog
	rep, err := ix.Reindex(context.Background(), p, []string{"docs", "adr"}, log.add)
	if err != nil {
		t.Fatal(err)
	}
	docs, adr := chunks(t, s, p, ragd.ScopeDocs), chunks(t, s, p, ragd.ScopeADR)
	if got, want := sources(docs), []string{"docs/adrx.md", "docs/guide/setup.markdown", "docs/intro.md"}; !slices.Equal(got, want) {
		t.Errorf("docs sources %v, want %v", got, want)
	}
	if got, want := sources(adr), []string{"docs/ADR/upper.md", "docs/adr/0001-sqlite.md", "docs/adr/sub/0002-vec.MD"}; !slices.Equal(got, want) {
		t.Errorf("adr sources %v, want %v", got, want)
	}
	sections := 0
	for _, c := range append(docs, adr...) {
		if c.SourceCommit != head || c.EmbeddingSpace != testSpace || c.Title == "" {
			t.Fatalf("chunk %s#%d: commit %s space %q title %q", c.SourcePath, c.Position, c.SourceCommit, c.EmbeddingSpace, c.Title)
		}
		if len(c.HeadingPath) > 0 && strings.Contains(c.HeadingPath[len(c.HeadingPath)-1], " part ") {
			sections++
		}
	}
	if sections == 0 {
		t.Error("no chunk carries its section's heading path")
	}
	if c := docs[0]; c.Title != "Not the adr folder" {
		t.Errorf("first docs chunk: title %q", c.Title)
	}

	if !rep.Complete || len(rep.Scopes) != 2 {
		t.Fatalf("report: %+v", rep)
	}
	for _, sr := range rep.Scopes {
		want := map[string]int{"docs": 3, "adr": 3}[sr.Scope]
		all := map[string][]ragd.Chunk{"docs": docs, "adr": adr}[sr.Scope]
		if sr.Status != ragd.StatusOK || sr.Files != want || sr.Commit != head || sr.Branch != gittest.Branch || sr.WorkTree {
			t.Errorf("%s report: %+v", sr.Scope, sr)
		}
		if sr.Chunks.Total != len(all) || sr.Chunks.Inserted != len(all) || sr.Vectors != len(all) || sr.LexicalOnly != 0 || !sr.Complete {
			t.Errorf("%s counts: %+v vectors %d lexical %d", sr.Scope, sr.Chunks, sr.Vectors, sr.LexicalOnly)
		}
		if e := sr.Embedding; !e.Available || e.Embedded != len(all) || e.Space != testSpace || e.Reason != "" {
			t.Errorf("%s embedding: %+v", sr.Scope, e)
		}
		if !strings.HasPrefix(sr.Summary, sr.Scope+": ") || !strings.Contains(sr.Summary, "all with vectors") {
			t.Errorf("summary %q", sr.Summary)
		}
	}
	if srv.Calls() == 0 {
		t.Error("no provider call")
	}

	// The tree is read once for both scopes.
	var reads int
	for _, pr := range log.list() {
		if pr.Phase == ragd.PhaseRead && pr.Total == 0 {
			reads++
		}
	}
	if reads != 1 {
		t.Errorf("%d reads of the tree, want 1: %+v", reads, log.list())
	}

	// The runs are recorded with their commit and report.
	for _, scope := range []string{"docs", "adr"} {
		run, err := s.LastRun(context.Background(), p.ID, scope, ragd.RunOK)
		if err != nil || run.Commit != head {
			t.Fatalf("%s run: %+v, %v", scope, run, err)
		}
		var stored ragd.ScopeReport
		if err := json.Unmarshal(run.Report, &stored); err != nil || stored.Chunks.Total != scopeReport(t, rep, scope).Chunks.Total {
			t.Errorf("%s stored report: %+v, %v", scope, stored, err)
		}
	}
}

func TestReindex_TwiceIsIdempotentWithoutProviderCalls(t *testing.T) {
	s := openStore(t)
	srv, svc := fakeOllama(t, s, testDims)
	repo := gittest.New(t)
	repo.Commit(t, "docs", corpus)
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)

	reindex(t, ix, p)
	before := append(chunks(t, s, p, "docs"), chunks(t, s, p, "adr")...)
	calls := srv.Calls()

	rep := reindex(t, ix, p)
	after := append(chunks(t, s, p, "docs"), chunks(t, s, p, "adr")...)
	if !slices.Equal(ids(before), ids(after)) {
		t.Fatalf("chunk ids changed on an unchanged reindex:\n%v\n%v", ids(before), ids(after))
	}
	for i := range before {
		if before[i].Content != after[i].Content || before[i].EmbeddingSpace != after[i].EmbeddingSpace {
			t.Fatalf("chunk %s changed", before[i].ID)
		}
	}
	if got := srv.Calls(); got != calls {
		t.Errorf("unchanged reindex made %d provider calls, want 0", got-calls)
	}
	for _, sr := range rep.Scopes {
		if sr.Scope == ragd.ScopeSession {
			continue
		}
		if sr.Chunks.Inserted != 0 || sr.Chunks.Deleted != 0 || sr.Chunks.Kept != sr.Chunks.Total || !sr.Unchanged ||
			sr.Embedding.Reused != sr.Chunks.Total || sr.Embedding.Calls != 0 || !sr.Complete {
			t.Errorf("%s second run: %+v %+v", sr.Scope, sr.Chunks, sr.Embedding)
		}
	}
	if !rep.Complete {
		t.Errorf("report not complete: %s", rep.Summary)
	}
}

func TestReindex_FollowsCommits(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	srv, svc := fakeOllama(t, s, testDims)
	repo := gittest.New(t)
	repo.Commit(t, "v1", map[string]string{
		"docs/keep.md":   doc("Keep", 3),
		"docs/edit.md":   doc("Edit", 3),
		"docs/gone.md":   doc("Gone", 2),
		"docs/moved.md":  doc("Moved", 2),
		"docs/adr/a.md":  doc("Decision", 1),
		"docs/to-adr.md": doc("Promoted", 1),
	})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)
	reindex(t, ix, p)
	byPath := func(scope string) map[string][]ragd.Chunk {
		m := map[string][]ragd.Chunk{}
		for _, c := range chunks(t, s, p, scope) {
			m[c.SourcePath] = append(m[c.SourcePath], c)
		}
		return m
	}
	v1 := byPath("docs")

	repo.Remove(t, "delete", "docs/gone.md")
	repo.Rename(t, "rename", "docs/moved.md", "docs/sub/renamed.md")
	repo.Rename(t, "promote", "docs/to-adr.md", "docs/adr/promoted.md")
	edited := strings.Replace(doc("Edit", 3), "Sentence 3 of part 1", "A changed sentence of part 1", 1)
	head := repo.Commit(t, "edit", map[string]string{"docs/edit.md": edited, "docs/new.md": doc("New", 1)})
	calls := srv.Calls()
	rep := reindex(t, ix, p)
	v2 := byPath("docs")

	if got, want := slices.Sorted(maps.Keys(v2)), []string{"docs/edit.md", "docs/keep.md", "docs/new.md", "docs/sub/renamed.md"}; !slices.Equal(got, want) {
		t.Fatalf("docs sources after: %v, want %v", got, want)
	}
	if got := slices.Sorted(maps.Keys(byPath("adr"))); !slices.Equal(got, []string{"docs/adr/a.md", "docs/adr/promoted.md"}) {
		t.Errorf("adr sources after: %v", got)
	}
	// Unchanged file: same ids, commit moved to HEAD.
	if !slices.Equal(ids(v1["docs/keep.md"]), ids(v2["docs/keep.md"])) {
		t.Error("ids of an unchanged file changed")
	}
	for _, c := range v2["docs/keep.md"] {
		if c.SourceCommit != head {
			t.Errorf("kept chunk %s: commit %s, want HEAD %s", c.ID, c.SourceCommit, head)
		}
	}
	// Edited file: the edited section gets a new id, the others keep theirs.
	var same, changed int
	for i, c := range v2["docs/edit.md"] {
		if c.ID == v1["docs/edit.md"][i].ID {
			same++
		} else {
			changed++
		}
	}
	if changed != 1 || same != len(v1["docs/edit.md"])-1 {
		t.Errorf("edited file: %d chunks kept, %d changed; want all but one kept", same, changed)
	}
	// A renamed file's text is in the embedding cache: no new embedding.
	sr := scopeReport(t, rep, "docs")
	wantNew := 1 + len(v2["docs/new.md"]) + len(v2["docs/sub/renamed.md"])
	if sr.Chunks.Inserted != wantNew {
		t.Errorf("inserted %d chunks, want %d", sr.Chunks.Inserted, wantNew)
	}
	if e := sr.Embedding; e.Cached != len(v2["docs/sub/renamed.md"]) || e.Embedded != 1+len(v2["docs/new.md"]) {
		t.Errorf("embedding: %+v (renamed file has %d chunks)", e, len(v2["docs/sub/renamed.md"]))
	}
	if got := srv.Calls() - calls; got == 0 {
		t.Error("no provider call for new text")
	}
	wantDeleted := 1 + len(v1["docs/gone.md"]) + len(v1["docs/moved.md"]) + len(v1["docs/to-adr.md"])
	if sr.Chunks.Deleted != wantDeleted {
		t.Errorf("deleted %d, want %d", sr.Chunks.Deleted, wantDeleted)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestReindex_UncommittedEditNotIndexed(t *testing.T) {
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "v1", map[string]string{"docs/a.md": "# A\n\ncommitted text\n"})
	repo.WriteUncommitted(t, "docs/a.md", "# A\n\nuncommitted edit\n")
	repo.WriteUncommitted(t, "docs/untracked.md", "# U\n\nnever added\n")
	p := testdb.AddProject(t, s, "p", repo.Dir)

	reindex(t, newIndexer(s, nil), p, "docs")
	cs := chunks(t, s, p, "docs")
	if len(cs) != 1 || !strings.Contains(cs[0].Content, "committed text") {
		t.Fatalf("indexed %+v, want the committed text only", cs)
	}

	// Reading the working tree is an option, never a fallback.
	ix := newIndexer(s, nil)
	ix.Source.WorkTree = true
	rep := reindex(t, ix, p, "docs")
	cs = chunks(t, s, p, "docs")
	if got := sources(cs); !slices.Equal(got, []string{"docs/a.md", "docs/untracked.md"}) || !strings.Contains(cs[0].Content, "uncommitted edit") {
		t.Fatalf("work tree: %v", got)
	}
	if cs[0].SourceCommit != "" {
		t.Errorf("a chunk read from the working tree claims commit %s", cs[0].SourceCommit)
	}
	if sr := rep.Scopes[0]; !sr.WorkTree || !strings.Contains(sr.Summary, "working tree") {
		t.Errorf("report: %+v", sr)
	}
}

func TestReindex_DegradedThenFilled(t *testing.T) {
	cases := []struct {
		name   string
		down   func(t *testing.T, s *store.Store) index.Embedder
		reason string
	}{
		{"closed port", func(t *testing.T, s *store.Store) index.Embedder { return downService(t, s) }, "127.0.0.1"},
		{"server error", func(t *testing.T, s *store.Store) index.Embedder {
			srv, svc := fakeOllama(t, s, testDims)
			srv.SetFault(ollamatest.Respond(500, `{"error":"llama runner process has terminated"}`))
			return svc
		}, "terminated"},
		{"no provider", func(t *testing.T, s *store.Store) index.Embedder { return nil }, "no embedding provider configured"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			repo := gittest.New(t)
			repo.Commit(t, "docs", corpus)
			p := testdb.AddProject(t, s, "p", repo.Dir)

			rep, err := newIndexer(s, tc.down(t, s)).Reindex(context.Background(), p, []string{"docs", "adr"}, nil)
			if err != nil {
				t.Fatalf("a reindex without vectors must not fail: %v", err)
			}
			cs := chunks(t, s, p, "docs")
			for _, c := range cs {
				if c.EmbeddingSpace != "" {
					t.Fatalf("chunk %s has a vector", c.ID)
				}
			}
			sr := rep.Scopes[0]
			if len(cs) == 0 || sr.Chunks.Total != len(cs) || sr.Vectors != 0 || sr.LexicalOnly != len(cs) || sr.Complete || rep.Complete {
				t.Fatalf("report: %+v", sr)
			}
			e := sr.Embedding
			if e.Available || e.Failed != len(cs) || !strings.Contains(e.Reason, tc.reason) {
				t.Errorf("embedding: %+v, want reason with %q", e, tc.reason)
			}
			if !strings.Contains(rep.Summary, "lexical only: ") || !strings.Contains(rep.Summary, tc.reason) {
				t.Errorf("summary %q", rep.Summary)
			}
			if e.Calls > 1 {
				t.Errorf("%d provider calls for a provider that is down; one is enough", e.Calls)
			}
			// The next scope does not ask a provider found down again.
			if adr := rep.Scopes[1]; adr.Embedding.Calls != 0 || adr.Embedding.Reason != e.Reason || adr.LexicalOnly == 0 {
				t.Errorf("adr after docs found the provider down: %+v", adr.Embedding)
			}

			// The provider is back: the same chunks get their vectors.
			srv, svc := fakeOllama(t, s, testDims)
			rep = reindex(t, newIndexer(s, svc), p, "docs")
			after := chunks(t, s, p, "docs")
			if !slices.Equal(ids(cs), ids(after)) {
				t.Fatal("ids changed when vectors were filled")
			}
			sr = rep.Scopes[0]
			if sr.Vectors != len(cs) || sr.LexicalOnly != 0 || !sr.Complete || !rep.Complete || sr.Chunks.Kept != len(cs) || sr.Embedding.Embedded != len(cs) {
				t.Errorf("after the provider came back: %+v", sr)
			}
			for _, c := range after {
				if c.EmbeddingSpace != testSpace {
					t.Fatalf("chunk %s still lexical only", c.ID)
				}
			}
			if srv.Calls() == 0 {
				t.Error("no provider call")
			}
		})
	}
}

func TestReindex_PartialFailureIsCounted(t *testing.T) {
	s := openStore(t)
	srv, svc := fakeOllama(t, s, testDims)
	// One document's batch fails; the others get their vectors.
	srv.SetFault(ollamatest.WhenInput("Poisoned", ollamatest.Respond(500, `{"error":"boom"}`)))
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/ok.md": "# Fine\n\nfine text\n", "docs/bad.md": "# Poisoned\n\nPoisoned text\n"})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, svc)
	ix.Embedder = service(t, srv.URL, s, testDims)

	rep := reindex(t, ix, p, "docs")
	sr := rep.Scopes[0]
	if sr.Vectors+sr.LexicalOnly != sr.Chunks.Total || sr.LexicalOnly == 0 || sr.Complete || rep.Complete {
		t.Fatalf("report: %+v", sr)
	}
	if !strings.Contains(rep.Summary, "lexical only") || sr.Embedding.Available {
		t.Errorf("summary %q, embedding %+v", rep.Summary, sr.Embedding)
	}
}

func TestReindex_SpaceMismatchDegrades(t *testing.T) {
	s := openStore(t)
	_, svc := fakeOllama(t, s, 16) // another model size than the index's
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/a.md": "# A\n\ntext\n"})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	rep := reindex(t, newIndexer(s, svc), p, "docs")
	if e := rep.Scopes[0].Embedding; e.Available || e.Calls != 0 || !strings.Contains(e.Reason, "not the index's") {
		t.Errorf("embedding: %+v", e)
	}
	if rep.Complete || rep.Scopes[0].Chunks.Total != 1 {
		t.Errorf("report: %s", rep.Summary)
	}
}

func TestReindex_BadRepositories(t *testing.T) {
	ctx := context.Background()
	notRepo := t.TempDir()
	empty := gittest.New(t)
	noDocs := gittest.New(t)
	noDocs.Commit(t, "code", map[string]string{"main.go": "package main\n", "LICENSE.md": "# MIT\n"})

	for _, tc := range []struct {
		name    string
		path    string
		wantErr error
	}{
		{"not a repository", notRepo, index.ErrNotRepository},
		{"missing path", notRepo + "/nope", index.ErrNotRepository},
		{"no commits", empty.Dir, index.ErrNoCommits},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			p := testdb.AddProject(t, s, "p", tc.path)
			if _, err := s.AppendEvents(ctx, p.ID, []ragd.Event{{ID: "e1", SessionID: "s", Type: "chat.message", Actor: "a", Text: "hi", Time: gittest.Epoch}}); err != nil {
				t.Fatal(err)
			}
			rep, err := newIndexer(s, nil).Reindex(ctx, p, nil, nil)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error does not name the path: %v", err)
			}
			for _, scope := range ragd.Scopes {
				if n := len(chunks(t, s, p, scope)); n != 0 {
					t.Errorf("%s: %d chunks written", scope, n)
				}
				run, err := s.LastRun(ctx, p.ID, scope, "")
				if err != nil || run.Status != ragd.RunFailed {
					t.Errorf("%s run: %+v, %v", scope, run, err)
				}
			}
			if rep == nil || rep.Complete || rep.Scopes[0].Status != ragd.StatusFailed || rep.Scopes[2].Status != ragd.StatusNotRun {
				t.Errorf("report: %+v", rep)
			}
		})
	}

	t.Run("no docs folder", func(t *testing.T) {
		s := openStore(t)
		p := testdb.AddProject(t, s, "p", noDocs.Dir)
		rep := reindex(t, newIndexer(s, nil), p, "docs", "adr")
		for _, sr := range rep.Scopes {
			if sr.Status != ragd.StatusOK || sr.Files != 0 || sr.Chunks.Total != 0 || !slices.Contains(sr.Notes, source.NoteNoProseAtHead) {
				t.Errorf("%s: %+v", sr.Scope, sr)
			}
		}
		if !rep.Complete || !strings.Contains(rep.Summary, source.NoteNoProseAtHead) {
			t.Errorf("report: %s", rep.Summary)
		}
	})
}

func TestReindex_UnknownScope(t *testing.T) {
	s := openStore(t)
	p := testdb.AddProject(t, s, "p", t.TempDir())
	if _, err := newIndexer(s, nil).Reindex(context.Background(), p, []string{"docs", "code"}, nil); !errors.Is(err, index.ErrUnknownScope) {
		t.Fatalf("err = %v", err)
	}
	if runs, _ := s.Runs(context.Background(), p.ID, 0); len(runs) != 0 {
		t.Errorf("%d runs recorded for a refused request", len(runs))
	}
}

func TestParseScopes(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{nil, ragd.Scopes},
		{[]string{"all"}, ragd.Scopes},
		{[]string{"session", "docs", "docs"}, []string{"docs", "session"}},
		{[]string{"adr", "all"}, ragd.Scopes},
	} {
		got, err := index.ParseScopes(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseScopes(%v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := index.ParseScopes([]string{"Docs"}); !errors.Is(err, index.ErrUnknownScope) {
		t.Errorf("Docs: err = %v", err)
	}
}

func TestReindex_SkippedAndReplacedInputs(t *testing.T) {
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{
		"docs/ok.md":        "# OK\n\nfine\n",
		"docs/big.md":       "# Big\n\n" + strings.Repeat("word ", 400),
		"docs/lfs.md":       gittest.LFSPointer("the real content"),
		"docs/empty.md":     "",
		"docs/front.md":     "---\ntitle: only front matter\n---\n\n",
		"docs/bad-utf8.md":  "# Bad\n\nbytes \xff\xfe here\n",
		"docs/blob.md":      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"docs/adr/large.md": "# Big ADR\n\n" + strings.Repeat("word ", 400),
	})
	repo.CommitSymlink(t, "link", "docs/link.md", "ok.md")
	p := testdb.AddProject(t, s, "p", repo.Dir)
	ix := newIndexer(s, nil)
	ix.Source.MaxFileBytes = 1000

	rep := reindex(t, ix, p, "docs", "adr")
	docs := scopeReport(t, rep, "docs")
	reasons := map[string]string{}
	for _, in := range docs.Skipped {
		reasons[in.Path] = in.Reason
	}
	want := map[string]string{
		"docs/big.md":       source.ReasonTooLarge,
		"docs/lfs.md":       source.ReasonLFSPointer,
		"docs/empty.md":     index.ReasonNothingToIndex,
		"docs/front.md":     index.ReasonNothingToIndex,
		"docs/blob.md":      source.ReasonBinary,
		"docs/adr/large.md": "", // adr's, not docs'
	}
	for path, reason := range want {
		if reasons[path] != reason {
			t.Errorf("%s: skipped as %q, want %q", path, reasons[path], reason)
		}
	}
	if len(docs.Skipped) != 5 {
		t.Errorf("docs skipped: %+v", docs.Skipped)
	}
	if len(docs.Replaced) != 1 || docs.Replaced[0].Path != "docs/bad-utf8.md" || !strings.Contains(docs.Replaced[0].Reason, "1 run(s)") {
		t.Errorf("replaced: %+v", docs.Replaced)
	}
	if adr := scopeReport(t, rep, "adr"); len(adr.Skipped) != 1 || adr.Skipped[0].Size == 0 {
		t.Errorf("adr skipped: %+v", adr.Skipped)
	}
	got := sources(chunks(t, s, p, "docs"))
	if !slices.Equal(got, []string{"docs/bad-utf8.md", "docs/link.md", "docs/ok.md"}) {
		t.Errorf("indexed %v", got)
	}
	if !strings.Contains(docs.Summary, "5 skipped") || !strings.Contains(docs.Summary, "1 with bad bytes replaced") {
		t.Errorf("summary %q", docs.Summary)
	}
}

func TestReport_JSONShape(t *testing.T) {
	s := openStore(t)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/a.md": "# A\n\ntext\n"})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	rep := reindex(t, newIndexer(s, downService(t, s)), p, "docs")
	b, err := json.Marshal(api.FromIndexReport(rep))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"project", "scopes", "complete", "summary", "startedAt", "durationMs"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report lacks %q: %s", k, b)
		}
	}
	sc := m["scopes"].([]any)[0].(map[string]any)
	for _, k := range []string{"scope", "status", "runId", "commit", "files", "bytes", "chunks", "vectors", "lexicalOnly",
		"complete", "embedding", "skipped", "replaced", "notes", "durations", "summary"} {
		if _, ok := sc[k]; !ok {
			t.Errorf("scope report lacks %q: %s", k, b)
		}
	}
	for obj, keys := range map[string][]string{
		"embedding": {"available", "embedded", "cached", "reused", "skipped", "failed", "calls", "reason"},
		"chunks":    {"total", "inserted", "kept", "deleted"},
		"durations": {"readMs", "chunkMs", "embedMs", "writeMs", "totalMs"},
	} {
		sub := sc[obj].(map[string]any)
		for _, k := range keys {
			if _, ok := sub[k]; !ok {
				t.Errorf("%s lacks %q: %s", obj, k, b)
			}
		}
	}
	if sc["complete"] != false || sc["lexicalOnly"] != 1.0 {
		t.Errorf("degraded report claims %v complete, %v lexical only", sc["complete"], sc["lexicalOnly"])
	}
}

// shortEmbedder answers one vector too few: a broken Embedder.
type shortEmbedder struct{ index.Embedder }

func (e shortEmbedder) EmbedDocuments(ctx context.Context, texts []string) embedding.Result {
	r := e.Embedder.EmbedDocuments(ctx, texts)
	r.Vectors = r.Vectors[:len(r.Vectors)-1]
	return r
}

func TestReindex_BrokenEmbedderDegrades(t *testing.T) {
	s := openStore(t)
	_, svc := fakeOllama(t, s, testDims)
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{"docs/a.md": doc("A", 2)})
	p := testdb.AddProject(t, s, "p", repo.Dir)
	rep := reindex(t, newIndexer(s, shortEmbedder{svc}), p, "docs")
	if sr := rep.Scopes[0]; sr.Vectors != 0 || sr.Complete || !strings.Contains(sr.Embedding.Reason, "vectors for") {
		t.Errorf("report: %+v", sr)
	}
}

// Progress counts what happened, failures included (issue 15 #10): each of
// docs and adr ends its read phase with its own files, and an embed phase
// ends with its texts done or failed as the report counts them, never all
// "done" when the provider failed.
func TestReindex_ProgressCountsFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault ollamatest.Fault
	}{
		{"provider down", ollamatest.Respond(500, `{"error":"llama runner process has terminated"}`)},
		{"one text refused", ollamatest.WhenInput("Use SQLite", ollamatest.Respond(500, `{"error":"boom"}`))},
		{"provider up", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			srv, svc := fakeOllama(t, s, testDims)
			if tc.fault != nil {
				srv.SetFault(tc.fault)
			}
			repo := gittest.New(t)
			repo.Commit(t, "docs", corpus)
			p := testdb.AddProject(t, s, "p", repo.Dir)
			var log progressLog
			rep, err := newIndexer(s, svc).Reindex(context.Background(), p, []string{"docs", "adr"}, log.add)
			if err != nil {
				t.Fatal(err)
			}
			last := map[string]ragd.Progress{}
			failed := 0
			for _, pr := range log.list() {
				last[pr.Scope+" "+pr.Phase] = pr
			}
			for _, sr := range rep.Scopes {
				read, ok := last[sr.Scope+" "+ragd.PhaseRead]
				if !ok || read.Done != sr.Files || read.Total != sr.Files || sr.Files == 0 {
					t.Errorf("%s: read ends %+v (reported %v), the scope has %d files", sr.Scope, read, ok, sr.Files)
				}
				e := sr.Embedding
				emb, ok := last[sr.Scope+" "+ragd.PhaseEmbed]
				if !ok || emb.Done != e.Embedded+e.Cached+e.Skipped || emb.Failed != e.Failed || emb.Done+emb.Failed != emb.Total {
					t.Errorf("%s: embed ends %+v (reported %v); the report: embedded %d cached %d skipped %d failed %d",
						sr.Scope, emb, ok, e.Embedded, e.Cached, e.Skipped, e.Failed)
				}
				failed += e.Failed
			}
			if (tc.fault != nil) != (failed > 0) {
				t.Errorf("%d texts failed, with fault %v", failed, tc.fault != nil)
			}
		})
	}
}

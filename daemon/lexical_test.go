package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/client"
	"github.com/ragd/ragd/internal/daemontest"
)

// answers runs queries on a project and keeps what must not depend on any
// other project: every hit with its scores and explanation, in order.
func answers(t *testing.T, c *client.Client, project string, queries []string, fusion string) map[string][]api.Hit {
	t.Helper()
	out := map[string][]api.Hit{}
	for _, q := range queries {
		resp := daemontest.Search(t, c, project, api.SearchRequest{Query: q, Explain: true, Fusion: fusion, Limit: ptr(20)})
		if len(resp.Hits) == 0 {
			t.Fatalf("%s %q: no hit", fusion, q)
		}
		out[fusion+" "+q] = resp.Hits
	}
	return out
}

// TestAPI_ProjectAnswersIgnoreOtherProjects: a project's search answers,
// scores included, are the same before another project with the same
// vocabulary is indexed, after, and after it is removed.
func TestAPI_ProjectAnswersIgnoreOtherProjects(t *testing.T) {
	daemontest.EngineIndependent(t)
	ctx := context.Background()
	srv := newServer(t)
	d, _ := startDocs(t, srv.URL)
	c := d.Client
	daemontest.Reindex(t, c, "demo")
	queries := []string{"sqlite-vec FTS5 telemetry", "hybrid search weights", "socket", `"write-ahead log" reindex`}
	snapshot := func() map[string][]api.Hit {
		out := answers(t, c, "demo", queries, "weighted")
		for k, v := range answers(t, c, "demo", queries, "rrf") {
			out[k] = v
		}
		return out
	}
	before := snapshot()

	// Another project about the same things, with more text.
	other := map[string]string{}
	for i := range 12 {
		other[fmt.Sprintf("docs/notes-%d.md", i)] = fmt.Sprintf("# Notes %d\n\n## Search\n\nThe search reads sqlite-vec and FTS5; "+
			"telemetry is written beside it. Hybrid weights, the socket and the write-ahead log of reindex %d.\n", i, i)
	}
	repo := daemontest.Repo(t, other)
	daemontest.AddProject(t, c, repo.Dir, "other")
	daemontest.Reindex(t, c, "other")
	if len(daemontest.Search(t, c, "other", api.SearchRequest{Query: "telemetry"}).Hits) == 0 {
		t.Fatal("the other project finds nothing: the test shows nothing")
	}
	if after := snapshot(); !reflect.DeepEqual(after, before) {
		t.Errorf("answers of demo changed when another project was indexed:\nbefore %+v\n after %+v", before, after)
	}
	if _, err := c.RemoveProject(ctx, "other"); err != nil {
		daemontest.Fatal(t, "remove", err)
	}
	if after := snapshot(); !reflect.DeepEqual(after, before) {
		t.Errorf("answers of demo changed when another project was removed:\nbefore %+v\n after %+v", before, after)
	}
}

// TestAPI_ProjectLanguage: the language is detected at the first index,
// shown, changed by PATCH (the lexical index rebuilt, nothing embedded),
// refused during a reindex, and an unknown one is a 400.
func TestAPI_ProjectLanguage(t *testing.T) {
	ctx := context.Background()
	srv := newServer(t)
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(srv.URL))
	c := d.Client
	repo := daemontest.Repo(t, map[string]string{
		"docs/poisk.md": "# Поиск\n\n## Индекс\n\nИндексом управляет демон: он строит индексы при каждой регистрации проекта, " +
			"и поиск по документам работает без сети. Это решение записано в ADR.\n",
		"docs/vektory.md": "# Векторы\n\nВекторы хранятся в sqlite-vec рядом с текстом, и поиск объединяет оба сигнала.\n",
	})
	p := daemontest.AddProject(t, c, repo.Dir, "ru")
	if p.Language != "" || p.LanguageSetting != "" {
		t.Errorf("new project: language %q, setting %q", p.Language, p.LanguageSetting)
	}
	daemontest.Reindex(t, c, "ru")
	if p := daemontest.Project(t, c, "ru"); p.Language != "russian" || p.LanguageSetting != "" {
		t.Errorf("after the first index: language %q, setting %q; want russian detected", p.Language, p.LanguageSetting)
	}
	if cov := daemontest.Coverage(t, c, "ru"); cov.Language != "russian" {
		t.Errorf("coverage language %q", cov.Language)
	}
	// Russian: an inflection finds the text; simple stems nothing.
	q := api.SearchRequest{Query: "индекса", Fusion: "rrf", Explain: true}
	if hits := daemontest.Search(t, c, "ru", q).Hits; len(hits) == 0 || hits[0].LexicalScore == nil {
		t.Fatalf("russian: %q found no lexical hit", q.Query)
	}
	calls := srv.Calls()
	simple := "simple"
	got, err := c.PatchProject(ctx, "ru", api.PatchProjectRequest{Language: &simple})
	if err != nil {
		daemontest.Fatal(t, "patch language", err)
	}
	if got.Language != "simple" || got.LanguageSetting != "simple" {
		t.Errorf("patched: %+v", got)
	}
	if srv.Calls() != calls {
		t.Errorf("a language change called the embedder %d times", srv.Calls()-calls)
	}
	for _, h := range daemontest.Search(t, c, "ru", q).Hits {
		if h.LexicalScore != nil {
			t.Errorf("simple: %q found %s lexically", q.Query, h.Origin.SourcePath)
		}
	}

	// An unknown language, and a change during a reindex.
	a := daemontest.Do(t, d.Socket(), "PATCH", "/v1/projects/ru", "application/json", []byte(`{"language":"klingon"}`))
	if a.Status != http.StatusBadRequest || a.ErrorBody(t).Code != api.CodeBadRequest {
		t.Errorf("klingon: %d %s", a.Status, a.Body)
	}
	repo.Commit(t, "more", map[string]string{"docs/novoe.md": "# Новое\n\nНовый текст требует эмбеддинга.\n"})
	srv.SetFault(srv.Hang())
	sctx, cancel := context.WithCancel(ctx)
	embedding := make(chan struct{})
	var embeddingOnce sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := c.ReindexStream(sctx, "ru", api.ReindexRequest{Scope: "all"}, func(p api.Progress) {
			if p.Phase == api.PhaseEmbed {
				embeddingOnce.Do(func() { close(embedding) })
			}
		})
		done <- err
	}()
	<-embedding
	a = daemontest.Do(t, d.Socket(), "PATCH", "/v1/projects/ru", "application/json", []byte(`{"language":"russian"}`))
	if a.Status != http.StatusConflict || a.ErrorBody(t).Code != api.CodeAlreadyRunning {
		t.Errorf("language change mid-reindex: %d %s, want 409 already_running", a.Status, a.Body)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("reindex stream: %v", err)
	}
	daemontest.WaitFor(t, "the cancelled reindex to stop", func() bool { return !daemontest.Coverage(t, c, "ru").Running })
	srv.SetFault(nil)
	if p := daemontest.Project(t, c, "ru"); p.Language != "simple" {
		t.Errorf("refused change changed the language to %q", p.Language)
	}
	// Back to automatic: detected again from the text.
	auto := ""
	if got, err = c.PatchProject(ctx, "ru", api.PatchProjectRequest{Language: &auto}); err != nil || got.Language != "russian" || got.LanguageSetting != "" {
		t.Errorf("automatic again: %+v, %v", got, err)
	}
	if err := d.Store().IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

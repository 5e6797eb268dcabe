package eval

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/search"
	"github.com/ragd/ragd/store"
)

// TestPrepare_BEIR prepares an evaluation of a BEIR folder in a temporary
// work folder, replays it and calibrates on it, and checks Close removes
// the folder.
func TestPrepare_BEIR(t *testing.T) {
	ctx := context.Background()
	const dims = 32
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"nomic-embed-text": dims}})
	cache := t.TempDir()
	var log strings.Builder
	ev, err := Prepare(ctx, Options{
		BEIR:      syntheticBEIR(t, 30, 1),
		CacheDir:  cache,
		Embedding: embedding.Config{Host: srv.URL, Model: "nomic-embed-text", Dims: dims, IndexTimeout: 30 * time.Second},
		Search:    search.DefaultConfig(),
		Depth:     120,
		Bootstrap: DefaultBootstrap(),
		Logger:    quiet,
		Log:       &log,
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := ev.Report
	if rep.Depth != 120 || len(ev.Retrievals) != 10 || rep.Counts.Judged != 10 || rep.Index == nil || rep.Index.Docs != 30 ||
		rep.BEIR == nil || rep.VectorUnavailable != 0 || rep.Space != embedding.SpaceOf("nomic-embed-text", dims).String() {
		t.Fatalf("prepared: depth %d, %d retrievals, counts %+v, index %+v, %d without vector", rep.Depth, len(ev.Retrievals), rep.Counts, rep.Index, rep.VectorUnavailable)
	}
	if !strings.Contains(log.String(), "indexing ") || !strings.Contains(log.String(), "retrieve: 10/10 queries") {
		t.Errorf("log:\n%s", log.String())
	}
	work := rep.Index.Work
	if rel, err := filepath.Rel(filepath.Join(cache, "eval"), work); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("work folder %s is not under the cache", work)
	}

	ev.Evaluate(nil)
	if len(rep.Modes) != len(StandardModes(ev.Current, rep.Depth)) || len(rep.Comparisons) == 0 || rep.Timings.Total < rep.Timings.Replay {
		t.Errorf("evaluate: %d modes, %d comparisons, timings %+v", len(rep.Modes), len(rep.Comparisons), rep.Timings)
	}
	cal, err := ev.Calibrate(DefaultGrid(), NDCG10, 0)
	if err != nil || cal == nil || rep.Calibration != cal || cal.Train != 10 {
		t.Errorf("calibrate: %+v, %v", cal, err)
	}

	ev.Close()
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Errorf("work folder %s after Close: %v", work, err)
	}
}

func TestPrepare_Refuses(t *testing.T) {
	ctx := context.Background()
	emb := embedding.Config{Model: "nomic-embed-text", Dims: testDims}
	space := embedding.SpaceOf(emb.Model, emb.Dims)
	empty := filepath.Join(t.TempDir(), "ragd.db")
	st, err := store.Open(ctx, empty, store.Options{Space: space.String(), Dims: space.Dims, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := filepath.Join(t.TempDir(), "missing.db")
	good := Options{Golden: "g.jsonl", Database: db, Project: "p", Embedding: emb, Bootstrap: DefaultBootstrap(), Logger: quiet}
	for name, tc := range map[string]struct {
		edit func(*Options)
		want string
	}{
		"nothing":        {func(o *Options) { o.Golden = "" }, "nothing to evaluate on"},
		"beir and more":  {func(o *Options) { o.BEIR = "dir" }, "evaluated alone"},
		"no resample":    {func(o *Options) { o.Bootstrap.Resamples = 0 }, "at least 1 resample"},
		"level 1":        {func(o *Options) { o.Bootstrap.Level = 1 }, "level between 0 and 1"},
		"no database":    {func(o *Options) {}, "no ragd database at " + db},
		"unregistered":   {func(o *Options) { o.Database = empty }, `project "p" is not registered`},
		"missing folder": {func(o *Options) { o.Golden, o.BEIR = "", filepath.Join(t.TempDir(), "none") }, "none"},
		"repo and beir":  {func(o *Options) { o.Golden, o.BEIR, o.Repo = "", "dir", "repo" }, "not with a BEIR folder"},
		"repo, no db":    {func(o *Options) { o.Repo, o.Database = "repo", "" }, "a database is needed"},
		"repo, no git":   {func(o *Options) { o.Repo, o.Database = t.TempDir(), empty }, "not inside a git repository"},
		"other scheme":   {func(o *Options) { o.Database = "mysql://h/db" }, `unknown scheme "mysql"`},
	} {
		opt := good
		tc.edit(&opt)
		ev, err := Prepare(ctx, opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
		if ev != nil {
			t.Errorf("%s: an evaluation with the error", name)
		}
	}
}

// TestPrepare_SpaceProfile: an evaluation measures its index's embedding
// space and, when the weighted fusion it replays is unreliable there,
// warns with what to do.
func TestPrepare_SpaceProfile(t *testing.T) {
	ctx := context.Background()
	const dims = 32
	srv := ollamatest.NewServer(t, ollamatest.Options{Models: map[string]int{"nomic-embed-text": dims}})
	ev, err := Prepare(ctx, Options{
		BEIR:      syntheticBEIR(t, 90, 1),
		CacheDir:  t.TempDir(),
		Embedding: embedding.Config{Host: srv.URL, Model: "nomic-embed-text", Dims: dims, IndexTimeout: 30 * time.Second},
		Search:    search.DefaultConfig(),
		Bootstrap: DefaultBootstrap(),
		Logger:    quiet,
		Log:       io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	rep := ev.Report
	p := rep.SpaceProfile
	if p == nil || p.Pairs < search.MinProfilePairs || p.Space != rep.Space {
		t.Fatalf("space profile %+v", p)
	}
	if want := search.DefaultConfig().WeightedUnreliable(p.RandomCosine); p.WeightedUnreliable != want ||
		want != slices.Contains(rep.Warnings, p.Advice) || want != (p.Advice != "") {
		t.Errorf("profile %+v, warnings %q", p, rep.Warnings)
	}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil || !strings.Contains(b.String(), "space: random chunk pairs score cosine") {
		t.Errorf("table: %v\n%s", err, b.String())
	}
}

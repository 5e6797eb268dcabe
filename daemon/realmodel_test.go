//go:build realmodel

// The real-model tier: a daemon embedding with a real retrieval model
// served by the real Ollama (scripts/models.sh), over its socket:
//
//	export $(bash scripts/models.sh up all-minilm)
//	go test -tags sqlite_fts5,realmodel -run '^TestRealModel' ./daemon/
//
// It fails, rather than skips, when no model is configured.

package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// realCorpus is a small team handbook: sections on neighbouring subjects,
// written as people write them, so that words alone and meaning alone each
// have something to get wrong.
var realCorpus = map[string]string{
	"docs/it.md": `# IT handbook

## Returning a laptop

Before you hand back company hardware, wipe the disk with the vendor's
erase utility, sign the asset form and leave the machine and its charger at
the front desk. The asset team checks the serial number against the form.

## Printers

The printers on each floor queue jobs through the print server. Jobs larger
than fifty pages go to the basement printer overnight.

## Wi-Fi

Guests join the visitor network with the code posted at reception; staff use
their single sign-on account on the corporate network.
`,
	"docs/travel.md": `# Travel

## Booking trips

Book flights and hotels through the travel portal at least two weeks ahead.
Economy class is the default for trips under six hours.

## Expenses

Keep every receipt. Claims are filed within thirty days of the trip's end;
meals are reimbursed up to the daily allowance of the destination city.
`,
	"docs/service.md": `# The ingest service

## Tuning the batch pipeline

The ingest service groups incoming records into batches before writing
them. The setting max_inflight_batches caps how many batches may be written
at once: raise it when the database has spare capacity, lower it when write
latency climbs. Its default is 4.

## Deploying

Deploys run from the main branch after the checks pass; a deploy can be
rolled back from the release page within the first hour.

## On-call

The on-call engineer answers pages within fifteen minutes and hands over at
the Monday stand-up with a short written summary.
`,
	"docs/office.md": `# Office

## Kitchen

The kitchen is cleaned every evening; label food you keep in the fridge
with your name and the date.

## Plants

Facilities waters the plants on Tuesdays and Fridays.
`,
}

// realModelDaemon starts a daemon embedding with the served model and
// indexes realCorpus as project "handbook".
func realModelDaemon(t *testing.T) *daemontest.Daemon {
	return realModelDaemonOf(t, realCorpus)
}

// realModelDaemonOf starts a daemon embedding with the served model and
// indexes files as project "handbook".
func realModelDaemonOf(t *testing.T, files map[string]string) *daemontest.Daemon {
	t.Helper()
	host, model := os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_MODEL")
	dims, err := strconv.Atoi(os.Getenv("RAGD_DIMS"))
	if host == "" || model == "" || err != nil || dims <= 0 {
		t.Fatalf("real-model tier needs OLLAMA_HOST, RAGD_MODEL and RAGD_DIMS "+
			"(export $(bash scripts/models.sh up all-minilm)); got %q, %q, %q", host, model, os.Getenv("RAGD_DIMS"))
	}
	cfg := daemontest.Config(host)
	cfg.Embedding.Model, cfg.Embedding.Dims = model, dims
	// Two shared cores and a 6-12 layer model: a query may take seconds.
	cfg.Embedding.QueryTimeout = daemon.Duration{Duration: time.Minute}
	cfg.Embedding.IndexTimeout = daemon.Duration{Duration: 5 * time.Minute}
	d := daemontest.Start(t, daemontest.NewWorld(t), cfg)
	repo := daemontest.Repo(t, files)
	daemontest.AddProject(t, d.Client, repo.Dir, "handbook")
	rep := daemontest.Reindex(t, d.Client, "handbook")
	if !rep.Complete {
		t.Fatalf("reindex with %s: %+v", model, rep)
	}
	cov := daemontest.Coverage(t, d.Client, "handbook")
	if sc := daemontest.ScopeCoverage(t, cov, "docs"); sc.Chunks == 0 || sc.LexicalOnly != 0 {
		t.Fatalf("docs coverage with %s: %+v (every chunk must have a vector)", model, sc)
	}
	return d
}

// hitIn returns the first of the top n hits whose content holds marker.
func hitIn(hits []api.Hit, n int, marker string) *api.Hit {
	for i := range hits[:min(n, len(hits))] {
		if strings.Contains(hits[i].Content, marker) {
			return &hits[i]
		}
	}
	return nil
}

// TestRealModelHybridSearch: what a real model adds to keywords, and what
// the fusion must keep of them, through the daemon's socket with the
// configured (default) fusion.
func TestRealModelHybridSearch(t *testing.T) {
	d := realModelDaemon(t)
	search := func(q string) api.SearchResponse {
		resp := daemontest.Search(t, d.Client, "handbook", api.SearchRequest{Query: q, Explain: true})
		if !resp.VectorAvailable || resp.Degraded {
			t.Fatalf("%q: vector half unavailable: %+v", q, resp)
		}
		return resp
	}

	t.Run("paraphrase found by meaning", func(t *testing.T) {
		// No content word of the question is in the answer's section:
		// keywords cannot find it; the vector half must rank it first.
		const q = "Where does my old notebook computer go when I resign?"
		resp := search(q)
		h := hitIn(resp.Hits, 3, "erase utility")
		if h == nil {
			t.Fatalf("%q: the laptop section is not in the top 3 (lexical query %q): %s", q, resp.Explain.Match, hitList(resp.Hits))
		}
		if h.Explain == nil || h.Explain.VectorRank == nil || *h.Explain.VectorRank != 1 {
			t.Errorf("%q: the laptop section's vector rank is %v, want 1", q, h.Explain)
		}
		if h.Explain != nil && h.Explain.LexicalRank != nil {
			t.Errorf("%q: the lexical half found the laptop section too (rank %d, lexical query %q): the corpus must keep it wordless",
				q, *h.Explain.LexicalRank, resp.Explain.Match)
		}
	})

	t.Run("exact keyword kept", func(t *testing.T) {
		// An identifier only one section has: the fusion must keep it in the
		// top 3, whatever the vector half thinks of it.
		const q = "max_inflight_batches"
		resp := search(q)
		h := hitIn(resp.Hits, 3, "max_inflight_batches")
		if h == nil {
			t.Fatalf("%q: the section naming it is not in the top 3: %s", q, hitList(resp.Hits))
		}
		if h.Explain == nil || h.Explain.LexicalRank == nil || *h.Explain.LexicalRank != 1 {
			t.Errorf("%q: lexical rank %v, want 1", q, h.Explain)
		}
	})
}

// chanceDocs are real prose on other subjects (this repository's ADRs and
// its MCP guide) that, beside realCorpus, make the index large enough for
// the daemon to measure its embedding space (search.MinProfilePairs pairs).
// Only ADR 0002 holds a content word of the paraphrase asked below ("old").
var chanceDocs = []string{
	"adr/0002-store-schema.md", "adr/0003-vector-distance.md", "adr/0004-telemetry-file.md", "adr/0005-evaluation-and-calibration.md",
	"adr/0007-degraded-fusion.md", "adr/0016-fusion-reads-signals-against-chance.md", "mcp.md",
}

// TestRealModelOffTopic: in an index large enough to profile its space, a
// question the index has no answer to finds nothing by meaning alone, and
// the paraphrase an answer exists for is still found by meaning alone. The
// default fusion reads cosine from the random-pair mean to the query's best
// (search.NormSpace): an off-topic question's nearest chunk scores under
// that mean with each model served (reference runtime: z −0.2 to −1.5 in
// standard deviations of the random pairs), so its vector half is 0 and
// only keyword matches are left (ADR 0016).
func TestRealModelOffTopic(t *testing.T) {
	files := map[string]string{}
	for k, v := range realCorpus {
		files[k] = v
	}
	for _, f := range chanceDocs {
		b, err := os.ReadFile(filepath.Join("..", "docs", f))
		if err != nil {
			t.Fatal(err)
		}
		files["docs/ragd/"+filepath.Base(f)] = string(b)
	}
	d := realModelDaemonOf(t, files)
	h, err := d.Client.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Space == nil {
		t.Fatalf("the daemon did not profile the space (%+v chunks)", h.Index.Chunks)
	}
	t.Logf("%s: random pairs %.3f over %d pairs", h.Space.Space, h.Space.RandomCosine, h.Space.Pairs)

	for _, q := range []string{
		"Who won the football world cup final in 1998?",
		"What is a good recipe for sourdough bread?",
	} {
		resp := daemontest.Search(t, d.Client, "handbook", api.SearchRequest{Query: q, Explain: true})
		if !resp.VectorAvailable || resp.Degraded {
			t.Fatalf("%q: vector half unavailable: %+v", q, resp)
		}
		for _, h := range resp.Hits {
			if h.Explain != nil && h.Explain.LexicalRank == nil {
				t.Errorf("%q: a hit found by meaning alone, score %.3f: %s", q, h.Score, hitList(resp.Hits))
				break
			}
		}
	}

	// The paraphrase's answer is still among the vector half's nearest
	// chunks in the larger index. Whether the default fusion keeps it is not asserted
	// for every model: e5-small-v2's question-to-passage cosines sit at its
	// passage-to-passage random-pair mean (about 0.84 here, sampled from 25
	// pairs), so under the space normalisation its nearest chunk's vector
	// half can read 0 (ADR 0016 names this limit). RRF, which reads ranks,
	// shows the vector list's order whatever the profile.
	const q = "Where does my old notebook computer go when I resign?"
	limit := 20 // RRF ranks chunks both lists hold above one list's first
	resp := daemontest.Search(t, d.Client, "handbook", api.SearchRequest{Query: q, Explain: true, Fusion: api.FusionRRF, Limit: &limit})
	hit := hitIn(resp.Hits, len(resp.Hits), "erase utility")
	if hit == nil || hit.Explain == nil || hit.Explain.VectorRank == nil || *hit.Explain.VectorRank > 3 {
		t.Errorf("%q: the laptop section is not among the vector half's 3 nearest chunks: %s", q, hitList(resp.Hits))
	}
}

// hitList renders hits for a failure message.
func hitList(hits []api.Hit) string {
	var b strings.Builder
	for _, h := range hits {
		first, _, _ := strings.Cut(strings.TrimSpace(h.Content), "\n")
		b.WriteString("\n  " + strconv.Itoa(h.Rank) + ". " + first)
		if h.Explain != nil {
			if h.Explain.VectorRank != nil {
				b.WriteString(" [vector " + strconv.Itoa(*h.Explain.VectorRank) + "]")
			}
			if h.Explain.LexicalRank != nil {
				b.WriteString(" [lexical " + strconv.Itoa(*h.Explain.LexicalRank) + "]")
			}
		}
	}
	return b.String()
}

// benchSections is the size of the reindex benchmark's corpus: files of
// benchSectionsPerFile sections of about 900 characters, one chunk each.
const (
	benchFiles           = 12
	benchSectionsPerFile = 4
)

// benchCorpus returns the reindex benchmark's files: varied English prose,
// no two sections alike.
func benchCorpus() map[string]string {
	words := strings.Fields(`the service groups incoming records into batches before writing them to the
		database and a setting caps how many batches may be written at once raise it when the database has
		spare capacity lower it when write latency climbs deploys run from the main branch after the checks
		pass and a deploy can be rolled back from the release page within the first hour the on-call engineer
		answers pages within fifteen minutes and hands over at the weekly meeting with a short written summary
		patients treated with chemotherapy showed longer survival than those given placebo in the trial`)
	out := map[string]string{}
	for f := range benchFiles {
		var b strings.Builder
		b.WriteString("# Document " + strconv.Itoa(f) + "\n")
		for s := range benchSectionsPerFile {
			b.WriteString("\n## Part " + strconv.Itoa(s) + "\n\n")
			for j, n := 0, 0; n < 900; j++ {
				w := words[(f*31+s*7+j*j+j*13)%len(words)]
				b.WriteString(w + " ")
				n += len(w) + 1
			}
			b.WriteString("\n")
		}
		out["docs/d"+strconv.Itoa(f)+".md"] = b.String()
	}
	return out
}

// BenchmarkRealModelReindex: a first reindex through the daemon, in chunks
// per second, lexical only (the provider's port closed) and with the
// served model embedding every chunk before it is written, in one run.
//
//	go test -tags sqlite_fts5,realmodel -run '^$' -bench RealModelReindex -benchtime 1x ./daemon/
func BenchmarkRealModelReindex(b *testing.B) {
	files := benchCorpus()
	host, model := os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_MODEL")
	dims, err := strconv.Atoi(os.Getenv("RAGD_DIMS"))
	if host == "" || model == "" || err != nil {
		b.Fatal("real-model tier needs OLLAMA_HOST, RAGD_MODEL and RAGD_DIMS (export $(bash scripts/models.sh up all-minilm))")
	}
	for _, c := range []struct{ name, host string }{{"lexical-only", ollamatest.ClosedURL(b)}, {model, host}} {
		b.Run(c.name, func(b *testing.B) {
			var chunks int
			var took time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				cfg := daemontest.Config(c.host)
				cfg.Embedding.Model, cfg.Embedding.Dims = model, dims
				cfg.Embedding.IndexTimeout = daemon.Duration{Duration: 10 * time.Minute}
				d := daemontest.Start(b, daemontest.NewWorld(b), cfg)
				repo := daemontest.Repo(b, files)
				daemontest.AddProject(b, d.Client, repo.Dir, "bench")
				b.StartTimer()
				t0 := time.Now()
				rep := daemontest.Reindex(b, d.Client, "bench")
				took += time.Since(t0)
				b.StopTimer()
				for _, sr := range rep.Scopes {
					chunks += sr.Chunks.Total
					if c.host == host && sr.LexicalOnly != 0 {
						b.Fatalf("scope %s: %d chunks without a vector", sr.Scope, sr.LexicalOnly)
					}
				}
				d.Stop(b)
			}
			b.ReportMetric(float64(chunks)/took.Seconds(), "chunks/s")
		})
	}
}

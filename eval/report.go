package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
)

// Report is the outcome of an evaluation, as `ragd eval` prints it.
type Report struct {
	// Dataset names the queries' source; Space the embedding space.
	Dataset string `json:"dataset"`
	Space   string `json:"space"`
	Counts  Counts `json:"counts"`
	// BEIR and Index are set for a BEIR folder.
	BEIR  *BEIRReport   `json:"beir,omitempty"`
	Index *IndexSummary `json:"index,omitempty"`
	// SpaceProfile is how flat the index's embedding space is; absent when
	// too few chunks have a vector to measure it.
	SpaceProfile *ragd.SpaceProfile `json:"spaceProfile,omitempty"`
	// QueryEmbedding is what embedding the queries did; VectorUnavailable
	// counts queries searched without a vector.
	QueryEmbedding    EmbedStats `json:"queryEmbedding"`
	VectorUnavailable int        `json:"vectorUnavailable"`
	VectorReason      string     `json:"vectorReason,omitempty"`
	// VectorShare is set when the search saw only that share of the
	// chunks' vectors (Options.VectorShare).
	VectorShare float64 `json:"vectorShare,omitempty"`
	// Depth is the candidates per signal retrieved (with fill) once per
	// query; every mode is a replay of them.
	Depth     int           `json:"depth"`
	Modes     []*ModeResult `json:"modes,omitempty"`
	Bootstrap Bootstrap     `json:"bootstrap"`
	// Comparisons: every mode against lexical on every metric, and other
	// fused modes against weighted on nDCG@10.
	Comparisons []Comparison `json:"comparisons,omitempty"`
	// Queries are the per-query nDCG@10 of every mode, in the order of the
	// judged queries: set by Detail.
	Queries []QueryResult `json:"queries,omitempty"`
	// Calibration is set by `ragd calibrate`.
	Calibration *Calibration `json:"calibration,omitempty"`
	Warnings    []string     `json:"warnings"`
	Timings     Timings      `json:"timings"`
}

// IndexSummary is what indexing a BEIR corpus did.
type IndexSummary struct {
	Work   string `json:"work"`
	Commit string `json:"commit"`
	Docs   int    `json:"docs"`
	Chunks int    `json:"chunks"`
	// LexicalOnly chunks have no vector.
	LexicalOnly int `json:"lexicalOnly"`
	// Reused is set when the index was already there and nothing was
	// embedded or written.
	Reused   bool `json:"reused"`
	Embedded int  `json:"embedded"`
	Cached   int  `json:"cached"`
	Complete bool `json:"complete"`
	// Reason says why vectors are missing.
	Reason string `json:"reason,omitempty"`
}

// Timings are wall times of a run.
type Timings struct {
	Total time.Duration
	// Repo is writing the BEIR repository; Index the reindex, of which
	// IndexEmbed was embedding.
	Repo, Index, IndexEmbed time.Duration
	// QueryEmbed is embedding the queries; Retrieve reading their
	// candidates; Replay fusing and scoring every mode (and calibration).
	QueryEmbed, Retrieve, Replay time.Duration
}

// EmbeddingShare is the share of Total spent embedding (index and queries).
func (t Timings) EmbeddingShare() float64 {
	if t.Total <= 0 {
		return 0
	}
	return float64(t.IndexEmbed+t.QueryEmbed) / float64(t.Total)
}

// MarshalJSON writes the times in seconds.
func (t Timings) MarshalJSON() ([]byte, error) {
	s := func(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }
	return json.Marshal(map[string]float64{
		"totalSeconds": s(t.Total), "repoSeconds": s(t.Repo), "indexSeconds": s(t.Index),
		"indexEmbedSeconds": s(t.IndexEmbed), "queryEmbedSeconds": s(t.QueryEmbed),
		"retrieveSeconds": s(t.Retrieve), "replaySeconds": s(t.Replay),
		"embeddingShare": math.Round(t.EmbeddingShare()*1000) / 1000,
	})
}

// CompareModes compares every result with the one named base on each of
// metrics, and every other fused mode with "weighted" on nDCG@10.
func CompareModes(results []*ModeResult, base string, metrics []string, bs Bootstrap) []Comparison {
	find := func(name string) *ModeResult {
		for _, r := range results {
			if r.Name == name {
				return r
			}
		}
		return nil
	}
	var out []Comparison
	if b := find(base); b != nil {
		for _, r := range results {
			if r == b {
				continue
			}
			for _, m := range metrics {
				out = append(out, Compare(r, b, m, bs))
			}
		}
	}
	if w := find(string(search.FusionWeighted)); w != nil {
		for _, r := range results {
			if r != w && r.Signals == SignalsBoth {
				out = append(out, Compare(r, w, NDCG10, bs))
			}
		}
	}
	return out
}

// metricHeads are the table's column heads, in Metrics order.
var metricHeads = map[string]string{NDCG10: "nDCG@10", Recall6: "R@6", Recall10: "R@10", Recall100: "R@100", MRR10: "MRR@10"}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.3f", x)
}

func signed(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%+.3f", x)
}

func interval(c Comparison) string {
	return fmt.Sprintf("%s [%s, %s]", signed(c.Mean), signed(c.Low), signed(c.High))
}

// WriteTable writes r for a person.
func (r *Report) WriteTable(w io.Writer) error {
	c := r.Counts
	fmt.Fprintf(w, "ragd eval: %s, embedding space %s\n", r.Dataset, r.Space)
	fmt.Fprintf(w, "queries: %d evaluated (%d relevant citations)", c.Judged, c.Relevant)
	if c.NoRelevant > 0 {
		fmt.Fprintf(w, "; %d without a relevant citation, left out of the means", c.NoRelevant)
	}
	if c.Unresolvable > 0 {
		fmt.Fprintf(w, "; %d unresolvable citations, counted apart", c.Unresolvable)
	}
	fmt.Fprintln(w)
	if b := r.BEIR; b != nil && (b.WithoutQrels > 0 || len(b.Skipped) > 0) {
		fmt.Fprintf(w, "  of %d queries in the file: %d without judgments, %d refused (not evaluated)\n", b.Queries, b.WithoutQrels, len(b.Skipped))
	}
	if x := r.Index; x != nil {
		state := "indexed"
		if x.Reused {
			state = "reused (unchanged: nothing embedded)"
		}
		fmt.Fprintf(w, "index: %d documents, %d chunks, %s; %d embedded, %d from cache; work folder %s\n",
			x.Docs, x.Chunks, state, x.Embedded, x.Cached, x.Work)
		if !x.Complete {
			fmt.Fprintf(w, "  ! %d chunks have no vector: %s\n", x.LexicalOnly, x.Reason)
		}
	}
	if p := r.SpaceProfile; p != nil {
		fmt.Fprintf(w, "space: random chunk pairs score cosine %.2f on average (%d pairs)\n", p.RandomCosine, p.Pairs)
	}
	if q := r.QueryEmbedding; q.Texts > 0 {
		fmt.Fprintf(w, "query vectors: %d texts, %d embedded, %d from cache, %d failed (%s)\n", q.Texts, q.Embedded, q.Cached, q.Failed, sec(r.Timings.QueryEmbed))
	}
	if r.VectorShare > 0 {
		fmt.Fprintf(w, "vectors: searched as if only %.0f%% of the chunks had one yet (a fixed sample by chunk id; the rest wait for the fill)\n", 100*r.VectorShare)
	}
	if r.VectorUnavailable > 0 {
		fmt.Fprintf(w, "! %d of %d queries searched without a vector (%s): vector and fused modes are degraded\n",
			r.VectorUnavailable, c.Judged, r.VectorReason)
	}
	fmt.Fprintf(w, "candidates retrieved once per query at depth %d with fill; every mode replayed in memory (nothing recorded in telemetry)\n\n", r.Depth)

	if len(r.Modes) > 0 {
		if err := writeModes(w, r.Modes); err != nil {
			return err
		}
		fmt.Fprintf(w, "\nnDCG: linear gain, log2(rank+1) discount, ideal from all relevant citations; units deduplicated in rank order.\n")
		fmt.Fprintf(w, "R@100 reads a mode's whole answer before any limit: a fused mode answers at most 2 × its candidates.\n")
		fmt.Fprintf(w, "no hit: nothing above the threshold (weighted) or no candidate at all (rrf, single lists).\n\n")
		fmt.Fprintf(w, "differences, paired bootstrap %.0f%% CI (%d resamples, seed %d):\n", r.Bootstrap.Level*100, r.Bootstrap.Resamples, r.Bootstrap.Seed)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, cmp := range r.Comparisons {
			if cmp.Metric != NDCG10 && cmp.Metric != Recall6 {
				continue
			}
			fmt.Fprintf(tw, "  %s − %s\t%s\t%s\t%s\n", cmp.A, cmp.B, metricHeads[cmp.Metric], interval(cmp), cmp.Verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if r.Calibration != nil {
		if len(r.Modes) > 0 {
			fmt.Fprintln(w)
		}
		if err := r.Calibration.WriteTable(w); err != nil {
			return err
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "\nwarnings (%d):\n", len(r.Warnings))
		for i, s := range r.Warnings {
			if i == 20 {
				fmt.Fprintf(w, "  … and %d more (--json lists them all)\n", len(r.Warnings)-i)
				break
			}
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
	t := r.Timings
	fmt.Fprintf(w, "\ntime: %s in all; ", sec(t.Total))
	if r.Index != nil {
		fmt.Fprintf(w, "repository %s, index %s (embedding %s), ", sec(t.Repo), sec(t.Index), sec(t.IndexEmbed))
	}
	fmt.Fprintf(w, "query embedding %s, retrieval %s, replay %s; embedding %.0f%% of the total\n",
		sec(t.QueryEmbed), sec(t.Retrieve), sec(t.Replay), t.EmbeddingShare()*100)
	return nil
}

func sec(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// writeModes writes one line per mode.
func writeModes(w io.Writer, modes []*ModeResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "mode\tsettings")
	for _, m := range Metrics {
		fmt.Fprintf(tw, "\t%s", metricHeads[m])
	}
	fmt.Fprint(tw, "\tno hit\n")
	for _, r := range modes {
		fmt.Fprintf(tw, "%s\t%s", r.Name, r.Settings)
		for _, m := range Metrics {
			fmt.Fprintf(tw, "\t%s", f3(r.Means[m]))
		}
		fmt.Fprintf(tw, "\t%.1f%%\n", r.NoHit*100)
	}
	return tw.Flush()
}

// WriteTable writes the calibration for a person.
func (c *Calibration) WriteTable(w io.Writer) error {
	head := metricHeads[c.Objective]
	fmt.Fprintf(w, "calibration: objective %s; %d settings replayed in %s over %d training queries", head, c.Tried, sec(c.Elapsed), c.Train)
	if c.HeldOut > 0 {
		fmt.Fprintf(w, "; %d held out (%.0f%%, split by query-id hash)", c.HeldOut, c.Holdout*100)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "\tsettings\tpart")
	for _, m := range Metrics {
		fmt.Fprintf(tw, "\t%s", metricHeads[m])
	}
	fmt.Fprint(tw, "\tno hit\n")
	for _, ev := range []*Evaluated{c.Best, c.Current, c.Lexical} {
		for i, part := range []*ModeResult{ev.Train, ev.HeldOut} {
			if part == nil {
				continue
			}
			name, settings, label := ev.Name, ev.Settings, "train"
			if i == 1 {
				name, settings, label = "", "", "held-out"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s", name, settings, label)
			for _, m := range Metrics {
				fmt.Fprintf(tw, "\t%s", f3(part.Means[m]))
			}
			fmt.Fprintf(tw, "\t%.1f%%\n", part.NoHit*100)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s differences, paired bootstrap CI:\n", head)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, cmp := range c.Comparisons {
		fmt.Fprintf(tw, "  %s − %s\t%s\t%s\t%s\n", cmp.A, cmp.B, cmp.Part, interval(cmp), cmp.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nbest settings on the training part (%s):\n", head)
	for _, t := range c.Top {
		tied := ""
		if t.Tied > 0 {
			tied = fmt.Sprintf("  (and %d more settings tied)", t.Tied)
		}
		fmt.Fprintf(w, "  %.4f  %s%s\n", t.Train, t.Settings, tied)
	}
	if c.Best.Config == c.Current.Config {
		fmt.Fprintln(w, "\nthe current settings are the best found: nothing to change")
	}
	return nil
}

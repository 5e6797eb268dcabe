//go:build realmodel

package embedding_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchChunkChars is the length of an indexed chunk in the cost figures:
// about what ragd's chunker cuts from prose.
const benchChunkChars = 1000

// benchBatch is how many chunks one index request carries (ragd's
// default batch size).
const benchBatch = 16

// benchProse returns the i-th chunk of benchChunkChars characters of
// varied English prose (no two alike, so nothing is answered from a cache).
func benchProse(i int) string {
	words := strings.Fields(`the service groups incoming records into batches before writing them to the
		database and a setting caps how many batches may be written at once raise it when the database has
		spare capacity lower it when write latency climbs deploys run from the main branch after the checks
		pass and a deploy can be rolled back from the release page within the first hour the on-call engineer
		answers pages within fifteen minutes and hands over at the weekly meeting with a short written summary
		patients treated with chemotherapy showed longer survival than those given placebo in the trial`)
	var b strings.Builder
	fmt.Fprintf(&b, "Chunk %d. ", i)
	for j := 0; b.Len() < benchChunkChars; j++ {
		b.WriteString(words[(i*7+j*j+j*13)%len(words)])
		b.WriteByte(' ')
	}
	return b.String()[:benchChunkChars]
}

// BenchmarkRealModelIndex: chunks embedded per second for indexing, in
// batches of benchBatch chunks of benchChunkChars characters.
func BenchmarkRealModelIndex(b *testing.B) {
	s := realModelService(b, false)
	next := 0
	start := time.Now()
	for b.Loop() {
		texts := make([]string, benchBatch)
		for j := range texts {
			texts[j] = benchProse(next)
			next++
		}
		if r := s.EmbedDocuments(b.Context(), texts); !r.Available {
			b.Fatalf("embedding: %s", r.Reason)
		}
	}
	b.ReportMetric(float64(next)/time.Since(start).Seconds(), "chunks/s")
}

// BenchmarkRealModelQuery: the latency of embedding one search question,
// as a search does (one request, the model's query prefix), reported as
// the median and 95th percentile besides the mean.
func BenchmarkRealModelQuery(b *testing.B) {
	s := realModelService(b, false)
	var took []time.Duration
	i := 0
	for b.Loop() {
		q := fmt.Sprintf("how do I roll back deploy number %d of the ingest service?", i)
		i++
		t0 := time.Now()
		if _, ok, reason := s.EmbedQuery(b.Context(), q); !ok {
			b.Fatalf("embedding %q: %s", q, reason)
		}
		took = append(took, time.Since(t0))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
}

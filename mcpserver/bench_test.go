package mcpserver_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// Benchmark corpus: benchFiles documents of benchSections one-chunk
// sections, the 10k chunks the issue measures at.
const (
	benchFiles    = 1000
	benchSections = 10
)

// BenchmarkSearch compares one search through the MCP server (a client
// over the stdio pipe of a `ragd mcp`-like process, which calls the socket)
// with the same search straight over the socket, on 10k chunks. It reports
// the p50 and p95 of each, in milliseconds. Run:
//
//	go test ./mcpserver -run '^$' -bench Search -benchtime 300x
func BenchmarkSearch(b *testing.B) {
	srv := newOllama(b)
	d := daemontest.Start(b, daemontest.NewWorld(b), daemontest.Config(srv.URL))
	repo := daemontest.Repo(b, daemontest.Corpus(benchFiles, benchSections, "v0"))
	daemontest.AddProject(b, d.Client, repo.Dir, "bench")
	if rep := daemontest.Reindex(b, d.Client, "bench"); !rep.Complete {
		b.Fatalf("index: %s", rep.Summary)
	}
	cs := connect(b, d.Socket(), repo.Dir)
	ctx := context.Background()
	query := func(i int) string {
		n := i * 7919
		return fmt.Sprintf("alpha%d beta%d", n%benchFiles, (n/benchFiles)%benchSections)
	}

	b.Run("socket", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			resp, err := d.Client.Search(ctx, "bench", api.SearchRequest{Query: query(i), Actor: "agent:bench"})
			lat = append(lat, time.Since(start))
			if err != nil || len(resp.Hits) == 0 {
				b.Fatalf("search %q: %v", query(i), err)
			}
		}
		report(b, lat)
	})
	b.Run("mcp", func(b *testing.B) {
		lat := make([]time.Duration, 0, b.N)
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query(i)}})
			lat = append(lat, time.Since(start))
			if err != nil || res.IsError {
				b.Fatalf("search %q: %v %v", query(i), err, res)
			}
		}
		report(b, lat)
	})
}

func report(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	pct := func(p float64) float64 {
		// Nearest rank, as measure computes its percentiles.
		i := max(0, int(float64(len(lat))*p+0.999999)-1)
		return float64(lat[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}

package browse

import (
	"fmt"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// drain runs cmd and the commands its messages bring through m until none
// is left, as the program's loop would.
func drain(tb testing.TB, m Model, cmd tea.Cmd) Model {
	pending := []tea.Cmd{cmd}
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			pending = append(pending, msg...)
		default:
			next, more := m.Update(msg)
			m = next.(Model)
			pending = append(pending, more)
		}
	}
	return m
}

// BenchmarkKeystrokeToResults measures, at 10,000 chunks, the time from a
// keystroke that changes the query to the refreshed results on the model,
// through the socket: the search and its answer, with the debounce at
// 1ns (the view adds DefaultDebounce, 150 ms, on purpose). It reports the
// p50 and p95 in ms.
//
//	go test ./browse/ -run '^$' -bench KeystrokeToResults -benchtime 200x
func BenchmarkKeystrokeToResults(b *testing.B) {
	srv := ollamatest.NewServer(b, ollamatest.Options{Models: map[string]int{daemontest.Model: daemontest.Dims}})
	d := daemontest.Start(b, daemontest.NewWorld(b), daemontest.Config(srv.URL))
	const files, sections = 500, 20
	daemontest.AddProject(b, d.Client, daemontest.Repo(b, daemontest.Corpus(files, sections, "v1")).Dir, "big")
	rep := daemontest.Reindex(b, d.Client, "big")
	chunks := 0
	for _, s := range rep.Scopes {
		chunks += s.Chunks.Total
	}
	if chunks < files*sections {
		b.Fatalf("indexed %d chunks, want %d or more", chunks, files*sections)
	}
	m := New(d.Client, Options{Project: "big", Debounce: time.Nanosecond, NoColor: true, Width: 80, Height: 24})
	m = drain(b, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("socket citations gamma")} })
	var took []time.Duration
	i := 0
	for b.Loop() {
		// Each keystroke types a different digit: a new query each time.
		key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(fmt.Sprint(i % 10))}
		if i%8 == 7 {
			key = tea.KeyMsg{Type: tea.KeyBackspace}
		}
		i++
		start := time.Now()
		next, cmd := m.Update(key)
		m = drain(b, next.(Model), cmd)
		took = append(took, time.Since(start))
		if m.busy || m.status != "" {
			b.Fatalf("after the keystroke: busy %v, status %q", m.busy, m.status)
		}
	}
	b.StopTimer()
	slices.Sort(took)
	ms := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.50), "p50_ms")
	b.ReportMetric(ms(0.95), "p95_ms")
	b.ReportMetric(float64(chunks), "chunks")
}

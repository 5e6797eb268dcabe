package store

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

// zipfText is a chunk's text of words "z<rank>" drawn from a Zipf law over
// vocab words, of a length varied from short to long: bm25's length
// normalisation and its term frequencies both vary.
func zipfText(r *rand.Rand, z *rand.Zipf) string {
	n := 30 + r.Intn(170)
	var b strings.Builder
	for range n {
		b.WriteString("z")
		b.WriteString(strconv.FormatUint(z.Uint64()+1, 10))
		b.WriteString(" ")
	}
	return b.String()
}

// zipfProject is a project of Zipf-distributed text: docs written by a
// reindex, sessions by appends.
type zipfProject struct {
	s     *Store
	p     ragd.Project
	r     *rand.Rand
	z     *rand.Zipf
	vocab int
	event int
}

func newZipfCorpus(t *testing.T, vocab int) *zipfProject {
	s := mustOpen(t, 4)
	r := rand.New(rand.NewSource(17))
	return &zipfProject{s: s, p: mustProject(t, s, "p"), r: r, z: rand.NewZipf(r, 1.07, 2, uint64(vocab)), vocab: vocab}
}

// replaceDocs rewrites the docs scope with n chunks of fresh text.
func (c *zipfProject) replaceDocs(t *testing.T, n int) {
	t.Helper()
	in := make([]ragd.ChunkInput, n)
	for i := range in {
		text := zipfText(c.r, c.z)
		in[i] = ragd.ChunkInput{SourcePath: fmt.Sprintf("docs/f%03d.md", i/50), Position: i, Content: text, ContentHash: fmt.Sprintf("%d-%d", i, len(text))}
	}
	if _, err := c.s.ReplaceScope(context.Background(), c.p.ID, ragd.ScopeDocs, in); err != nil {
		t.Fatal(err)
	}
}

// appendSession appends n messages of one chunk each to a session.
func (c *zipfProject) appendSession(t *testing.T, session string, n int) {
	t.Helper()
	events := make([]ragd.Event, n)
	chunks := make([][]ragd.ChunkInput, n)
	for i := range events {
		c.event++
		text := zipfText(c.r, c.z)
		events[i] = testdb.Event(fmt.Sprintf("e%05d", c.event), session, "chat.message", text, time.Duration(c.event)*time.Second)
		chunks[i] = []ragd.ChunkInput{{SessionID: session, EventID: events[i].ID, End: len(text), Content: text, ContentHash: "h" + events[i].ID}}
	}
	if _, err := c.s.AppendSession(context.Background(), c.p.ID, events, chunks); err != nil {
		t.Fatal(err)
	}
}

// query is 2 to 5 distinct words from across the frequencies: the
// commonest words, mid-frequency ones, rare ones.
func (c *zipfProject) query(r *rand.Rand) ragd.LexicalQuery {
	return c.queryOf(r, 2+r.Intn(4))
}

// queryOf is query of n words.
func (c *zipfProject) queryOf(r *rand.Rand, n int) ragd.LexicalQuery {
	seen := map[string]bool{}
	var ws []string
	for len(ws) < n {
		// Log-uniform ranks: as many words of a few hundred rows as of a
		// few dozen, and some from the whole vocabulary (rare ones).
		top := 600.0
		if r.Intn(4) == 0 {
			top = float64(c.vocab)
		}
		rank := int(math.Exp(r.Float64() * math.Log(top)))
		w := "z" + strconv.Itoa(rank+1)
		if !seen[w] {
			seen[w] = true
			ws = append(ws, w)
		}
	}
	q := words(ws...)
	q.KeepFrequent = r.Intn(4) == 0
	if r.Intn(6) == 0 {
		q.Excluded = []ragd.LexicalTerm{{Word: "z3", Tokens: []string{"z3"}}}
	}
	return q
}

// lexicalBench is the store BenchmarkLexicalTopK searches: the ragd-bench
// corpus at RAGD_BENCH_CORPUS (a copy of one: opening migrates it), or
// else a lexical corpus of RAGD_BENCH_LEXICAL_CHUNKS chunks (100,000 by
// default) of the same recipe (testdb.BenchContent), built once.
var lexicalBench struct {
	once    sync.Once
	s       *Store
	project int64
	err     error
}

// openBenchCorpus opens a kept benchmark corpus at path and its project
// "bench", its words' bounds computed if it predates them.
func openBenchCorpus(ctx context.Context, path string, opt Options) (*Store, int64, error) {
	s, err := Open(ctx, path, opt)
	if err != nil {
		return nil, 0, err
	}
	p, err := s.Project(ctx, "bench")
	if err == nil {
		err = s.ensureBounds(ctx, p.ID)
	}
	return s, p.ID, err
}

func lexicalBenchStore(b *testing.B) (*Store, int64) {
	lexicalBench.once.Do(func() {
		ctx := context.Background()
		if path := os.Getenv("RAGD_BENCH_CORPUS"); path != "" {
			lexicalBench.s, lexicalBench.project, lexicalBench.err = openBenchCorpus(ctx, path, Options{Space: "bench/768", Dims: 768})
			return
		}
		n := 100_000
		if v := os.Getenv("RAGD_BENCH_LEXICAL_CHUNKS"); v != "" {
			var err error
			if n, err = strconv.Atoi(v); err != nil {
				lexicalBench.err = fmt.Errorf("RAGD_BENCH_LEXICAL_CHUNKS: %w", err)
				return
			}
		}
		// RAGD_BENCH_LEXICAL_DB keeps the corpus built at that path, and
		// reuses it when it is there (the 1M one takes 20 minutes).
		path := os.Getenv("RAGD_BENCH_LEXICAL_DB")
		if path == "" {
			dir, err := mkdirTemp()
			if err != nil {
				lexicalBench.err = err
				return
			}
			path = filepath.Join(dir, "lexical.db")
		} else if _, err := os.Stat(path); err == nil {
			lexicalBench.s, lexicalBench.project, lexicalBench.err = openBenchCorpus(ctx, path, Options{Space: "bench/4", Dims: 4})
			return
		}
		s, err := Open(ctx, path, Options{Space: "bench/4", Dims: 4})
		if err != nil {
			lexicalBench.err = err
			return
		}
		p, err := s.AddProject(ctx, "bench", "/bench")
		if err != nil {
			lexicalBench.err = err
			return
		}
		for _, in := range testdb.BenchFiles(n, 4, docChunk) {
			if err := s.appendChunks(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
				lexicalBench.err = err
				return
			}
		}
		lexicalBench.s, lexicalBench.project = s, p.ID
	})
	if lexicalBench.err != nil {
		b.Fatalf("lexical benchmark corpus: %v", lexicalBench.err)
	}
	return lexicalBench.s, lexicalBench.project
}

// BenchmarkLexicalTopK times LexicalCandidates (k = 12 and 50, words
// pruned as a search prunes them) with the MaxScore pass and without it
// (every match scored, as before), on questions of rare, mid-frequency
// and frequent words of the Zipf corpus (at 100k chunks "w4000" is in
// 0.5% of them, "w700" 3%, "w300" 8%, "w100" 23%, "w20" 75%, "w3" all),
// and with the pass but without the kept row counts (the words' rows
// counted in the index by fts5vocab, as before them); every match is
// scored by FTS5's own bm25(), the reference. Each op runs all three, in
// rotating order, so that a machine's changing load weighs on them alike;
// the metrics are their medians ("maxscore-ms", "counted-ms",
// "whole-ms") and whether the pass answered by itself ("exact"). It fails
// when the answers differ in any way.
//
//	go test -run '^$' -bench 'LexicalTopK$' -benchtime 40x ./store/
func BenchmarkLexicalTopK(b *testing.B) {
	s, pid := lexicalBenchStore(b)
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	sn := snap.(*Snapshot)
	for _, ws := range [][]string{
		{"w20000", "w4000"},
		{"w4000", "w700", "w300"},
		{"w4000", "w700", "w100"},
		{"w20000", "w4000", "w300", "w100"},
		{"w700", "w300"},
		{"w300", "w100"},
		{"w4000", "w700", "w20"},
		{"w4000", "w700", "w300", "w3"},
	} {
		for _, k := range []int{12, search50} {
			benchTopK(b, sn, pid, ws, k)
		}
	}
}

// search50 is the search's default depth (search.DefaultCandidates); 12
// is the scale table's.
const search50 = 50

// benchTopK times one question with each method in turn.
func benchTopK(b *testing.B, sn *Snapshot, pid int64, ws []string, k int) {
	ctx := context.Background()
	q := words(ws...)
	b.Run(fmt.Sprintf("%s/k%d", strings.Join(ws, "_"), k), func(b *testing.B) {
		type method struct {
			pass  topKMethod
			count bool // the words' rows counted in the index, not read from the bounds table
		}
		took := map[method][]time.Duration{}
		answers := map[method][]ragd.LexicalCandidate{}
		exact := 0.0
		kept, counted, whole := method{topKMaxScore, false}, method{topKMaxScore, true}, method{topKOff, true}
		run := func(m method) {
			old := lexicalTopK
			lexicalTopK, countDocs = m.pass, m.count
			defer func() { lexicalTopK, countDocs = old, false }()
			sn.lastPlan = nil // each search plans its query
			start := time.Now()
			got, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: pid}, q, k)
			d := time.Since(start)
			if err != nil || len(got.Candidates) != k {
				b.Fatalf("%v: %d candidates, %v", ws, len(got.Candidates), err)
			}
			took[m] = append(took[m], d)
			answers[m] = got.Candidates
			if m == kept && sn.lastTopK == topKExact {
				exact = 1
			}
		}
		methods := []method{kept, counted, whole}
		i := 0
		for b.Loop() {
			for j := range methods {
				run(methods[(i+j)%len(methods)])
			}
			i++
		}
		for _, m := range []method{kept, counted} {
			if !slices.Equal(answers[m], answers[whole]) {
				b.Fatalf("%v, k %d: the pass (counting rows %v) answered\n%v\nevery match scored\n%v", ws, k, m.count, answers[m], answers[whole])
			}
		}
		median := func(d []time.Duration) float64 {
			slices.Sort(d)
			return float64(d[len(d)/2].Microseconds()) / 1000
		}
		b.ReportMetric(median(took[kept]), "maxscore-ms")
		b.ReportMetric(median(took[counted]), "counted-ms")
		b.ReportMetric(median(took[whole]), "whole-ms")
		b.ReportMetric(exact, "exact")
	})
}

// LexicalScores of many chunks (one walk of the matches, the rows
// filtered outside FTS5) scores each as a lookup of it alone does: the
// same rows, the same scores, another project's and unknown chunks left
// out; and those scores are FTS5's bm25()'s, bit for bit.
func TestLexicalScores_ManyEqualsOneByOne(t *testing.T) {
	ctx := context.Background()
	c := newZipfCorpus(t, 400)
	c.replaceDocs(t, 600)
	c.appendSession(t, "s", 50)
	other := mustProject(t, c.s, "other")
	if _, err := c.s.ReplaceScope(ctx, other.ID, ragd.ScopeDocs, []ragd.ChunkInput{{SourcePath: "a.md", Content: "z1 z2 z3 z4 z5", ContentHash: "a"}}); err != nil {
		t.Fatal(err)
	}
	snap, err := c.s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	sn := snap.(*Snapshot)
	var ids []string
	rows, err := sn.tx.Query("SELECT id FROM chunks ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	r := rand.New(rand.NewSource(9))
	matched := 0
	for range 30 {
		q := c.query(r)
		asked := []string{"no-such-chunk"}
		for range 40 {
			asked = append(asked, ids[r.Intn(len(ids))])
		}
		many, err := sn.LexicalScores(ctx, c.p.ID, q, asked)
		if err != nil {
			t.Fatal(err)
		}
		one := map[string]float64{}
		for _, id := range asked {
			got, err := sn.LexicalScores(ctx, c.p.ID, q, []string{id})
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range got {
				one[k] = v
			}
		}
		if len(many) != len(one) {
			t.Errorf("%v: %d chunks scored together, %d one by one", q.Terms, len(many), len(one))
		}
		for id, s := range one {
			if many[id] != s {
				t.Errorf("%v: %s scores %v together, %v alone", q.Terms, id, many[id], s)
			}
		}
		// And as FTS5's own bm25() scores them, every match ranked (the
		// scores are ragd_bm25's with the kept row counts).
		// The pruned expression where it matches, else the whole one.
		sn.lastPlan = nil
		plan, err := sn.plan(ctx, c.p.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		ref := map[string]float64{}
		for _, expr := range []string{plan.expression(), plan.whole} {
			for _, c := range lexicalRanking(t, c.s, c.p.ID, expr) {
				if _, ok := ref[c.ChunkID]; !ok {
					ref[c.ChunkID] = c.Score
				}
			}
		}
		for id, s := range many {
			if w, ok := ref[id]; ok && w != s {
				t.Errorf("%v: %s scores %v, FTS5's bm25 %v", q.Terms, id, s, w)
			}
		}
		matched += len(one)
	}
	if matched < 100 {
		t.Errorf("only %d chunks matched: the comparison proves little", matched)
	}
}

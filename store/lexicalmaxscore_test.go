package store

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/testdb"
)

// ragd_bm25 with FTS5's idfs as the weights scores every row of a
// question as bm25() does, bit for bit, whatever expression chooses the
// rows: the MaxScore pass's scores are the whole query's.
func TestRagdBM25_EqualsBM25(t *testing.T) {
	ctx := context.Background()
	c := newZipfCorpus(t, 300)
	c.replaceDocs(t, 400)
	c.appendSession(t, "s", 60)
	snap, err := c.s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	sn := snap.(*Snapshot)
	tbl := lexicalTable(c.p.ID)
	scores := func(expr string, args ...any) map[int64]float64 {
		t.Helper()
		rows, err := sn.tx.Query("SELECT rowid, "+expr, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[int64]float64{}
		for rows.Next() {
			var id int64
			var s float64
			if err := rows.Scan(&id, &s); err != nil {
				t.Fatal(err)
			}
			out[id] = s
		}
		return out
	}
	r := rand.New(rand.NewSource(3))
	compared := 0
	for range 40 {
		terms := cleanTerms(c.queryOf(r, 2+r.Intn(10)).Terms)
		var tokens []string
		for _, t := range terms {
			tokens = append(tokens, t.Tokens[0])
		}
		td, err := sn.TermDocs(ctx, c.p.ID, tokens)
		if err != nil {
			t.Fatal(err)
		}
		q := maxScoreQuery{table: tbl, all: orList(terms), rows: td.Rows, tokens: td.Tokens}
		for _, tok := range tokens {
			q.docs = append(q.docs, td.Docs[tok])
		}
		whole := scores("bm25("+tbl+") FROM "+tbl+" WHERE "+tbl+" MATCH ?", q.all)
		// Chosen by the rarest word, every word beside it.
		chooser := ftsString(terms[0])
		sc := q.scoring(1)
		mine := scores(sc.expr+" FROM "+tbl+" WHERE "+tbl+" MATCH ?", append(sc.args, q.match(chooser))...)
		if len(mine) == 0 {
			continue
		}
		for id, s := range mine {
			w, ok := whole[id]
			if !ok {
				t.Fatalf("%s: row %d is not a row of %s", q.match(chooser), id, q.all)
			}
			if s != -w {
				t.Errorf("%s: row %d scores %v, bm25 %v", q.match(chooser), id, s, -w)
			}
			compared++
		}
	}
	if compared < 200 {
		t.Errorf("only %d rows compared", compared)
	}
}

// viableSets lists exactly the minimal sets of words whose bounds reach
// θ, checked against every subset of random bounds.
func TestViableSets_AreTheMinimalOnes(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for range 300 {
		n := 1 + r.Intn(9)
		bounds := make([]float64, n)
		total := 0.0
		for i := range bounds {
			bounds[i] = 0.1 + 10*r.Float64()
			total += bounds[i]
		}
		slices.SortFunc(bounds, func(a, b float64) int { return -compareFloat(a, b) })
		theta := total * r.Float64()
		got := viableSets(bounds, theta, 1<<n)
		var want [][]int
		for mask := 1; mask < 1<<n; mask++ {
			sum, least := 0.0, -1
			var set []int
			for i := range n {
				if mask&(1<<i) != 0 {
					sum += bounds[i]
					set = append(set, i)
					least = i
				}
			}
			if sum >= theta && sum-bounds[least] < theta {
				want = append(want, set)
			}
		}
		key := func(ss [][]int) []string {
			var out []string
			for _, s := range ss {
				out = append(out, fmt.Sprint(s))
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(key(got), key(want)) {
			t.Fatalf("bounds %v, θ %v: got %v, want %v", bounds, theta, got, want)
		}
		if len(want) > 2 && viableSets(bounds, theta, len(want)-1) != nil {
			t.Fatalf("bounds %v, θ %v: more sets than the most, yet a list", bounds, theta)
		}
	}
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// The MaxScore pass answers exactly what scoring every match answers: the
// same rows in the same order with the same scores, bit for bit, for
// random questions of 2 to 12 words (k 1 to 50, with and without scopes
// and excluded words, some keeping every word), on a Zipf corpus written
// by a reindex and by appends; after more appends, after a reindex that
// replaces every doc, after a forgotten session. It must have answered
// most of them itself, or the test proves nothing.
func TestMaxScore_EqualsExhaustive(t *testing.T) {
	old := maxScoreFromRows
	maxScoreFromRows = 50
	t.Cleanup(func() { maxScoreFromRows = old })
	c := newZipfCorpus(t, 3000)
	c.replaceDocs(t, 2500)
	for i := range 5 {
		c.appendSession(t, fmt.Sprintf("s%d", i), 100)
	}
	total := map[topKPass]int{}
	check := func(seed int64) {
		t.Helper()
		ctx := context.Background()
		snap, err := c.s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		sn := snap.(*Snapshot)
		r := rand.New(rand.NewSource(seed))
		for i := range 200 {
			q := c.queryOf(r, 2+r.Intn(11))
			k := []int{1, 5, 12, 30, 50}[r.Intn(5)]
			var scopes []string
			if i%5 == 0 {
				scopes = []string{ragd.ScopeSession}
			}
			sn.lastPlan = nil
			got, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: c.p.ID, Scopes: scopes}, q, k)
			if err != nil {
				t.Fatal(err)
			}
			total[sn.lastTopK]++
			want := fullLexical(t, c.s, c.p.ID, scopes, got.Expression, k)
			if len(got.Dropped) > 0 && len(want) < k {
				continue // the dropped words' rows follow: the whole query's concern, tested elsewhere
			}
			if !slices.Equal(got.Candidates, want) {
				t.Errorf("%s in %v, k %d (pass %d):\n got %v\nwant %v", got.Expression, scopes, k, sn.lastTopK, got.Candidates, want)
			}
		}
	}
	check(1)
	for i := range 5 {
		c.appendSession(t, fmt.Sprintf("s%d", i), 60)
	}
	check(2)
	c.replaceDocs(t, 1800)
	check(3)
	if _, err := c.s.ForgetSession(context.Background(), c.p.ID, "s2"); err != nil {
		t.Fatal(err)
	}
	check(4)
	t.Logf("passes: exact %d, fell back %d, not tried %d", total[topKExact], total[topKFellBack], total[topKNotTried])
	if total[topKExact] < 400 {
		t.Errorf("the pass answered %d of 800 queries (fell back %d, not tried %d): want at least 400",
			total[topKExact], total[topKFellBack], total[topKNotTried])
	}
}

// Every word's bound is at least its contribution to every row holding
// it, after appends, a reindex replacing every doc and a forgotten
// session (which leave the bounds of deleted rows); after a rebuild it is
// the largest contribution, up to rounding.
func TestTermBounds_BoundEveryRow(t *testing.T) {
	ctx := context.Background()
	c := newZipfCorpus(t, 500)
	c.replaceDocs(t, 300)
	c.appendSession(t, "s1", 40)
	check := func(stage string, tight bool) {
		t.Helper()
		snap, err := c.s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		sn := snap.(*Snapshot)
		tbl := lexicalTable(c.p.ID)
		var tokens []string
		for i := 1; i <= 500; i += 7 {
			tokens = append(tokens, fmt.Sprintf("z%d", i))
		}
		td, err := sn.TermDocs(ctx, c.p.ID, tokens)
		if err != nil {
			t.Fatal(err)
		}
		bounds, ok, err := sn.termBounds(ctx, c.p.ID, tokens, float64(td.Tokens)/float64(td.Rows))
		if err != nil || !ok {
			t.Fatalf("%s: bounds %v, %v", stage, ok, err)
		}
		checked, tightOnes := 0, 0
		for _, tok := range tokens {
			n := td.Docs[tok]
			if n == 0 {
				continue
			}
			var best float64
			if err := sn.tx.QueryRow("SELECT ragd_bm25("+tbl+", ?, ?, ?) AS s FROM "+tbl+" WHERE "+tbl+" MATCH ? ORDER BY s DESC LIMIT 1",
				td.Rows, td.Tokens, n, `"`+tok+`"`).Scan(&best); err != nil {
				t.Fatal(err)
			}
			ub := fts5IDF(td.Rows, n) * bounds[tok]
			if best > ub*(1+maxScoreMargin) {
				t.Errorf("%s: %s (%d rows) adds %v to a row, its bound is %v", stage, tok, n, best, ub)
			}
			if ub <= best*(1+1e-9) {
				tightOnes++
			}
			checked++
		}
		if checked < 30 {
			t.Fatalf("%s: %d words checked", stage, checked)
		}
		if tight && tightOnes != checked {
			t.Errorf("%s: %d of %d bounds are the largest contribution", stage, tightOnes, checked)
		}
	}
	check("written", false)
	c.appendSession(t, "s2", 80)
	check("appended", false)
	c.replaceDocs(t, 150)
	check("reindexed", false)
	if _, err := c.s.ForgetSession(ctx, c.p.ID, "s1"); err != nil {
		t.Fatal(err)
	}
	check("forgotten", false)
	// A rebuild of the lexical table (another language) computes them
	// anew at its average length.
	if _, err := c.s.SetLanguage(ctx, c.p.ID, "german"); err != nil {
		t.Fatal(err)
	}
	check("rebuilt", true)
}

// BenchmarkAppendBounds times appends of 10 messages to a session of the
// lexical benchmark's corpus (BenchmarkLexicalTopK's), with the words'
// bounds and row counts kept and without, in alternation: the
// upkeep's cost ("bounds-ms" against "without-ms", medians). The appends
// without it leave the kept counts unused (TermDocs counts the words'
// rows again) in that store: run it apart from BenchmarkLexicalTopK.
//
//	RAGD_BENCH_CORPUS=COPY go test -run '^$' -bench AppendBounds -benchtime 40x ./store/
func BenchmarkAppendBounds(b *testing.B) {
	s, pid := lexicalBenchStore(b)
	ctx := context.Background()
	r := rand.New(rand.NewSource(1))
	z := rand.NewZipf(r, 1.07, 2, 30000)
	event := 0
	var with, without []time.Duration
	i := 0
	for b.Loop() {
		for _, keep := range []bool{i%2 == 0, i%2 != 0} {
			keepBounds = keep
			events := make([]ragd.Event, 10)
			chunks := make([][]ragd.ChunkInput, 10)
			for j := range events {
				event++
				text := zipfText(r, z)
				events[j] = testdb.Event(fmt.Sprintf("bench-e%07d", event), "bench-session", "chat.message", text, time.Duration(event)*time.Second)
				chunks[j] = []ragd.ChunkInput{{SessionID: "bench-session", EventID: events[j].ID, End: len(text), Content: text, ContentHash: "h" + events[j].ID}}
			}
			start := time.Now()
			if _, err := s.AppendSession(ctx, pid, events, chunks); err != nil {
				b.Fatal(err)
			}
			if keep {
				with = append(with, time.Since(start))
			} else {
				without = append(without, time.Since(start))
			}
		}
		i++
	}
	keepBounds = true
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(with), "bounds-ms")
	b.ReportMetric(median(without), "without-ms")
}

// A lexical table that predates the bounds is bounded loosely (and the
// pass still answers exactly), and the reindex's repair step computes its
// bounds, the largest contribution of each word.
func TestRepairLexical_AddsBounds(t *testing.T) {
	ctx := context.Background()
	c := newZipfCorpus(t, 500)
	c.replaceDocs(t, 300)
	c.appendSession(t, "s1", 40)
	if _, err := c.s.db.ExecContext(ctx, "DROP TABLE "+boundsTable(c.p.ID)); err != nil {
		t.Fatal(err)
	}
	c.appendSession(t, "s1", 10) // a write without bounds to keep
	tokens := []string{"z2", "z5", "z17", "z40", "z90"}
	bounds := func() (map[string]float64, bool, TermDocs, *Snapshot) {
		t.Helper()
		snap, err := c.s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { snap.Close() })
		sn := snap.(*Snapshot)
		td, err := sn.TermDocs(ctx, c.p.ID, tokens)
		if err != nil {
			t.Fatal(err)
		}
		b, ok, err := sn.termBounds(ctx, c.p.ID, tokens, float64(td.Tokens)/float64(td.Rows))
		if err != nil {
			t.Fatal(err)
		}
		return b, ok, td, sn
	}
	_, ok, _, sn := bounds()
	if ok {
		t.Fatal("bounds read from a dropped table")
	}
	old := maxScoreFromRows
	maxScoreFromRows = 50
	t.Cleanup(func() { maxScoreFromRows = old })
	r := rand.New(rand.NewSource(8))
	answered := 0
	for range 40 {
		q := c.queryOf(r, 2+r.Intn(8))
		sn.lastPlan = nil
		got, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: c.p.ID}, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if sn.lastTopK == topKExact {
			answered++
		}
		want := fullLexical(t, c.s, c.p.ID, nil, got.Expression, 10)
		if len(got.Dropped) == 0 && !slices.Equal(got.Candidates, want) {
			t.Errorf("%s with loose bounds:\n got %v\nwant %v", got.Expression, got.Candidates, want)
		}
	}
	if answered == 0 {
		t.Error("the pass answered nothing with loose bounds: the check proves little")
	}
	if repaired, err := c.s.RepairLexical(ctx, c.p.ID); err != nil || repaired {
		t.Fatalf("repair: %v, %v", repaired, err)
	}
	b, ok, td, sn := bounds()
	if !ok {
		t.Fatal("no bounds after the repair step")
	}
	tbl := lexicalTable(c.p.ID)
	for _, tok := range tokens {
		var best float64
		if err := sn.tx.QueryRow("SELECT ragd_bm25("+tbl+", ?, ?, ?) AS s FROM "+tbl+" WHERE "+tbl+" MATCH ? ORDER BY s DESC LIMIT 1",
			td.Rows, td.Tokens, td.Docs[tok], `"`+tok+`"`).Scan(&best); err != nil {
			t.Fatal(err)
		}
		ub := fts5IDF(td.Rows, td.Docs[tok]) * b[tok]
		if best > ub*(1+maxScoreMargin) || ub > best*(1+1e-9) {
			t.Errorf("%s: bound %v, the largest contribution %v", tok, ub, best)
		}
	}
}

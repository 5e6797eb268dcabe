package postgres

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

func words(ws ...string) ragd.LexicalQuery {
	a, _ := rules.AnalyzerFor("english")
	var q ragd.LexicalQuery
	for _, w := range ws {
		q.Terms = append(q.Terms, ragd.LexicalTerm{Word: w, Tokens: a.Analyze(w)})
	}
	return q
}

func TestSnapshotVectorCandidates(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs,
		doc("a.md", 0, "east", []float32{1, 0, 0, 0}),
		doc("b.md", 0, "north east", []float32{1, 1, 0, 0}),
		doc("c.md", 0, "no vector", nil),
		doc("d.md", 0, "west", []float32{-1, 0, 0, 0}))
	replace(t, s, p.ID, ragd.ScopeADR, doc("adr/1.md", 0, "east adr", []float32{2, 0.1, 0, 0}))
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID, Scopes: []string{ragd.ScopeDocs}}, []float32{3, 0, 0, 0}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("candidates: %+v, want the 3 docs chunks with a vector", got)
	}
	want := []float64{0, 1 - 1/math.Sqrt2, 2}
	for i, c := range got {
		if math.Abs(c.Distance-want[i]) > 1e-6 {
			t.Fatalf("candidate %d: distance %v, want %v (%+v)", i, c.Distance, want[i], got)
		}
	}
	all, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, []float32{1, 0, 0, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[1].Distance <= all[0].Distance {
		t.Fatalf("two nearest of every scope: %+v", all)
	}
	ids := []string{got[0].ChunkID, got[2].ChunkID, idOf(doc("c.md", 0, "no vector", nil), p.ID, ragd.ScopeDocs)}
	d, err := sn.VectorDistances(ctx, []float32{1, 0, 0, 0}, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 2 || math.Abs(d[ids[1]]-2) > 1e-6 {
		t.Fatalf("distances: %v", d)
	}
	chunks, vectors, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: p.ID, Scopes: []string{ragd.ScopeDocs}})
	if err != nil || chunks != 4 || vectors != 3 {
		t.Fatalf("coverage: %d chunks, %d vectors, %v; want 4, 3", chunks, vectors, err)
	}
	if _, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, []float32{1, 0}, 2); err == nil {
		t.Fatal("query vector of the wrong length: no error")
	}
	if _, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID, Scopes: []string{"nope"}}, []float32{1, 0, 0, 0}, 2); err == nil {
		t.Fatal("unknown scope: no error")
	}
}

func TestSnapshotLexicalScores(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs,
		doc("a.md", 0, "fox fox fox and a dog", nil),
		doc("b.md", 0, "one fox among many other words of a long text", nil),
		doc("c.md", 0, "nothing here", nil))
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, words("fox"), 10)
	if err != nil {
		t.Fatal(err)
	}
	a, b := idOf(doc("a.md", 0, "fox fox fox and a dog", nil), p.ID, ragd.ScopeDocs), idOf(doc("b.md", 0, "one fox among many other words of a long text", nil), p.ID, ragd.ScopeDocs)
	if len(m.Candidates) != 2 || m.Candidates[0].ChunkID != a || m.Candidates[0].Score <= m.Candidates[1].Score {
		t.Fatalf("candidates of %q: %+v, want a.md first", m.Expression, m.Candidates)
	}
	scores, err := sn.LexicalScores(ctx, p.ID, words("fox"), []string{a, b, "unknown"})
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != 2 || scores[a] != m.Candidates[0].Score || scores[b] != m.Candidates[1].Score {
		t.Fatalf("scores %v, want the candidates' %+v", scores, m.Candidates)
	}
	if lang, err := sn.LexicalLanguage(ctx, p.ID); err != nil || lang != "english" {
		t.Fatalf("lexical language %q, %v", lang, err)
	}
}

// A snapshot sees one state: a ReplaceScope committed while it is open
// (on PGlite, which serves one transaction at a time, queued until it
// closes) changes nothing it reads.
func TestSnapshotIsolation(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs, doc("a.md", 0, "old fox", []float32{1, 0, 0, 0}))
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read := func(sn *Snapshot) (lexical, vector string) {
		t.Helper()
		m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: p.ID}, words("fox"), 10)
		if err != nil {
			t.Fatal(err)
		}
		v, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, []float32{1, 0, 0, 0}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Candidates) != 1 || len(v) != 1 {
			t.Fatalf("lexical %+v, vector %+v: want one each", m.Candidates, v)
		}
		c, err := sn.Chunks(ctx, []string{m.Candidates[0].ChunkID, v[0].ChunkID})
		if err != nil || len(c) != 1 {
			t.Fatalf("chunks of the candidates: %+v, %v; want one chunk", c, err)
		}
		return c[0].Content, v[0].ChunkID
	}
	before, _ := read(sn)
	done := make(chan error, 1)
	go func() {
		_, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{doc("a.md", 0, "new fox", []float32{0, 1, 0, 0})})
		done <- err
	}()
	during, _ := read(sn)
	if before != "old fox" || during != "old fox" {
		t.Fatalf("snapshot read %q then %q, want the old text twice", before, during)
	}
	sn.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sn2, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn2.Close()
	if after, _ := read(sn2); after != "new fox" {
		t.Fatalf("new snapshot read %q, want the new text", after)
	}
}

// Two ReplaceScope of one scope serialise on its advisory lock: never both
// inside their transactions at once, and the scope ends exactly as one of
// them wrote it.
func TestReplaceScopeAdvisoryLock(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	var inside, most atomic.Int32
	s.afterLock = func(ctx context.Context, tx pgx.Tx) error {
		n := inside.Add(1)
		defer inside.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		var held int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
			AND classid = $1 AND objid::oid = hashtext('docs')::oid AND objsubid = 2`, p.ID).Scan(&held); err != nil {
			return err
		}
		if held != 1 {
			return fmt.Errorf("advisory locks of the scope held: %d, want 1", held)
		}
		return nil
	}
	write := func(tag string, n int) []ragd.ChunkInput {
		var out []ragd.ChunkInput
		for i := range n {
			out = append(out, doc(fmt.Sprintf("%s%d.md", tag, i), 0, tag+" text", nil))
		}
		return out
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, tag := range []string{"x", "y"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, write(tag, 20))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if most.Load() != 1 {
		t.Fatalf("%d replaces inside the scope's lock at once, want 1", most.Load())
	}
	got, err := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]int{}
	for _, c := range got {
		tags[c.SourcePath[:1]]++
	}
	if len(got) != 20 || len(tags) != 1 {
		t.Fatalf("scope after two concurrent replaces: %v, want the 20 chunks of one", tags)
	}
}

// Session chunks are their owner's: another owner's snapshot, chunk list
// and reindex never see them, unless they are shared; docs are everyone's.
func TestOwnersSeeTheirSessions(t *testing.T) {
	alice, url := openTest(t, Options{Owner: "alice"})
	bob := openAt(t, url, Options{Owner: "bob"})
	carol := openAt(t, url, Options{Owner: "carol", ShareSessions: true})
	ctx := context.Background()
	pa := addProject(t, alice, "team")
	pb := addProject(t, bob, "team")
	pc := addProject(t, carol, "team")
	if pa.ID != pb.ID || pb.ID != pc.ID || pb.Path != "/home/bob/team" {
		t.Fatalf("projects: %+v, %+v, %+v: want one project, each owner's path", pa, pb, pc)
	}
	v := []float32{1, 0, 0, 0}
	replace(t, alice, pa.ID, ragd.ScopeDocs, doc("readme.md", 0, "deploy guide", v))
	replace(t, alice, pa.ID, ragd.ScopeSession, sessionChunk("s-alice", "e1", "alice deploy secret", v))
	replace(t, bob, pa.ID, ragd.ScopeSession, sessionChunk("s-bob", "e1", "bob deploy notes", v))
	replace(t, carol, pa.ID, ragd.ScopeSession, sessionChunk("s-carol", "e1", "carol deploy shared", v))

	for _, tc := range []struct {
		s    *Store
		want map[string]bool // contents seen
	}{
		{alice, map[string]bool{"deploy guide": true, "alice deploy secret": true, "carol deploy shared": true}},
		{bob, map[string]bool{"deploy guide": true, "bob deploy notes": true, "carol deploy shared": true}},
		{carol, map[string]bool{"deploy guide": true, "carol deploy shared": true}},
	} {
		t.Run(tc.s.Owner(), func(t *testing.T) {
			sn, err := tc.s.snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sn.Close()
			// No other query of the test's before Close: PGlite makes
			// every other connection wait for an open transaction.
			m, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: pa.ID}, words("deploy"), 10)
			if err != nil {
				t.Fatal(err)
			}
			vc, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: pa.ID}, v, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Candidates) != len(tc.want) || len(vc) != len(tc.want) {
				t.Fatalf("lexical %d, vector %d candidates, want %d", len(m.Candidates), len(vc), len(tc.want))
			}
			ids := []string{}
			for _, c := range m.Candidates {
				ids = append(ids, c.ChunkID)
			}
			chunks, err := sn.Chunks(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range chunks {
				if !tc.want[c.Content] {
					t.Errorf("sees %q", c.Content)
				}
			}
			n, _, err := sn.VectorCoverage(ctx, ragd.Filter{ProjectID: pa.ID, Scopes: []string{ragd.ScopeSession}})
			if err != nil || n != len(tc.want)-1 {
				t.Errorf("session coverage %d, %v; want %d", n, err, len(tc.want)-1)
			}
			sn.Close()
			// Another owner's chunk id asked for directly is not there either.
			secret := idOf(sessionChunk("s-alice", "e1", "alice deploy secret", nil), pa.ID, ragd.ScopeSession)
			got, err := tc.s.Chunks(ctx, []string{secret})
			if err != nil {
				t.Fatal(err)
			}
			if (len(got) == 1) != tc.want["alice deploy secret"] {
				t.Errorf("Chunks(alice's secret) = %d chunks", len(got))
			}
		})
	}
	// Bob's reindex of his sessions leaves Alice's alone.
	res := replace(t, bob, pa.ID, ragd.ScopeSession)
	if res.Deleted != 1 {
		t.Fatalf("bob emptied his sessions: %+v, want 1 deleted", res)
	}
	left, err := alice.ScopeChunks(ctx, pa.ID, ragd.ScopeSession)
	if err != nil || len(left) != 2 {
		t.Fatalf("alice's session chunks after bob's reindex: %d, %v; want hers and carol's", len(left), err)
	}
}

// TestZeroVectorsNeverScoreNaN: a chunk whose embedding is all zeros
// (written by SQL, or by a provider that answered one) has no cosine
// distance; pgvector gives NaN, which once reached every answer's JSON
// (issue 35 item 1). The store leaves it out as a chunk without a vector.
func TestZeroVectorsNeverScoreNaN(t *testing.T) {
	s, _ := openTest(t, Options{})
	ctx := context.Background()
	p := addProject(t, s, "demo")
	replace(t, s, p.ID, ragd.ScopeDocs,
		doc("a.md", 0, "east", []float32{1, 0, 0, 0}),
		doc("b.md", 0, "zero", []float32{0, 1, 0, 0}),
		doc("c.md", 0, "north", []float32{0, 0, 1, 0}))
	zero := idOf(doc("b.md", 0, "zero", nil), p.ID, ragd.ScopeDocs)
	if _, err := s.pool.Exec(ctx, "UPDATE chunks SET embedding = '[0,0,0,0]' WHERE id = $1", zero); err != nil {
		t.Fatal(err)
	}
	sn, err := s.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, []float32{1, 0, 0, 0}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("candidates: %+v, want the 2 chunks with a usable vector", got)
	}
	for _, c := range got {
		if math.IsNaN(c.Distance) || c.ChunkID == zero {
			t.Errorf("candidate %+v: the zero vector's chunk, or a NaN distance", c)
		}
	}
	d, err := sn.VectorDistances(ctx, []float32{1, 0, 0, 0}, []string{zero})
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 0 {
		t.Errorf("distances of the zero vector's chunk: %v, want none", d)
	}
	// PGlite serves one session: the snapshot's transaction ends first.
	sn.Close()
	mean, n, err := s.RandomPairCosine(ctx, 10)
	if err != nil || math.IsNaN(mean) || n != 1 {
		t.Errorf("random pair cosine beside a zero vector: %v over %d pairs, %v; want a number over the 1 pair of usable vectors", mean, n, err)
	}
}

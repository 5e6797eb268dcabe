package store

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd"
)

// quantized opens a store whose searches use the codes at any size.
func quantized(t *testing.T, path string, dims int) *Store {
	t.Helper()
	s := mustOpenAt(t, path, dims)
	if s.VectorMode() != VectorsQuantized {
		t.Fatalf("default vector mode %s, want %s", s.VectorMode(), VectorsQuantized)
	}
	if err := s.WaitVectorIndex(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.quantizedMin = 0
	return s
}

func TestCodeOfBlobMatchesCodeOf(t *testing.T) {
	s := mustOpen(t, 100) // not a multiple of 64: the last word is padded
	r := rand.New(rand.NewSource(5))
	for range 50 {
		v := randomUnit(r, 100)
		v[r.Intn(100)] = 0 // zero is not positive
		blob, err := s.encodeVector(v)
		if err != nil {
			t.Fatal(err)
		}
		a, b := codeOf(v, 2), codeOfBlob(blob, 2)
		if a[0] != b[0] || a[1] != b[1] {
			t.Fatalf("codeOf %x, codeOfBlob %x", a, b)
		}
		if a[1]>>36 != 0 {
			t.Fatalf("padding bits set: %x", a[1])
		}
	}
}

// When the shortlist holds every chunk, the quantized search is the exact
// one: same chunks, same distances, same filters.
func TestQuantizedKNN_FullShortlistEqualsBruteForce(t *testing.T) {
	ctx := context.Background()
	const dims, n = 48, minShortlist // the shortlist's floor holds them all
	s := quantized(t, t.TempDir()+"/ragd.db", dims)
	p := mustProject(t, s, "p")
	other := mustProject(t, s, "other")
	r := rand.New(rand.NewSource(9))
	byContent := map[string]rec{}
	inputs := map[string][]ragd.ChunkInput{}
	for i := range n {
		scope := ragd.Scopes[i%2]
		content := fmt.Sprintf("chunk %d", i)
		v := randomUnit(r, dims)
		path := map[string]string{ragd.ScopeDocs: "docs/x.md", ragd.ScopeADR: "docs/adr/x.md"}[scope]
		inputs[scope] = append(inputs[scope], docChunk(path, i, content, v))
		byContent[content] = rec{scope, v}
	}
	for scope, in := range inputs {
		if _, err := s.ReplaceScope(ctx, p.ID, scope, in); err != nil {
			t.Fatal(err)
		}
	}
	var near []ragd.ChunkInput
	for i := range 50 {
		near = append(near, docChunk("docs/x.md", i, fmt.Sprintf("other %d", i), randomUnit(r, dims)))
	}
	if _, err := s.ReplaceScope(ctx, other.ID, ragd.ScopeDocs, near); err != nil {
		t.Fatal(err)
	}
	all, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeDocs)
	adr, _ := s.ScopeChunks(ctx, p.ID, ragd.ScopeADR)
	all = append(all, adr...)
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	for range 20 {
		q := randomUnit(r, dims)
		for _, scopes := range [][]string{nil, {ragd.ScopeADR}, {ragd.ScopeDocs, ragd.ScopeSession}} {
			want := bruteForce(all, byContent, q, scopes)
			got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID, Scopes: scopes}, q, 12)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 12 {
				t.Fatalf("scopes %v: %d candidates", scopes, len(got))
			}
			for i := range got {
				if got[i].ChunkID != want[i].id || math.Abs(got[i].Distance-want[i].dist) > 1e-4 {
					t.Fatalf("scopes %v rank %d: got %s %.6f, want %s %.6f", scopes, i, got[i].ChunkID, got[i].Distance, want[i].id, want[i].dist)
				}
			}
		}
	}
}

// clustered makes n unit vectors around centers random directions, as
// embeddings of texts on a few hundred topics are.
func clustered(r *rand.Rand, n, centers, dims int, spread float64) [][]float32 {
	cs := make([][]float32, centers)
	for i := range cs {
		cs[i] = randomUnit(r, dims)
	}
	out := make([][]float32, n)
	for i := range out {
		c, noise := cs[r.Intn(centers)], randomUnit(r, dims)
		v := make([]float32, dims)
		for j := range v {
			v[j] = c[j] + float32(spread)*noise[j]
		}
		out[i] = v
	}
	return out
}

// On clustered vectors the shortlist keeps recall@12 at the bar;
// TestKitQuantizedRecall measures it on real embeddings.
func TestQuantizedKNN_RecallOnClusteredVectors(t *testing.T) {
	ctx := context.Background()
	const dims, n, k = 256, 8000, 12
	s := quantized(t, t.TempDir()+"/ragd.db", dims)
	p := mustProject(t, s, "p")
	r := rand.New(rand.NewSource(3))
	// Queries from the same topics as the chunks: the last hundred.
	vecs := clustered(r, n+100, 400, dims, 0.5)
	queries := vecs[n:]
	var in []ragd.ChunkInput
	for i, v := range vecs[:n] {
		in = append(in, docChunk(fmt.Sprintf("docs/%03d.md", i/100), i, fmt.Sprintf("c%d", i), v))
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
		t.Fatal(err)
	}
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	var found, total int
	for _, q := range queries {
		s.quantizedMin = n + 1
		exact, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, q, k)
		if err != nil {
			t.Fatal(err)
		}
		s.quantizedMin = 0
		got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, q, k)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, c := range exact {
			want[c.ChunkID] = true
		}
		for _, c := range got {
			if want[c.ChunkID] {
				found++
			}
		}
		total += len(exact)
	}
	recall := float64(found) / float64(total)
	if recall < 0.95 {
		t.Errorf("recall@%d %.3f, want ≥ 0.95", k, recall)
	}
	t.Logf("recall@%d %.3f on %d clustered vectors", k, recall, n)
}

// The codes follow every write: replaced chunks vanish, new ones are found,
// a removed project's are gone, and a reopened store rebuilds the same
// codes from the stored vectors.
func TestQuantizedKNN_FollowsWrites(t *testing.T) {
	ctx := context.Background()
	const dims = 64
	path := t.TempDir() + "/ragd.db"
	s := quantized(t, path, dims)
	p, gone := mustProject(t, s, "p"), mustProject(t, s, "gone")
	r := rand.New(rand.NewSource(4))
	write := func(project int64, prefix string, n int) []ragd.ChunkInput {
		var in []ragd.ChunkInput
		for i := range n {
			in = append(in, docChunk("docs/x.md", i, fmt.Sprintf("%s %d", prefix, i), randomUnit(r, dims)))
		}
		if _, err := s.ReplaceScope(ctx, project, ragd.ScopeDocs, in); err != nil {
			t.Fatal(err)
		}
		return in
	}
	// nearest returns the content of the chunk nearest to v, and its distance.
	nearest := func(s *Store, project int64, v []float32) (string, float64) {
		sn, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer sn.Close()
		got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: project}, v, 1)
		if err != nil || len(got) != 1 {
			t.Fatalf("knn: %v %v", got, err)
		}
		cs, err := sn.Chunks(ctx, []string{got[0].ChunkID})
		if err != nil || len(cs) != 1 {
			t.Fatalf("chunk: %v", err)
		}
		return cs[0].Content, got[0].Distance
	}
	first := write(p.ID, "first", 300)
	write(gone.ID, "gone", 300)
	second := write(p.ID, "second", 300)
	for _, c := range first[:20] {
		if got, d := nearest(s, p.ID, c.Vector); got == c.Content || d < 1e-6 {
			t.Fatalf("replaced chunk %q still found (distance %g)", got, d)
		}
	}
	for _, c := range second[:20] {
		if got, d := nearest(s, p.ID, c.Vector); got != c.Content || d > 1e-6 {
			t.Fatalf("new chunk %q: nearest is %q at %g", c.Content, got, d)
		}
	}
	if _, err := s.RemoveProject(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if n := s.codes.perProject[gone.ID]; n != 0 || len(s.codes.slots) != len(second) {
		t.Fatalf("after removing a project: %d of its codes, %d codes in all, want 0 and %d", n, len(s.codes.slots), len(second))
	}
	s.Close()
	again := quantized(t, path, dims)
	if len(again.codes.slots) != len(second) {
		t.Fatalf("reopened: %d codes, want %d", len(again.codes.slots), len(second))
	}
	for _, c := range second[:20] {
		if got, d := nearest(again, p.ID, c.Vector); got != c.Content || d > 1e-6 {
			t.Fatalf("reopened: chunk %q: nearest is %q at %g", c.Content, got, d)
		}
	}
}

func TestParseVectorMode(t *testing.T) {
	for in, want := range map[string]VectorMode{"": VectorsQuantized, "exact": VectorsExact, "quantized": VectorsQuantized} {
		if got, err := ParseVectorMode(in); err != nil || got != want {
			t.Errorf("ParseVectorMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseVectorMode("hnsw"); err == nil {
		t.Error("ParseVectorMode(hnsw): no error")
	}
	if _, err := Open(context.Background(), t.TempDir()+"/x.db", Options{Space: "s/4", Dims: 4, Vectors: "fast"}); err == nil {
		t.Error("Open with an unknown vector mode: no error")
	}
}

// BenchmarkShortlist times the scan of the codes alone, at the sizes the
// scale table covers: the quantized KNN's cost that grows with the project.
func BenchmarkShortlist(b *testing.B) {
	const dims = 768
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dx%d", n, dims), func(b *testing.B) {
			x := newCodeIndex(dims)
			x.ready = true
			r := rand.New(rand.NewSource(1))
			for i := range n {
				code := make([]uint64, x.words)
				for j := range code {
					code[j] = r.Uint64()
				}
				x.put(codeOp{seq: int64(i + 1), project: 1, scope: uint8(i % 3), code: code})
			}
			q := make([]uint64, x.words)
			for j := range q {
				q[j] = r.Uint64()
			}
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := x.shortlist(1, 0b111, q, 12*shortlistFactor, x.gen); len(got) != 12*shortlistFactor {
					b.Fatalf("%d in the shortlist", len(got))
				}
			}
		})
	}
}

// Searches and writes run together on the codes: every answer is whole
// (k candidates, each a chunk of the searched snapshot), under the race
// detector in CI.
func TestQuantizedKNN_ConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	const dims, n, rounds = 32, 300, 10
	s := quantized(t, t.TempDir()+"/ragd.db", dims)
	p := mustProject(t, s, "p")
	r := rand.New(rand.NewSource(8))
	batch := func(round int) []ragd.ChunkInput {
		var in []ragd.ChunkInput
		for i := range n {
			in = append(in, docChunk("docs/x.md", i, fmt.Sprintf("r%d c%d", round, i), randomUnit(r, dims)))
		}
		return in
	}
	batches := make([][]ragd.ChunkInput, rounds)
	for i := range batches {
		batches[i] = batch(i)
	}
	queries := make([][]float32, 50)
	for i := range queries {
		queries[i] = randomUnit(r, dims)
	}
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, batches[0]); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for _, in := range batches[1:] {
			if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for _, q := range queries {
		sn, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, q, 12)
		if err != nil || len(got) != 12 {
			t.Fatalf("knn during writes: %d candidates, %v", len(got), err)
		}
		ids := make([]string, len(got))
		for i, c := range got {
			ids[i] = c.ChunkID
		}
		cs, err := sn.Chunks(ctx, ids)
		if err != nil || len(cs) != len(ids) {
			t.Fatalf("candidates not in their snapshot: %d of %d, %v", len(cs), len(ids), err)
		}
		sn.Close()
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A snapshot that began before a vector write keeps answering from its own
// state: the codes moved on, so it scans exactly.
func TestQuantizedKNN_SnapshotOlderThanCodes(t *testing.T) {
	ctx := context.Background()
	const dims, n = 32, 300
	s := quantized(t, t.TempDir()+"/ragd.db", dims)
	p := mustProject(t, s, "p")
	r := rand.New(rand.NewSource(6))
	write := func(prefix string) {
		var in []ragd.ChunkInput
		for i := range n {
			in = append(in, docChunk("docs/x.md", i, fmt.Sprintf("%s %d", prefix, i), randomUnit(r, dims)))
		}
		if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, in); err != nil {
			t.Fatal(err)
		}
	}
	write("old")
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	write("new") // replaces every chunk, so no code matches the snapshot
	got, err := sn.VectorCandidates(ctx, ragd.Filter{ProjectID: p.ID}, randomUnit(r, dims), 12)
	if err != nil || len(got) != 12 {
		t.Fatalf("old snapshot after a write: %d candidates, %v", len(got), err)
	}
	ids := make([]string, len(got))
	for i, c := range got {
		ids[i] = c.ChunkID
	}
	if cs, err := sn.Chunks(ctx, ids); err != nil || len(cs) != 12 || cs[0].Content[:3] != "old" {
		t.Fatalf("candidates not from the snapshot: %d chunks, %v", len(cs), err)
	}
}

// QuantizeFrom sets the project size from which the codes are searched,
// except for short vectors; a negative size is refused.
func TestOpen_QuantizeFrom(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		dims, from, want int
	}{
		{256, 0, quantizedMinVectors},
		{256, 1, 1},
		{512, 5000, 5000},
		{100, 1, math.MaxInt}, // short vectors: always exact
	} {
		s, err := Open(ctx, filepath.Join(t.TempDir(), "ragd.db"), Options{Space: fmt.Sprintf("test/%d", tc.dims), Dims: tc.dims, QuantizeFrom: tc.from})
		if err != nil {
			t.Fatal(err)
		}
		if s.quantizedMin != tc.want {
			t.Errorf("dims %d, from %d: codes from %d vectors, want %d", tc.dims, tc.from, s.quantizedMin, tc.want)
		}
		s.Close()
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "ragd.db"), Options{Space: "test/256", Dims: 256, QuantizeFrom: -1}); err == nil {
		t.Error("a negative QuantizeFrom was accepted")
	}
}

package search

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/ragd/ragd"
)

// The hand-made lists every fusion test starts from.
//
//	vector:  A d=0.2 (sim 0.8), B d=0.5 (sim 0.5), C d=0.9 (sim 0.1)
//	lexical: B s=3 (bm25 −3), D s=1, E s=0.25
func handLists() Candidates {
	return Candidates{
		Vector:  []ragd.VectorCandidate{{ChunkID: "A", Distance: 0.2}, {ChunkID: "B", Distance: 0.5}, {ChunkID: "C", Distance: 0.9}},
		Lexical: []ragd.LexicalCandidate{{ChunkID: "B", Score: 3}, {ChunkID: "D", Score: 1}, {ChunkID: "E", Score: 0.25}},
	}
}

// want is one expected fused candidate; nil scores mean absent.
type want struct {
	id               string
	score            float64
	vector, lexical  *float64
	vecRank, lexRank int
}

func checkFused(t *testing.T, got []Fused, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%d fused, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		if g.ChunkID != w.id || !near(g.Score, w.score) {
			t.Errorf("#%d: %s %.15f, want %s %.15f", i+1, g.ChunkID, g.Score, w.id, w.score)
		}
		if !samePtr(g.VectorScore, w.vector) || !samePtr(g.LexicalScore, w.lexical) {
			t.Errorf("#%d %s: vector %v lexical %v, want %v %v", i+1, g.ChunkID, show(g.VectorScore), show(g.LexicalScore), show(w.vector), show(w.lexical))
		}
		if g.VectorRank != w.vecRank || g.LexicalRank != w.lexRank {
			t.Errorf("#%d %s: ranks %d/%d, want %d/%d", i+1, g.ChunkID, g.VectorRank, g.LexicalRank, w.vecRank, w.lexRank)
		}
	}
}

func samePtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return near(*a, *b)
}

func show(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// withConfig changes the seed's configuration (SeedConfig), which the
// hand-made cases were written for.
func withConfig(mut func(*Config)) Config {
	c := SeedConfig()
	mut(&c)
	if err := c.Validate(); err != nil {
		panic(err)
	}
	return c
}

func TestFuse(t *testing.T) {
	f := ptr[float64]
	fill := handLists()
	fill.VectorFill = map[string]float64{"D": 0.3, "E": 0.6} // E: sim 0.4
	fill.LexicalFill = map[string]float64{"A": 1, "C": 0.5}  // C: s=0.5
	for _, tc := range []struct {
		name  string
		cands Candidates
		cfg   Config
		want  []want
	}{{
		// 0.6·sim + 0.4·s/(s+1); C (0.06) and E (0.08) fall under 0.2. D is a
		// keyword-only hit at s = 1 (bm25 −1) that scores exactly the threshold.
		name: "weighted saturate", cands: handLists(), cfg: SeedConfig(),
		want: []want{
			{"B", 0.6*0.5 + 0.4*0.75, f(0.5), f(0.75), 2, 1},
			{"A", 0.6 * 0.8, f(0.8), nil, 1, 0},
			{"D", 0.4 * 0.5, nil, f(0.5), 0, 2},
		},
	}, {
		name: "weighted saturate, no threshold", cands: handLists(), cfg: withConfig(func(c *Config) { c.Threshold = 0 }),
		want: []want{
			{"B", 0.6, f(0.5), f(0.75), 2, 1},
			{"A", 0.48, f(0.8), nil, 1, 0},
			{"D", 0.2, nil, f(0.5), 0, 2},
			{"E", 0.4 * 0.2, nil, f(0.2), 0, 3},
			{"C", 0.6 * 0.1, f(0.1), nil, 3, 0},
		},
	}, {
		// Lexical s over the best s (3).
		name: "weighted max", cands: handLists(), cfg: withConfig(func(c *Config) { c.Normalization = NormMax; c.Threshold = 0 }),
		want: []want{
			{"B", 0.6*0.5 + 0.4*1, f(0.5), f(1), 2, 1},
			{"A", 0.48, f(0.8), nil, 1, 0},
			{"D", 0.4 / 3, nil, f(1.0 / 3), 0, 2},
			{"C", 0.06, f(0.1), nil, 3, 0},
			{"E", 0.4 * 0.25 / 3, nil, f(0.25 / 3), 0, 3},
		},
	}, {
		// sims 0.8/0.5/0.1 → 1, 0.4/0.7, 0; s 3/1/0.25 → 1, 0.75/2.75, 0.
		name: "weighted minmax", cands: handLists(), cfg: withConfig(func(c *Config) { c.Normalization = NormMinMax; c.Threshold = 0 }),
		want: []want{
			{"B", 0.6*0.4/0.7 + 0.4, f(0.4 / 0.7), f(1), 2, 1},
			{"A", 0.6, f(1), nil, 1, 0},
			{"D", 0.4 * 0.75 / 2.75, nil, f(0.75 / 2.75), 0, 2},
			{"C", 0, f(0), nil, 3, 0},
			{"E", 0, nil, f(0), 0, 3},
		},
	}, {
		// A lone candidate per signal is that signal's best: 1, not 0/0.
		name: "minmax all equal",
		cands: Candidates{
			Vector:  []ragd.VectorCandidate{{ChunkID: "A", Distance: 0.7}, {ChunkID: "B", Distance: 0.7}},
			Lexical: []ragd.LexicalCandidate{{ChunkID: "D", Score: 0.01}},
		},
		cfg: withConfig(func(c *Config) { c.Normalization = NormMinMax }),
		want: []want{
			{"A", 0.6, f(1), nil, 1, 0},
			{"B", 0.6, f(1), nil, 2, 0},
			{"D", 0.4, nil, f(1), 0, 1},
		},
	}, {
		// Fill scores A lexically (s = 1 → 0.5), D on cosine (0.3 → 0.7), C
		// lexically (s = 0.5 → 1/3) and E on cosine (0.6 → 0.4); B was in both lists.
		name: "weighted fill", cands: fill, cfg: withConfig(func(c *Config) { c.Fill = true }),
		want: []want{
			{"A", 0.6*0.8 + 0.4*0.5, f(0.8), f(0.5), 1, 0},
			{"D", 0.6*0.7 + 0.4*0.5, f(0.7), f(0.5), 0, 2},
			{"B", 0.6, f(0.5), f(0.75), 2, 1},
			{"E", 0.6*0.4 + 0.4*0.2, f(0.4), f(0.2), 0, 3},
			// C, 0.6·0.1 + 0.4·(1/3) ≈ 0.193, stays under the threshold.
		},
	}, {
		// Without Fill the maps are ignored: the same answer as without them.
		name: "fill maps without Fill", cands: fill, cfg: SeedConfig(),
		want: []want{
			{"B", 0.6, f(0.5), f(0.75), 2, 1},
			{"A", 0.48, f(0.8), nil, 1, 0},
			{"D", 0.2, nil, f(0.5), 0, 2},
		},
	}, {
		// Filled values join the min-max range: sims 0.8 0.5 0.1 0.7 0.4.
		name: "minmax fill", cands: fill, cfg: withConfig(func(c *Config) { c.Fill = true; c.Normalization = NormMinMax; c.Threshold = 0 }),
		want: []want{
			{"B", 0.6*(0.4/0.7) + 0.4, f(0.4 / 0.7), f(1), 2, 1},
			{"A", 0.6*1 + 0.4*(0.75/2.75), f(1), f(0.75 / 2.75), 1, 0},
			{"D", 0.6*(0.6/0.7) + 0.4*(0.75/2.75), f(0.6 / 0.7), f(0.75 / 2.75), 0, 2},
			{"E", 0.6 * (0.3 / 0.7), f(0.3 / 0.7), f(0), 0, 3},
			{"C", 0.4 * (0.25 / 2.75), f(0), f(0.25 / 2.75), 3, 0},
		},
	}, {
		// Σ 1/(60+rank); no threshold. C and E tie at 1/63: chunk id order.
		name: "rrf", cands: handLists(), cfg: withConfig(func(c *Config) { c.Fusion = FusionRRF }),
		want: []want{
			{"B", 1.0/62 + 1.0/61, f(0.5), f(0.75), 2, 1},
			{"A", 1.0 / 61, f(0.8), nil, 1, 0},
			{"D", 1.0 / 62, nil, f(0.5), 0, 2},
			{"C", 1.0 / 63, f(0.1), nil, 3, 0},
			{"E", 1.0 / 63, nil, f(0.2), 0, 3},
		},
	}, {
		// Fill reports the filled scores but ranks, and so RRF, stay the
		// candidate lists'.
		name: "rrf fill", cands: fill, cfg: withConfig(func(c *Config) { c.Fusion = FusionRRF; c.Fill = true; c.RRFK = 0 }),
		want: []want{
			{"B", 1.0/2 + 1.0/1, f(0.5), f(0.75), 2, 1},
			{"A", 1, f(0.8), f(0.5), 1, 0},
			{"D", 1.0 / 2, f(0.7), f(0.5), 0, 2},
			{"C", 1.0 / 3, f(0.1), f(1.0 / 3), 3, 0},
			{"E", 1.0 / 3, f(0.4), f(0.2), 0, 3},
		},
	}, {
		// Degraded: no vector list. The lexical signal answers alone
		// (docs/adr/0007): weights 0/1, s over the query's best s, the
		// threshold on that. W (s 0.5 of the best 4: 0.125) is dropped.
		name:  "lexical only",
		cands: Candidates{Lexical: []ragd.LexicalCandidate{{ChunkID: "K", Score: 4}, {ChunkID: "W", Score: 0.5}}},
		cfg:   SeedConfig(),
		want:  []want{{"K", 1, nil, f(1), 0, 1}},
	}, {
		// A word in most chunks has an idf near FTS5's floor: bm25 near 0
		// for every match. Alone, the lexical half still answers what it
		// finds, by how close each comes to the best.
		name: "lexical only, common word",
		cands: Candidates{Lexical: []ragd.LexicalCandidate{
			{ChunkID: "A", Score: 1e-6}, {ChunkID: "B", Score: 0.9e-6}, {ChunkID: "C", Score: 0.1e-6}}},
		cfg:  SeedConfig(),
		want: []want{{"A", 1, nil, f(1), 0, 1}, {"B", 0.9, nil, f(0.9), 0, 2}},
	}, {
		// The configured normalisation does not apply to the lexical half
		// alone: minmax would drop the worst match whatever its score.
		name:  "lexical only, minmax configured",
		cands: Candidates{Lexical: []ragd.LexicalCandidate{{ChunkID: "K", Score: 4}, {ChunkID: "L", Score: 2}}},
		cfg:   withConfig(func(c *Config) { c.Normalization = NormMinMax }),
		want:  []want{{"K", 1, nil, f(1), 0, 1}, {"L", 0.5, nil, f(0.5), 0, 2}},
	}, {
		// RRF alone is unchanged: the lexical ranks, no threshold.
		name:  "rrf lexical only",
		cands: Candidates{Lexical: []ragd.LexicalCandidate{{ChunkID: "K", Score: 4}, {ChunkID: "W", Score: 0.5}}},
		cfg:   withConfig(func(c *Config) { c.Fusion = FusionRRF }),
		want:  []want{{"K", 1.0 / 61, nil, f(0.8), 0, 1}, {"W", 1.0 / 62, nil, f(0.5 / 1.5), 0, 2}},
	}, {
		name: "nothing", cands: Candidates{}, cfg: SeedConfig(), want: nil,
	}, {
		// The default: cosine read from the space's random pairs (baseline
		// 0.5) to the query's best (A, 0.8): sims 0.8/0.5/0.1 → 1, 0, 0;
		// filled D 0.7 → 2/3, E 0.4 → 0. s over the best s (3): B 1, D 1/3,
		// E 1/12, A (filled s 1) 1/3, C (filled 0.5) 1/6. C and E fall
		// under 0.2.
		name: "space fill", cands: withBaseline(fill, 0.5), cfg: DefaultConfig(),
		want: []want{
			{"A", 0.6 + 0.4/3, f(1), f(1.0 / 3), 1, 0},
			{"D", 0.6*2/3 + 0.4/3, f(2.0 / 3), f(1.0 / 3), 0, 2},
			{"B", 0.4, f(0), f(1), 2, 1},
		},
	}, {
		// With fill, a lexical candidate neither listed nor filled on the
		// vector signal has no vector yet (the background fill has not
		// reached it): it is scored by its lexical score alone, weights
		// summed, instead of losing the vector weight to chunks that have
		// one. D (s 1 of the best 3) scores 1/3, E (0.25) 1/12.
		name: "space fill, chunks without a vector", cands: withBaseline(handLists(), 0.5), cfg: withDefault(func(c *Config) { c.Threshold = 0 }),
		want: []want{
			{"A", 0.6, f(1), nil, 1, 0},
			{"B", 0.4, f(0), f(1), 2, 1},
			{"D", 1.0 / 3, nil, f(1.0 / 3), 0, 2},
			{"E", 0.25 / 3, nil, f(0.25 / 3), 0, 3},
			{"C", 0, f(0), nil, 3, 0},
		},
	}, {
		// An unmeasured space (baseline 0) reads cosine over the best: A
		// 0.8 → 1, B 0.5 → 0.625, C 0.1 → 0.125.
		name: "space, no baseline", cands: handLists(), cfg: withDefault(func(c *Config) { c.Fill = false; c.Threshold = 0 }),
		want: []want{
			{"B", 0.6*0.625 + 0.4, f(0.625), f(1), 2, 1},
			{"A", 0.6, f(1), nil, 1, 0},
			{"D", 0.4 / 3, nil, f(1.0 / 3), 0, 2},
			{"C", 0.6 * 0.125, f(0.125), nil, 3, 0},
			{"E", 0.4 * 0.25 / 3, nil, f(0.25 / 3), 0, 3},
		},
	}, {
		// chance: cosine read from the random pairs (0.5) to identity, the
		// query's best not stretched: A 0.8 → 0.6, B 0.5 → 0, C 0.1 → 0;
		// filled D 0.7 → 0.4, E 0.4 → 0. Lexical as space. A, 0.36 + 0.4/3,
		// and D, 0.24 + 0.4/3, pass 0.2; C and E do not.
		name: "chance fill", cands: withBaseline(fill, 0.5), cfg: withDefault(func(c *Config) { c.Normalization = NormChance }),
		want: []want{
			{"A", 0.6*0.6 + 0.4/3, f(0.6), f(1.0 / 3), 1, 0},
			{"B", 0.4, f(0), f(1), 2, 1},
			{"D", 0.6*0.4 + 0.4/3, f(0.4), f(1.0 / 3), 0, 2},
		},
	}, {
		// A question nothing answers: its nearest chunk sits just above
		// chance (0.55 over 0.5). space stretches it to 1, 0.6 alone,
		// above the threshold; chance reads it 0.1, 0.06 alone, under it.
		name:  "chance, an off-topic question",
		cands: withBaseline(Candidates{Vector: []ragd.VectorCandidate{{ChunkID: "N", Distance: 0.45}}}, 0.5),
		cfg:   withDefault(func(c *Config) { c.Normalization = NormChance }),
		want:  nil,
	}, {
		name:  "space, an off-topic question",
		cands: withBaseline(Candidates{Vector: []ragd.VectorCandidate{{ChunkID: "N", Distance: 0.45}}}, 0.5),
		cfg:   withDefault(func(c *Config) { c.Normalization = NormSpace }),
		want:  []want{{"N", 0.6, f(1), nil, 1, 0}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			checkFused(t, Fuse(tc.cands, tc.cfg), tc.want)
		})
	}
}

// withDefault changes the default configuration.
func withDefault(mut func(*Config)) Config {
	c := DefaultConfig()
	mut(&c)
	if err := c.Validate(); err != nil {
		panic(err)
	}
	return c
}

func withBaseline(c Candidates, b float64) Candidates {
	c.Baseline = b
	return c
}

func TestFuse_TiesAreDeterministic(t *testing.T) {
	// Equal scores in any input order come out by chunk id.
	lists := []ragd.VectorCandidate{{ChunkID: "z", Distance: 0.3}, {ChunkID: "a", Distance: 0.3}, {ChunkID: "m", Distance: 0.3}}
	r := rand.New(rand.NewSource(1))
	for range 20 {
		r.Shuffle(len(lists), func(i, j int) { lists[i], lists[j] = lists[j], lists[i] })
		got := Fuse(Candidates{Vector: lists}, DefaultConfig())
		if len(got) != 3 || got[0].ChunkID != "a" || got[1].ChunkID != "m" || got[2].ChunkID != "z" {
			t.Fatalf("tie order %v", got)
		}
	}
}

func TestFuse_DuplicateInListKeepsFirstRank(t *testing.T) {
	got := Fuse(Candidates{Vector: []ragd.VectorCandidate{{ChunkID: "A", Distance: 0.1}, {ChunkID: "A", Distance: 0.5}}}, DefaultConfig())
	if len(got) != 1 || got[0].VectorRank != 1 || !near(*got[0].Distance, 0.1) {
		t.Fatalf("%+v", got)
	}
}

func BenchmarkFuse(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	var c Candidates
	for i := range DefaultCandidates {
		c.Vector = append(c.Vector, ragd.VectorCandidate{ChunkID: fmt.Sprintf("v%02d", i), Distance: 0.2 + 0.05*float64(i)})
		// Half the lexical list overlaps the vector list.
		id := fmt.Sprintf("l%02d", i)
		if i%2 == 0 {
			id = fmt.Sprintf("v%02d", r.Intn(DefaultCandidates))
		}
		c.Lexical = append(c.Lexical, ragd.LexicalCandidate{ChunkID: id, Score: 10 - 0.7*float64(i)})
	}
	for _, cfg := range []Config{DefaultConfig(), withConfig(func(c *Config) { c.Fusion = FusionRRF }),
		withConfig(func(c *Config) { c.Normalization = NormMinMax })} {
		b.Run(fmt.Sprintf("%s_%s_12+12", cfg.Fusion, cfg.Normalization), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := Fuse(c, cfg); len(got) == 0 {
					b.Fatal("nothing fused")
				}
			}
		})
	}
}

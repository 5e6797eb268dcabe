package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/eval"
	"github.com/ragd/ragd/search"
)

// The sample reports are what a fortnight of use, an evaluation and a
// calibration of a small project look like: made up, with a fixed seed,
// shaped like real runs (the screenshots in docs/ show them).

func sampleRand() *rand.Rand { return rand.New(rand.NewPCG(13, 17)) }

// sampleMeasure is 14 days of searches: a calibration on day 8 changed
// the weights, the embedding server was down for most of day 4, nobody
// searched on day 11.
func sampleMeasure() *api.MeasureReport {
	rng := sampleRand()
	since := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	before, _ := json.Marshal(search.SeedConfig().Weights())
	after := search.SeedConfig()
	after.VectorWeight, after.LexicalWeight, after.Normalization, after.Fill = 0.7, 0.3, search.NormMinMax, true
	afterJSON, _ := json.Marshal(after.Weights())
	rep := &api.MeasureReport{Project: "ragd", Since: since, Until: since.Add(14 * 24 * time.Hour), K: 6, BucketDays: 1,
		Groups: []api.MeasureGroup{{Weights: before}, {Weights: afterJSON}}}
	var all []float64
	ranks := map[int]int{}
	for d := range 14 {
		b := api.MeasureBucket{Start: since.Add(time.Duration(d) * 24 * time.Hour), Precision: []api.GroupPrecision{}}
		b.End = b.Start.Add(24 * time.Hour)
		if d == 10 {
			rep.Series = append(rep.Series, b)
			continue
		}
		b.Searches = 25 + rng.IntN(40)
		b.Degraded = rng.IntN(3)
		if d == 3 {
			b.Degraded = b.Searches * 3 / 5
		}
		b.DegradedShare = f(float64(b.Degraded) / float64(b.Searches))
		b.ZeroHit = rng.IntN(4)
		var lat []float64
		for range b.Searches {
			lat = append(lat, 12+rng.ExpFloat64()*22)
		}
		slices.Sort(lat)
		all = append(all, lat...)
		b.LatencyP50Ms, b.LatencyP95Ms = f(lat[len(lat)/2]), f(lat[len(lat)*95/100])
		group, p := 0, 0.52
		if d >= 7 {
			group, p = 1, 0.7
		}
		judged := 3 + rng.IntN(12)
		if d == 5 || d == 12 {
			judged = 0
		}
		useful := 0
		for range judged {
			if rng.Float64() < p {
				useful++
			}
		}
		gp := api.GroupPrecision{Group: group, Judged: judged, Useful: useful}
		if judged > 0 {
			gp.PrecisionAtK = f(float64(useful) / float64(judged))
			gp.Low, gp.High = wilsonForSample(useful, judged)
		}
		b.Precision = append(b.Precision, gp)
		for range useful + rng.IntN(2) {
			ranks[1+int(math.Min(9, rng.ExpFloat64()*2.2))]++
		}
		rep.Series = append(rep.Series, b)
		st := &rep.Groups[group].MeasureStats
		st.Searches += b.Searches
		st.Degraded += b.Degraded
		st.ZeroHit += b.ZeroHit
		st.Judged += judged
		st.Useful += useful
		st.Votes += judged + rng.IntN(3)
	}
	for i := range rep.Groups {
		st := &rep.Groups[i].MeasureStats
		st.DegradedShare = f(float64(st.Degraded) / float64(st.Searches))
		st.ZeroHitShare = f(float64(st.ZeroHit) / float64(st.Searches))
		st.PrecisionAtK = f(float64(st.Useful) / float64(st.Judged))
		st.LatencyP50Ms, st.LatencyP95Ms = f(24.1+float64(i)), f(81.5+float64(i)*4)
		st.UsefulRanks = []api.RankCount{}
		t := &rep.Total
		t.Searches += st.Searches
		t.Degraded += st.Degraded
		t.ZeroHit += st.ZeroHit
		t.Judged += st.Judged
		t.Useful += st.Useful
		t.Votes += st.Votes
	}
	t := &rep.Total
	t.DegradedShare = f(float64(t.Degraded) / float64(t.Searches))
	t.ZeroHitShare = f(float64(t.ZeroHit) / float64(t.Searches))
	t.PrecisionAtK = f(float64(t.Useful) / float64(t.Judged))
	slices.Sort(all)
	t.LatencyP50Ms, t.LatencyP95Ms = f(all[len(all)/2]), f(all[len(all)*95/100])
	for rank := 1; rank <= 10; rank++ {
		if n := ranks[rank]; n > 0 {
			t.UsefulRanks = append(t.UsefulRanks, api.RankCount{Rank: rank, Count: n})
		}
	}
	queries := []string{"why did we pick sqlite-vec over pgvector", "ADR for the socket permissions", "how does fill work in weighted fusion",
		"reindex after a force push", "session where we fixed the tokenizer", "what is the chunk overlap", "ollama timeout on first embed",
		"کاربرد bm25 در جستجو", "calibrate holdout split", "where are the migrations"}
	for i := range 10 {
		rep.Slowest = append(rep.Slowest, api.SearchLine{ID: int64(900 - i*37), At: since.Add(time.Duration(rng.IntN(14*24)) * time.Hour),
			Query: queries[i], LatencyMs: 420 - float64(i*i)*3.1, Hits: rng.IntN(7), Degraded: i == 0 || i == 3, Group: i % 2})
	}
	rep.ZeroHitQueries = []api.ZeroHitQuery{
		{Query: "kubernetes helm chart", Count: 4, Last: since.Add(250 * time.Hour)},
		{Query: "שגיאת הרשאה בשקע", Count: 2, Last: since.Add(130 * time.Hour)},
		{Query: "ragd on windows", Count: 1, Last: since.Add(40 * time.Hour)},
	}
	return rep
}

// wilsonForSample is the 95% Wilson interval, as search computes it.
func wilsonForSample(n, d int) (*float64, *float64) {
	const z = 1.959963984540054
	p, nd := float64(n)/float64(d), float64(d)
	c := (p + z*z/(2*nd)) / (1 + z*z/nd)
	h := z / (1 + z*z/nd) * math.Sqrt(p*(1-p)/nd+z*z/(4*nd*nd))
	return f(max(0, c-h)), f(min(1, c+h))
}

// sampleEval is an evaluation of five modes over 120 judged queries.
func sampleEval() *eval.Report {
	rng := sampleRand()
	cfg := search.SeedConfig()
	modes := eval.StandardModes(cfg, 100)
	tuned := cfg
	tuned.VectorWeight, tuned.LexicalWeight, tuned.Normalization, tuned.Fill = 0.7, 0.3, search.NormMinMax, true
	modes = append(modes, eval.Mode{Name: "custom", Signals: eval.SignalsBoth, Config: tuned})
	const n = 120
	var rs []*eval.Retrieval
	results := make([]*eval.ModeResult, len(modes))
	for i, m := range modes {
		results[i] = &eval.ModeResult{Mode: m, Settings: m.Settings(), Scores: make([]eval.Scores, n)}
	}
	quality := []float64{0.42, 0.5, 0.6, 0.55, 0.6, 0.66}
	for q := range n {
		rs = append(rs, &eval.Retrieval{Query: &eval.Query{ID: fmt.Sprintf("q%03d", q), Text: sampleQuery(q)}})
		hard := rng.Float64()
		for i := range modes {
			v := math.Max(0, math.Min(1, quality[i]+(rng.Float64()-0.5)*0.9-(hard-0.5)*0.6))
			if hard > 0.93 {
				v = 0
			}
			if v < 0.08 {
				v = 0
			}
			r6 := math.Min(1, v*1.15)
			results[i].Scores[q] = eval.Scores{NDCG10: v, Recall6: math.Round(r6*3) / 3, Recall100: math.Min(1, v*1.4+0.1), MRR10: math.Min(1, v*1.05),
				NoHit: hard > 0.985 && i != 1}
		}
	}
	for _, r := range results {
		r.Queries = n
		r.Means = map[string]float64{}
		for _, m := range eval.Metrics {
			var sum float64
			for _, s := range r.Scores {
				sum += s.Get(m)
			}
			r.Means[m] = sum / n
		}
		for _, s := range r.Scores {
			if s.NoHit {
				r.NoHitQueries++
			}
		}
		r.NoHit = float64(r.NoHitQueries) / n
	}
	bs := eval.DefaultBootstrap()
	bs.Resamples = 500
	rep := &eval.Report{Dataset: "golden.jsonl on project ragd", Space: "nomic-embed-text/768", Depth: 100, Bootstrap: bs,
		Counts: eval.Counts{Judged: n, Relevant: 2 * n}, Modes: results, Warnings: []string{},
		Timings: eval.Timings{Total: 9 * time.Second, QueryEmbed: 2 * time.Second, Retrieve: 5 * time.Second, Replay: time.Second}}
	rep.Comparisons = eval.CompareModes(results, "lexical", eval.Metrics, bs)
	rep.Detail(rs)
	return rep
}

func sampleQuery(i int) string {
	topics := []string{"socket permissions", "fusion weights", "chunk overlap", "migrations", "ollama timeouts", "tokenizer fix",
		"reindex on force push", "telemetry votes", "holdout split", "ADR numbering"}
	forms := []string{"why %s", "how do we handle %s", "where is %s decided", "%s session"}
	return fmt.Sprintf(forms[i%len(forms)], topics[(i/len(forms))%len(topics)])
}

// sampleCalibrate is a calibration over the default grid, its surface a
// smooth ridge around α 0.7 with some noise, held out 25%.
func sampleCalibrate() *eval.Report {
	rng := sampleRand()
	rep := sampleEval()
	rep.Modes, rep.Comparisons, rep.Queries = nil, nil, nil
	g := eval.DefaultGrid()
	cal := &eval.Calibration{Objective: eval.NDCG10, Holdout: 0.25, Train: 90, HeldOut: 30, Tried: 1072, Elapsed: 3 * time.Second}
	best := eval.Cell{Train: -1}
	for _, depth := range g.Depths {
		for _, fill := range g.Fills {
			for ni, norm := range g.Normalizations {
				for _, a := range g.Alphas {
					v := 0.48 + 0.16*math.Exp(-math.Pow((a-0.68)/0.28, 2)) - 0.02*float64(ni) + 0.015*math.Log2(float64(depth)/12)
					if fill {
						v += 0.012
					}
					train := v + (rng.Float64()-0.5)*0.012
					held := v - 0.02 + (rng.Float64()-0.5)*0.05
					c := eval.Cell{Depth: depth, Fill: fill, Normalization: norm, VectorWeight: a, Threshold: float64(rng.IntN(3)) / 10, Train: train, HeldOut: f(held)}
					cal.Surface = append(cal.Surface, c)
					if train > best.Train {
						best = c
					}
				}
			}
		}
	}
	current := search.SeedConfig()
	bestCfg := current
	bestCfg.VectorWeight, bestCfg.LexicalWeight, bestCfg.Threshold = best.VectorWeight, math.Round((1-best.VectorWeight)*10)/10, best.Threshold
	bestCfg.Normalization, bestCfg.Fill, bestCfg.Candidates = best.Normalization, best.Fill, best.Depth
	evaluated := func(m eval.Mode, train, held float64) *eval.Evaluated {
		res := func(v float64) *eval.ModeResult {
			return &eval.ModeResult{Mode: m, Settings: m.Settings(), Means: map[string]float64{
				eval.NDCG10: v, eval.Recall6: v * 1.1, eval.Recall100: math.Min(1, v*1.5), eval.MRR10: v * 1.02}}
		}
		return &eval.Evaluated{Mode: m, Settings: m.Settings(), Train: res(train), HeldOut: res(held)}
	}
	cal.Best = evaluated(eval.Mode{Name: "best", Signals: eval.SignalsBoth, Config: bestCfg}, best.Train, *best.HeldOut)
	cal.Current = evaluated(eval.Mode{Name: "current", Signals: eval.SignalsBoth, Config: current}, 0.58, 0.56)
	cal.Lexical = evaluated(eval.LexicalMode(100), 0.43, 0.41)
	for _, part := range []string{"train", "held-out"} {
		w := 1.0
		if part == "held-out" {
			w = 2.2
		}
		for _, c := range []struct {
			a, b string
			mean float64
		}{{"best", "current", 0.062}, {"best", "lexical", 0.21}, {"current", "lexical", 0.15}} {
			iv := eval.Interval{Mean: c.mean - 0.01*w, Low: c.mean - 0.01*w - 0.03*w, High: c.mean - 0.01*w + 0.03*w}
			cal.Comparisons = append(cal.Comparisons, eval.Comparison{A: c.a, B: c.b, Metric: eval.NDCG10, Part: part, Interval: iv, Verdict: c.a + " better"})
		}
	}
	ranked := slices.Clone(cal.Surface)
	slices.SortFunc(ranked, func(a, b eval.Cell) int { return cmp.Compare(b.Train, a.Train) })
	for i, c := range ranked[:10] {
		cfg := current
		cfg.VectorWeight, cfg.LexicalWeight, cfg.Threshold = c.VectorWeight, math.Round((1-c.VectorWeight)*10)/10, c.Threshold
		cfg.Normalization, cfg.Fill, cfg.Candidates = c.Normalization, c.Fill, c.Depth
		cal.Top = append(cal.Top, eval.Tried{Settings: cfg.Weights().String(), Config: cfg, Train: c.Train, Tied: i % 3 / 2})
	}
	rep.Calibration = cal
	return rep
}

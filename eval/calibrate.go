package eval

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"time"

	"github.com/ragd/ragd/search"
)

// Grid is the space of fusion settings calibration searches.
type Grid struct {
	// Alphas are vector weights of weighted fusion; the lexical weight is
	// 1 − α.
	Alphas         []float64              `json:"alphas"`
	Thresholds     []float64              `json:"thresholds"`
	Normalizations []search.Normalization `json:"normalizations"`
	Fills          []bool                 `json:"fills"`
	// RRFKs are the k of reciprocal rank fusion (RRF ignores weights,
	// threshold, normalisation and fill).
	RRFKs []int `json:"rrfKs"`
	// Depths are candidates per signal, for both fusions.
	Depths []int `json:"depths"`
}

// DefaultGrid is α 0, 0.1, …, 1; threshold 0, 0.1, 0.2, 0.3; the three
// normalisations; fill off and on; RRF k 10, 30, 60, 100; depth 12, 25, 50,
// 100: 1056 weighted and 16 RRF settings.
func DefaultGrid() Grid {
	g := Grid{
		Thresholds:     []float64{0, 0.1, 0.2, 0.3},
		Normalizations: slices.Clone(search.Normalizations),
		Fills:          []bool{false, true},
		RRFKs:          []int{10, 30, 60, 100},
		Depths:         []int{12, 25, 50, 100},
	}
	for i := 0; i <= 10; i++ {
		g.Alphas = append(g.Alphas, float64(i)/10)
	}
	return g
}

// MaxDepth is the deepest candidate list the grid replays.
func (g Grid) MaxDepth() int {
	d := 0
	for _, x := range g.Depths {
		d = max(d, x)
	}
	return d
}

// Configs lists the grid's settings, each valid. RRF settings keep base's
// weights, threshold and normalisation (which RRF ignores) and fill off.
func (g Grid) Configs(base search.Config) []search.Config {
	var out []search.Config
	for _, depth := range g.Depths {
		for _, fill := range g.Fills {
			for _, norm := range g.Normalizations {
				for _, a := range g.Alphas {
					for _, t := range g.Thresholds {
						c := search.Config{Fusion: search.FusionWeighted, VectorWeight: a, LexicalWeight: round(1 - a),
							Threshold: t, RRFK: base.RRFK, Candidates: depth, Normalization: norm, Fill: fill}
						if c.Validate() == nil {
							out = append(out, c)
						}
					}
				}
			}
		}
		for _, k := range g.RRFKs {
			c := base
			c.Fusion, c.RRFK, c.Candidates, c.Fill = search.FusionRRF, k, depth, false
			if c.Validate() == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// round removes float noise from 1 − α (0.7 rather than 0.7000000000000001).
func round(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// Split divides retrievals deterministically by query id: a query is held
// out when the FNV-1a hash of its id falls in the first holdout share of
// the hash space. The same ids always fall on the same side.
func Split(rs []*Retrieval, holdout float64) (train, held []*Retrieval) {
	for _, r := range rs {
		if HeldOut(r.Query.ID, holdout) {
			held = append(held, r)
		} else {
			train = append(train, r)
		}
	}
	return train, held
}

// HeldOut reports whether the query id falls in the held-out share.
func HeldOut(id string, holdout float64) bool {
	if holdout <= 0 {
		return false
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return float64(h.Sum64()%1_000_000) < holdout*1_000_000
}

// CalibrateOptions configure Calibrate.
type CalibrateOptions struct {
	Grid Grid
	// Metric is the objective. Optional: NDCG10.
	Metric string
	// Holdout is the share of queries held out of the search, 0..0.9.
	Holdout float64
	// Current is the configuration in use, compared with the best.
	Current   search.Config
	Bootstrap Bootstrap
	Workers   int
	// Top is how many of the best settings to list. Optional: 10.
	Top int
}

// Calibration is the outcome of Calibrate. Nothing is applied.
type Calibration struct {
	Objective string  `json:"objective"`
	Holdout   float64 `json:"holdout"`
	// Train and HeldOut count the queries of each part.
	Train   int `json:"trainQueries"`
	HeldOut int `json:"heldOutQueries"`
	// Tried is the number of settings replayed.
	Tried   int           `json:"settingsTried"`
	Elapsed time.Duration `json:"-"`
	// Best maximises the objective on the training part; Current is the
	// configuration in use; Lexical ranks the bm25 list alone.
	Best    *Evaluated `json:"best"`
	Current *Evaluated `json:"current"`
	Lexical *Evaluated `json:"lexical"`
	// Top lists the best settings on the training part, best first: one
	// per objective value, the first in grid order, with the number of
	// others tied with it.
	Top []Tried `json:"top"`
	// Comparisons: best − current, best − lexical and current − lexical on
	// the objective, on each part.
	Comparisons []Comparison `json:"comparisons"`
	// Surface is the objective over the weighted part of the grid, one
	// cell per depth, fill, normalisation and vector weight, in grid order.
	Surface []Cell `json:"surface"`
}

// Cell is the weighted setting of one depth, fill, normalisation and vector
// weight whose threshold scores best on the training part (the first in
// grid order on a tie), and its objective on each part: the held-out part
// judges a choice made without it.
type Cell struct {
	Depth         int                  `json:"depth"`
	Fill          bool                 `json:"fill"`
	Normalization search.Normalization `json:"normalization"`
	VectorWeight  float64              `json:"vectorWeight"`
	Threshold     float64              `json:"threshold"`
	Train         float64              `json:"train"`
	// HeldOut is nil without a holdout.
	HeldOut *float64 `json:"heldOut,omitempty"`
}

// Tried is one setting and its objective on the training part.
type Tried struct {
	Settings string        `json:"settings"`
	Config   search.Config `json:"config"`
	Train    float64       `json:"train"`
	// Tied counts the other settings with the same objective.
	Tied int `json:"tied"`
}

// Evaluated is one mode's metrics on each part.
type Evaluated struct {
	Mode
	Settings string      `json:"settings"`
	Train    *ModeResult `json:"train"`
	// HeldOut is nil without a holdout.
	HeldOut *ModeResult `json:"heldOut,omitempty"`
}

// Calibrate replays every setting of opt.Grid over the training part of
// rs (retrieved at the grid's maximum depth, with fill), picks the one
// with the best mean objective, and evaluates it, the current settings and
// lexical-only on both parts with paired bootstrap intervals. Among
// settings tied with the best, the current settings win, then the one
// changing the fewest of them, then the first in grid order.
func Calibrate(rs []*Retrieval, opt CalibrateOptions) (*Calibration, error) {
	start := time.Now()
	if opt.Metric == "" {
		opt.Metric = NDCG10
	}
	if !ValidMetric(opt.Metric) {
		return nil, fmt.Errorf("calibrate: unknown metric %q", opt.Metric)
	}
	if opt.Holdout < 0 || opt.Holdout > 0.9 || math.IsNaN(opt.Holdout) {
		return nil, fmt.Errorf("calibrate: holdout %v: want 0..0.9", opt.Holdout)
	}
	if opt.Top <= 0 {
		opt.Top = 10
	}
	if err := opt.Current.Validate(); err != nil {
		return nil, fmt.Errorf("calibrate: current settings: %w", err)
	}
	train, held := Split(rs, opt.Holdout)
	if len(train) == 0 {
		return nil, errors.New("calibrate: no judged query in the training part")
	}
	configs := opt.Grid.Configs(opt.Current)
	if len(configs) == 0 {
		return nil, errors.New("calibrate: the grid holds no valid setting")
	}
	cal := &Calibration{Objective: opt.Metric, Holdout: opt.Holdout, Train: len(train), HeldOut: len(held), Tried: len(configs)}

	objective := make([]float64, len(configs))
	parallel(len(configs), opt.Workers, func(i int) {
		m := Mode{Signals: SignalsBoth, Config: configs[i]}
		var sum float64
		for _, r := range train {
			sum += r.Score(m).Get(opt.Metric)
		}
		objective[i] = sum / float64(len(train))
	})
	order := make([]int, len(configs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(objective[b], objective[a]) })
	for _, i := range order {
		if n := len(cal.Top); n > 0 && objective[i] == cal.Top[n-1].Train {
			cal.Top[n-1].Tied++
			continue
		}
		if len(cal.Top) == opt.Top {
			break
		}
		cal.Top = append(cal.Top, Tried{Settings: configs[i].Weights().String(), Config: configs[i], Train: objective[i]})
	}

	// Among settings tied with the best, take the one closest to the
	// current settings: change nothing that measures no better.
	current := Mode{Name: "current", Signals: SignalsBoth, Config: opt.Current}
	var sum float64
	for _, r := range train {
		sum += r.Score(current).Get(opt.Metric)
	}
	top := objective[order[0]]
	bestConfig := opt.Current
	if sum/float64(len(train)) < top {
		bestConfig = configs[order[0]]
		for _, i := range order {
			if objective[i] < top {
				break
			}
			if changes(configs[i], opt.Current) < changes(bestConfig, opt.Current) {
				bestConfig = configs[i]
			}
		}
	}
	best := Mode{Name: "best", Signals: SignalsBoth, Config: bestConfig}
	lexical := LexicalMode(opt.Grid.MaxDepth())
	var parts []string
	results := map[string][]*ModeResult{}
	for _, part := range []struct {
		name string
		rs   []*Retrieval
	}{{"train", train}, {"held-out", held}} {
		if len(part.rs) == 0 {
			continue
		}
		parts = append(parts, part.name)
		results[part.name] = Evaluate(part.rs, []Mode{best, current, lexical}, opt.Workers)
	}
	evaluated := func(i int) *Evaluated {
		ev := &Evaluated{Mode: results["train"][i].Mode, Settings: results["train"][i].Settings, Train: results["train"][i]}
		if r, ok := results["held-out"]; ok {
			ev.HeldOut = r[i]
		}
		return ev
	}
	cal.Best, cal.Current, cal.Lexical = evaluated(0), evaluated(1), evaluated(2)
	for _, part := range parts {
		r := results[part]
		for _, pair := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
			c := Compare(r[pair[0]], r[pair[1]], opt.Metric, opt.Bootstrap)
			c.Part = part
			cal.Comparisons = append(cal.Comparisons, c)
		}
	}
	cal.Surface = surface(configs, objective, held, opt)
	cal.Elapsed = time.Since(start)
	return cal, nil
}

// surface keeps, for each depth, fill, normalisation and vector weight of
// the weighted settings, the threshold best on the training part, and
// scores it on the held-out part.
func surface(configs []search.Config, objective []float64, held []*Retrieval, opt CalibrateOptions) []Cell {
	type key struct {
		depth int
		fill  bool
		norm  search.Normalization
		alpha float64
	}
	var out []Cell
	at := map[key]int{}
	chosen := []search.Config{}
	for i, c := range configs {
		if c.Fusion != search.FusionWeighted {
			continue
		}
		k := key{c.Candidates, c.Fill, c.Normalization, c.VectorWeight}
		j, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, Cell{Depth: c.Candidates, Fill: c.Fill, Normalization: c.Normalization,
				VectorWeight: c.VectorWeight, Threshold: c.Threshold, Train: objective[i]})
			chosen = append(chosen, c)
			continue
		}
		if objective[i] > out[j].Train {
			out[j].Threshold, out[j].Train, chosen[j] = c.Threshold, objective[i], c
		}
	}
	if len(held) > 0 {
		parallel(len(out), opt.Workers, func(i int) {
			m := Mode{Signals: SignalsBoth, Config: chosen[i]}
			var sum float64
			for _, r := range held {
				sum += r.Score(m).Get(opt.Metric)
			}
			v := sum / float64(len(held))
			out[i].HeldOut = &v
		})
	}
	return out
}

// changes counts the settings of c that differ from current (weights count
// once).
func changes(c, current search.Config) int {
	n := 0
	for _, differs := range []bool{
		c.Fusion != current.Fusion,
		c.Fusion == search.FusionWeighted && (c.VectorWeight != current.VectorWeight || c.LexicalWeight != current.LexicalWeight),
		c.Fusion == search.FusionWeighted && c.Threshold != current.Threshold,
		c.Fusion == search.FusionWeighted && c.Normalization != current.Normalization,
		c.Fusion == search.FusionWeighted && c.Fill != current.Fill,
		c.Fusion == search.FusionRRF && c.RRFK != current.RRFK,
		c.Candidates != current.Candidates,
	} {
		if differs {
			n++
		}
	}
	return n
}

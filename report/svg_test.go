package report

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestLinear(t *testing.T) {
	y := Linear{0, 10, 200, 0} // a y axis: up is smaller pixels
	for _, tc := range []struct{ v, want float64 }{{0, 200}, {10, 0}, {5, 100}, {-5, 300}} {
		if got := y.Map(tc.v); got != tc.want {
			t.Errorf("Map(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got := (Linear{3, 3, 0, 100}).Map(3); got != 50 {
		t.Errorf("degenerate domain maps to %v, want the middle 50", got)
	}
	if got := y.Map(math.NaN()); !math.IsNaN(got) {
		t.Errorf("NaN maps to %v", got)
	}
}

func TestExtent(t *testing.T) {
	if _, _, ok := Extent(); ok {
		t.Error("extent of nothing")
	}
	if _, _, ok := Extent(math.NaN(), math.Inf(1)); ok {
		t.Error("extent of NaN and Inf")
	}
	if lo, hi, ok := Extent(math.NaN(), 3, -1, math.Inf(-1), 2); !ok || lo != -1 || hi != 3 {
		t.Errorf("extent %v %v %v", lo, hi, ok)
	}
	if lo, hi, ok := Extent(4); !ok || lo != 4 || hi != 4 {
		t.Errorf("one point: %v %v %v", lo, hi, ok)
	}
}

func TestNiceDomain(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lo, hi   float64
		zero     bool
		wlo, whi float64
	}{
		{"empty window", 0, 0, true, 0, 1},
		{"NaN", math.NaN(), 3, true, 0, 1},
		{"infinite", 0, math.Inf(1), true, 0, 1},
		{"one value from zero", 5, 5, true, 0, 5},
		{"one value", 5, 5, false, 2, 8},
		{"one negative value", -4, -4, true, -4, 0},
		{"zero alone", 0, 0, false, 0, 1},
		{"counts", 0, 37, true, 0, 40},
		{"latency", 12.5, 93.1, true, 0, 100},
		{"differences", -0.13, 0.21, false, -0.15, 0.25},
		{"all equal scores", 0.6, 0.6, false, 0.3, 0.9},
	} {
		lo, hi := NiceDomain(tc.lo, tc.hi, 5, tc.zero)
		if math.Abs(lo-tc.wlo) > 1e-9 || math.Abs(hi-tc.whi) > 1e-9 {
			t.Errorf("%s: NiceDomain(%v, %v) = [%v, %v], want [%v, %v]", tc.name, tc.lo, tc.hi, lo, hi, tc.wlo, tc.whi)
		}
		if !(hi > lo) {
			t.Errorf("%s: empty domain [%v, %v]", tc.name, lo, hi)
		}
	}
}

func TestTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 1, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}}, // one number of decimals along an axis
		{0, 40, []string{"0", "10", "20", "30", "40"}},
		{-0.15, 0.25, []string{"-0.1", "0.0", "0.1", "0.2"}},
		{0, 0.05, []string{"0.00", "0.01", "0.02", "0.03", "0.04", "0.05"}},
		{0, 1200, []string{"0", "200", "400", "600", "800", "1000", "1200"}},
	} {
		step := TickStep(tc.lo, tc.hi, 5)
		var got []string
		for _, v := range Ticks(tc.lo, tc.hi, 5) {
			got = append(got, Tick(v, step))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ticks of [%v, %v]: %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
	if got := Ticks(1, 0, 5); got != nil {
		t.Errorf("reversed domain: %v", got)
	}
	if got := Ticks(math.NaN(), 1, 5); got != nil {
		t.Errorf("NaN domain: %v", got)
	}
	if got := Ticks(2, 2, 5); len(got) != 1 || got[0] != 2 {
		t.Errorf("one-value domain: %v", got)
	}
	if s := TickStep(0, 0, 5); s != 1 {
		t.Errorf("step of an empty span %v", s)
	}
}

func TestBand(t *testing.T) {
	b := Band{N: 4, R0: 100, R1: 500, Pad: 0.2}
	if b.Width() != 80 || b.Start(0) != 110 || b.Centre(0) != 150 || b.Start(3) != 410 {
		t.Errorf("bands: width %v, starts %v %v", b.Width(), b.Start(0), b.Start(3))
	}
	one := Band{N: 1, R0: 0, R1: 100}
	if one.Width() != 100 || one.Centre(0) != 50 {
		t.Errorf("one band: %v %v", one.Width(), one.Centre(0))
	}
	if none := (Band{R0: 10, R1: 20}); none.Width() != 0 || none.Start(0) != 10 {
		t.Errorf("no band: %v %v", none.Width(), none.Start(0))
	}
}

func TestPathBreaksAtNoData(t *testing.T) {
	for _, tc := range []struct {
		name string
		pts  []Point
		want string
	}{
		{"gap", []Point{{0, 0}, {1, math.NaN()}, {2, 2}, {3, 3.25}}, `d="M0 0 M2 2 L3 3.3"`},
		{"one point", []Point{{5, 6}}, `d="M5 6"`},
		{"no data", []Point{{0, math.NaN()}, {1, math.NaN()}}, ""},
		{"nothing", nil, ""},
	} {
		c := newSVG("t", 10, 10, 0, 0, 0, 0, "t")
		c.path(tc.pts, "ln")
		got := string(c.HTML())
		if tc.want == "" && strings.Contains(got, "<path") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s, want %q", tc.name, got, tc.want)
		}
	}
}

func TestViridis(t *testing.T) {
	for _, tc := range []struct {
		t    float64
		want string
		dark bool
	}{{0, "#440154", false}, {1, "#fde725", true}, {-3, "#440154", false}, {7, "#fde725", true}, {math.NaN(), "#440154", false}} {
		got, dark := Viridis(tc.t)
		if got != tc.want || dark != tc.dark {
			t.Errorf("Viridis(%v) = %s dark text %v, want %s %v", tc.t, got, dark, tc.want, tc.dark)
		}
	}
	mid, _ := Viridis(0.5)
	if mid != "#26828e" {
		t.Errorf("Viridis(0.5) = %s", mid)
	}
}

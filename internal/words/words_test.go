package words

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"search", "search", 0},
		{"serach", "search", 2}, {"reindx", "reindex", 1}, {"kitten", "sitting", 3}, {"ёж", "еж", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	known := []string{"serve", "add", "search", "reindex", "remove", "mcp", "doctor"}
	for _, tc := range []struct{ w, want string }{
		{"serach", "search"}, {"reindx", "reindex"}, {"docter", "doctor"}, {"ad", "add"},
		{"search", "search"}, {"bogus", ""}, {"xyz", ""}, {"", ""}, {"mcpx", "mcp"},
	} {
		if got := Nearest(tc.w, known, 3); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.w, got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{{0, "hit", "0 hits"}, {1, "hit", "1 hit"}, {2, "hit", "2 hits"}, {1, "new event", "1 new event"}, {-1, "chunk", "-1 chunks"}} {
		if got := Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}

package source

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/gittest"
)

// Issue 35 item 19: a declared folder outside the repository (mkdocs'
// docs_dir: /etc, an .adr-dir of ../..) is named in a note, not ignored
// in silence.
func TestDeclaredOutsideTheRepository(t *testing.T) {
	r := gittest.New(t)
	r.Commit(t, "docs", map[string]string{
		"mkdocs.yml":        "site_name: x\ndocs_dir: /etc\n",
		"svc/.adr-dir":      "../..\n",
		"docs/guide.md":     "# Guide",
		"svc/docs/adr/a.md": adrText,
	})
	for _, m := range modes {
		tree := readDocs(t, r.Dir, m.opt)
		for _, want := range []string{
			"mkdocs.yml names /etc, outside the repository: not used",
			"svc/.adr-dir names ../.., outside the repository: not used",
		} {
			if !slices.Contains(tree.Notes, want) {
				t.Errorf("%s: notes %q, want %q", m.name, tree.Notes, want)
			}
		}
	}
}

// Issue 35 item 19: include and exclude patterns that leave the
// repository are refused, as an ADR folder of ../.. is; an include that
// matches no prose file is named in a note.
func TestLayoutPatternsOutsideTheRepository(t *testing.T) {
	for _, l := range []ragd.Layout{
		{Include: []string{"../**"}},
		{Include: []string{"docs/../../x/**"}},
		{Exclude: []string{"../secret/*.md"}},
	} {
		err := ValidateLayout(l)
		var le *LayoutError
		if !errors.As(err, &le) || !strings.Contains(le.Problem, "outside the repository") {
			t.Errorf("ValidateLayout(%+v) = %v, want refused: outside the repository", l, err)
		}
	}
	if err := ValidateLayout(ragd.Layout{Include: []string{"/docs/**", "testdata/**"}}); err != nil {
		t.Errorf("root-anchored and plain patterns refused: %v", err)
	}
	r := gittest.New(t)
	r.Commit(t, "docs", map[string]string{"docs/guide.md": "# Guide", "testdata/x.md": "# X"})
	for _, m := range modes {
		opt := m.opt
		opt.Layout = ragd.Layout{Include: []string{"/etc/**", "testdata/**"}}
		tree := readDocs(t, r.Dir, opt)
		want := `include "/etc/**" matches no prose file in the repository (patterns are paths inside it; a leading / is its root)`
		if !slices.Contains(tree.Notes, want) {
			t.Errorf("%s: notes %q, want %q", m.name, tree.Notes, want)
		}
		for _, n := range tree.Notes {
			if strings.Contains(n, "testdata/**") {
				t.Errorf("%s: note on an include that matches: %q", m.name, n)
			}
		}
	}
}

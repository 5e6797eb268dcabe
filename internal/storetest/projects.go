package storetest

import (
	"errors"
	"testing"

	"github.com/ragd/ragd"
)

var projectTests = []subtest{
	{"add, find, list, settings", testProjects},
	{"duplicates refused", testProjectDuplicates},
}

// testProjects: a project is found by name and by path, listed by name,
// and keeps its settings.
func testProjects(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	if ps, err := s.Projects(ctx); err != nil || len(ps) != 0 {
		t.Errorf("projects of an empty store: %v, %v", ps, err)
	}
	zeta, alpha := e.project("zeta"), e.project("alpha")
	if zeta.ID == 0 || alpha.ID == 0 || zeta.ID == alpha.ID || zeta.Name != "zeta" || zeta.Path != "/repos/zeta" ||
		zeta.CreatedAt.IsZero() || zeta.AutoReindex || !zeta.Layout.IsZero() {
		t.Errorf("added: %+v and %+v", zeta, alpha)
	}
	for _, key := range []string{"zeta", "/repos/zeta"} {
		if p, err := s.Project(ctx, key); err != nil || p.ID != zeta.ID || p.Name != "zeta" || p.Path != "/repos/zeta" {
			t.Errorf("project %q: %+v, %v", key, p, err)
		}
	}
	ps, err := s.Projects(ctx)
	if err != nil || len(ps) != 2 || ps[0].Name != "alpha" || ps[1].Name != "zeta" {
		t.Errorf("projects: %+v, %v; want alpha, zeta", ps, err)
	}

	if err := s.SetAutoReindex(ctx, zeta.ID, true); err != nil {
		t.Fatal(err)
	}
	layout := ragd.Layout{Include: []string{"notes/**"}, Exclude: []string{"docs/old"}, ADRDirs: []string{"decisions"},
		NoPackageReadmes: true, NoRootFiles: true}
	if err := s.SetLayout(ctx, zeta.ID, layout); err != nil {
		t.Fatal(err)
	}
	p, err := s.Project(ctx, "zeta")
	if err != nil || !p.AutoReindex || !p.Layout.Equal(layout) {
		t.Errorf("zeta after its settings: %+v, %v", p, err)
	}
	if a, err := s.Project(ctx, "alpha"); err != nil || a.AutoReindex || !a.Layout.IsZero() {
		t.Errorf("alpha after zeta's settings: %+v, %v", a, err)
	}
	if err := s.SetAutoReindex(ctx, zeta.ID, false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLayout(ctx, zeta.ID, ragd.Layout{}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Project(ctx, "/repos/zeta"); err != nil || p.AutoReindex || !p.Layout.IsZero() {
		t.Errorf("zeta with its settings undone: %+v, %v", p, err)
	}
}

// testProjectDuplicates: a second project of the same name or path is
// refused with ErrExists.
func testProjectDuplicates(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	e.project("p")
	for _, c := range []struct{ name, path string }{{"p", "/elsewhere"}, {"other", "/repos/p"}} {
		if _, err := s.AddProject(ctx, c.name, c.path); !errors.Is(err, ragd.ErrExists) {
			t.Errorf("add %s at %s: %v, want ErrExists", c.name, c.path, err)
		}
	}
	if ps, err := s.Projects(ctx); err != nil || len(ps) != 1 {
		t.Errorf("projects after refused duplicates: %+v, %v", ps, err)
	}
}

package store

import (
	"context"
	"errors"
	"testing"

	"github.com/ragd/ragd"
)

// Project answers from its cache, and every write to a project is seen by
// the next lookup, by name or by path.
func TestProject_CacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, 4)
	p := mustProject(t, s, "p")
	for _, key := range []string{"p", p.Path} {
		got, err := s.Project(ctx, key)
		if err != nil || got.ID != p.ID || got.AutoReindex {
			t.Fatalf("Project(%q) = %+v, %v", key, got, err)
		}
	}
	if err := s.SetAutoReindex(ctx, p.ID, true); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"p", p.Path} {
		if got, err := s.Project(ctx, key); err != nil || !got.AutoReindex {
			t.Fatalf("after SetAutoReindex: Project(%q) = %+v, %v", key, got, err)
		}
	}
	if _, err := s.RemoveProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Project(ctx, "p"); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("after RemoveProject: %v, want ErrNotFound", err)
	}
	again := mustProject(t, s, "p")
	if got, err := s.Project(ctx, "p"); err != nil || got.ID != again.ID {
		t.Fatalf("re-added: Project = %+v, %v, want id %d", got, err, again.ID)
	}
}

package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/ragd/ragd"
)

func TestProjectsAreSharedByName(t *testing.T) {
	alice, url := openTest(t, Options{Owner: "alice"})
	bob := openAt(t, url, Options{Owner: "bob"})
	ctx := context.Background()
	pa := addProject(t, alice, "team")
	if _, err := alice.AddProject(ctx, "team", "/elsewhere"); !errors.Is(err, ragd.ErrExists) {
		t.Fatalf("alice adds team twice: %v, want ErrExists", err)
	}
	if _, err := alice.AddProject(ctx, "other", pa.Path); !errors.Is(err, ragd.ErrExists) {
		t.Fatalf("alice adds her path twice: %v, want ErrExists", err)
	}
	// Bob sees the project before he adds it, without a path of his.
	seen, err := bob.Project(ctx, "team")
	if err != nil || seen.ID != pa.ID || seen.Path != "" {
		t.Fatalf("bob's view of team before adding it: %+v, %v", seen, err)
	}
	if err := bob.SetAutoReindex(ctx, pa.ID, true); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("bob's auto-reindex of a project he has not added: %v, want ErrNotFound", err)
	}
	pb := addProject(t, bob, "team")
	if pb.ID != pa.ID || pb.Path != "/home/bob/team" {
		t.Fatalf("bob joins team: %+v", pb)
	}
	if err := bob.SetAutoReindex(ctx, pb.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := alice.SetLayout(ctx, pa.ID, ragd.Layout{Include: []string{"docs/**"}}); err != nil {
		t.Fatal(err)
	}
	byPath, err := bob.Project(ctx, "/home/bob/team")
	if err != nil || byPath.ID != pa.ID || !byPath.AutoReindex || len(byPath.Layout.Include) != 1 {
		t.Fatalf("bob's project by his path: %+v, %v", byPath, err)
	}
	if p, _ := alice.Project(ctx, "team"); p.AutoReindex || p.Path != pa.Path {
		t.Fatalf("alice's view: %+v (bob's auto-reindex is his)", p)
	}
	if _, err := alice.Project(ctx, "/home/bob/team"); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("alice finds bob's path: %v, want ErrNotFound", err)
	}
	if err := alice.SetLayout(ctx, 999, ragd.Layout{}); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("layout of no project: %v", err)
	}

	// Alice leaves: her sessions and searches go, the docs stay for Bob.
	replace(t, alice, pa.ID, ragd.ScopeDocs, doc("readme.md", 0, "shared docs", nil))
	replace(t, alice, pa.ID, ragd.ScopeSession, sessionChunk("s1", "e1", "alice's words", nil))
	recordSearch(t, alice, pa.ID)
	gone, err := alice.RemoveProject(ctx, pa.ID)
	if err != nil || gone.Searches != 1 {
		t.Fatalf("alice leaves: %+v, %v", gone, err)
	}
	list, err := bob.Projects(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("projects after alice left: %+v, %v", list, err)
	}
	if docs, _ := bob.ScopeChunks(ctx, pa.ID, ragd.ScopeDocs); len(docs) != 1 {
		t.Fatalf("docs after alice left: %d, want 1", len(docs))
	}
	var sessionChunks int
	if err := bob.pool.QueryRow(ctx, "SELECT count(*) FROM chunks WHERE scope = 'session'").Scan(&sessionChunks); err != nil || sessionChunks != 0 {
		t.Fatalf("session chunks after alice left: %d, %v", sessionChunks, err)
	}
	// Bob, the last, removes the project.
	if _, err := bob.RemoveProject(ctx, pa.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ := bob.Projects(ctx); len(list) != 0 {
		t.Fatalf("projects after the last owner left: %+v", list)
	}
	if _, err := bob.RemoveProject(ctx, pa.ID); !errors.Is(err, ragd.ErrNotFound) {
		t.Fatalf("remove again: %v, want ErrNotFound", err)
	}
}

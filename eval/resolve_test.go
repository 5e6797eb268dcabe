package eval

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/gittest"
	"github.com/ragd/ragd/internal/testdb"
	"github.com/ragd/ragd/internal/testdb/sqlitedb"
)

func TestResolveAgainstProject(t *testing.T) {
	ctx := context.Background()
	repo := gittest.New(t)
	repo.Commit(t, "docs", map[string]string{
		"docs/adr/0002-x.md":    "# ADR 2\n\n## Decision\n\nWe weigh.\n",
		"docs/adr/0009-gone.md": "# Gone\n",
		"README.md":             "# Readme\n",
	})
	repo.Remove(t, "drop 9", "docs/adr/0009-gone.md")
	st := sqlitedb.OpenDims(t, testDims)
	p, err := st.AddProject(ctx, "p", repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	testdb.Replace(t, st, p.ID, ragd.ScopeADR, []ragd.ChunkInput{
		fileChunk("docs/adr/0002-x.md", 0, "ADR 2", []string{"Decision"}, "We weigh.", nil),
	})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := st.AppendEvents(ctx, p.ID, []ragd.Event{
		{ID: "e5", SessionID: "s1", Type: "chat.message", Actor: "person", Text: "why weights?", Time: at},
		{ID: "e6", SessionID: "s1", Type: "agent.response", Actor: "agent", Text: "because", Time: at.Add(time.Second)},
		{ID: "e7", SessionID: "s2", Type: "chat.message", Actor: "person", Text: "other", Time: at},
	}); err != nil {
		t.Fatal(err)
	}
	testdb.Replace(t, st, p.ID, ragd.ScopeSession, []ragd.ChunkInput{
		{SessionID: "s1", EventID: "e5", Position: 0, Content: "why weights?", ContentHash: hashOf("why weights?")},
	})

	golden := strings.Join([]string{
		`{"id": "ok", "query": "weights", "relevant": [{"sourcePath": "docs/adr/0002-x.md", "headingPath": ["Decision"]}, {"sessionId": "s1", "eventId": "e5"}]}`,
		`{"id": "gone", "query": "gone", "relevant": [{"sourcePath": "docs/adr/0009-gone.md"}, {"sessionId": "s1", "eventId": "e99"}]}`,
		`{"id": "mixed", "query": "readme", "relevant": [{"sourcePath": "README.md"}, {"sourcePath": "docs/adr/0002-x.md", "headingPath": ["Nope"]}, {"sessionId": "s9"}, {"sessionId": "s2", "eventId": "e7"}, {"sessionId": "s2", "eventId": "e5"}]}`,
	}, "\n")
	set, err := ParseGolden(strings.NewReader(golden), "g.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewProjectResolver(ctx, st, p)
	if err != nil {
		t.Fatal(err)
	}
	set.Resolve(res)

	ok, gone, mixed := set.Queries[0], set.Queries[1], set.Queries[2]
	if len(ok.Relevant) != 2 || len(ok.Unresolvable) != 0 {
		t.Errorf("ok: relevant %v, unresolvable %v", ok.Relevant, ok.Unresolvable)
	}
	if len(gone.Relevant) != 0 || len(gone.Unresolvable) != 2 {
		t.Fatalf("gone: relevant %v, unresolvable %v", gone.Relevant, gone.Unresolvable)
	}
	if !strings.Contains(gone.Unresolvable[0].Reason, "no such file at HEAD") {
		t.Errorf("a file removed at HEAD: %q", gone.Unresolvable[0].Reason)
	}
	// README exists (not indexed: counted, with a warning), the heading is
	// unknown (counted, warning), s9 does not exist, e7 is fine, e5 is of
	// another session.
	if len(mixed.Relevant) != 3 || len(mixed.Unresolvable) != 2 {
		t.Errorf("mixed: relevant %v, unresolvable %v", mixed.Relevant, mixed.Unresolvable)
	}
	c := set.Counts()
	if c.Judged != 2 || c.NoRelevant != 1 || c.Unresolvable != 4 || c.Relevant != 5 {
		t.Errorf("counts %+v: the query with only unresolvable citations is counted apart", c)
	}
	if got := len(set.Judged()); got != 2 {
		t.Errorf("%d judged queries, want 2", got)
	}
	all := strings.Join(set.Warnings, "\n")
	for _, want := range []string{
		"g.jsonl:2: unresolvable citation docs/adr/0009-gone.md: no such file at HEAD",
		"g.jsonl:2: unresolvable citation session s1 event e99",
		"g.jsonl:3: README.md: the file exists at HEAD but has no chunk in the index",
		`g.jsonl:3: docs/adr/0002-x.md § Nope: no indexed section has heading path "Nope"`,
		"g.jsonl:3: unresolvable citation session s9",
		"g.jsonl:3: session s2 event e7: the message has no chunk in the index",
		"g.jsonl:3: unresolvable citation session s2 event e5: the message belongs to session s1",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

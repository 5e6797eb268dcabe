package storetest

// Every test of the snapshot's lexical methods (LexicalCandidates,
// LexicalScores) is in this file: a ragd.LexicalQuery of terms analysed as
// the project's lexical index is crosses the snapshot, and scores are
// higher-is-better.

import (
	"maps"
	"slices"
	"testing"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
)

var lexicalTests = []subtest{
	{"candidates and scores", testLexical},
	{"one state while a reindex commits", testLexicalSnapshot},
	{"refused replace, forget", testLexicalGone},
}

// query is the lexical query of any of the words, analysed as the
// project's lexical index is.
func query(t *testing.T, sn ragd.Snapshot, projectID int64, words ...string) ragd.LexicalQuery {
	t.Helper()
	lang, err := sn.LexicalLanguage(t.Context(), projectID)
	if err != nil {
		t.Fatalf("lexical language of project %d: %v", projectID, err)
	}
	q := ragd.LexicalQuery{Language: lang}
	for i, tok := range analyse(t, sn, projectID, words...) {
		q.Terms = append(q.Terms, ragd.LexicalTerm{Word: words[i], Tokens: []string{tok}})
	}
	return q
}

// analyse returns the tokens of words in the project's lexical language.
func analyse(t *testing.T, sn ragd.Snapshot, projectID int64, words ...string) []string {
	t.Helper()
	name, err := sn.LexicalLanguage(t.Context(), projectID)
	if err != nil {
		t.Fatalf("lexical language of project %d: %v", projectID, err)
	}
	lang, err := lexical.ParseLanguage(name)
	if err != nil {
		t.Fatalf("lexical language %q of project %d: %v", name, projectID, err)
	}
	var out []string
	for _, w := range words {
		toks, err := lexical.Analyze(lang, w)
		if err != nil || len(toks) != 1 {
			t.Fatalf("analyse %q in %s: %v, %v; want one token", w, name, toks, err)
		}
		out = append(out, toks[0])
	}
	return out
}

// candidateIDs returns the ids of the lexical candidates, best first.
func candidateIDs(t *testing.T, sn ragd.Snapshot, f ragd.Filter, q ragd.LexicalQuery, k int) []string {
	t.Helper()
	m, err := sn.LexicalCandidates(t.Context(), f, q, k)
	if err != nil {
		t.Fatalf("lexical candidates of %+v: %v", q, err)
	}
	var out []string
	for i, c := range m.Candidates {
		if i > 0 && c.Score > m.Candidates[i-1].Score {
			t.Errorf("lexical candidates of %+v not best first: %+v", q, m.Candidates)
		}
		out = append(out, c.ChunkID)
	}
	return out
}

// testLexical: the lexical candidates are the chunks holding a query's
// words, best first, within the filter's project and scopes; the scores
// are given for the chunks asked about that match.
func testLexical(t *testing.T, e *env) {
	ctx := t.Context()
	p, q := e.project("p"), e.project("q")
	docs := []ragd.ChunkInput{
		docChunk("docs/keys.md", 0, "The signing key is rotated by the release manager. Rotation of the signing key, key by key.", nil),
		docChunk("docs/keys.md", 1, "Every release manager keeps a spare signing key offline.", nil),
		docChunk("docs/socket.md", 0, "The daemon listens on a unix socket with mode 0600.", nil),
	}
	e.replace(p.ID, ragd.ScopeDocs, docs...)
	adr := docChunk("docs/adr/1.md", 0, "Decision: the daemon listens on a unix socket, never a port.", nil)
	e.replace(p.ID, ragd.ScopeADR, adr)
	e.replace(q.ID, ragd.ScopeDocs, docChunk("docs/keys.md", 0, "Another project's signing key.", nil))
	id := func(scope string, c ragd.ChunkInput) string { return chunkID(p.ID, scope, c) }

	sn := e.snapshot()
	all := ragd.Filter{ProjectID: p.ID}
	key := query(t, sn, p.ID, "key")
	if got := candidateIDs(t, sn, all, key, 10); !slices.Equal(got, []string{id(ragd.ScopeDocs, docs[0]), id(ragd.ScopeDocs, docs[1])}) {
		t.Errorf("candidates of key: %v; want the chunk saying it four times, then the one saying it once", got)
	}
	if got := candidateIDs(t, sn, all, key, 1); len(got) != 1 || got[0] != id(ragd.ScopeDocs, docs[0]) {
		t.Errorf("the best candidate of key: %v", got)
	}
	socket := query(t, sn, p.ID, "socket")
	got := candidateIDs(t, sn, all, socket, 10)
	slices.Sort(got)
	want := []string{id(ragd.ScopeDocs, docs[2]), id(ragd.ScopeADR, adr)}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("candidates of socket in every scope: %v, want %v", got, want)
	}
	if got := candidateIDs(t, sn, ragd.Filter{ProjectID: p.ID, Scopes: []string{ragd.ScopeADR}}, socket, 10); !slices.Equal(got, []string{id(ragd.ScopeADR, adr)}) {
		t.Errorf("candidates of socket in adr: %v", got)
	}
	if got := candidateIDs(t, sn, all, query(t, sn, p.ID, "zeppelin"), 10); len(got) != 0 {
		t.Errorf("candidates of a word no chunk holds: %v", got)
	}
	if got := candidateIDs(t, sn, ragd.Filter{ProjectID: q.ID}, query(t, sn, q.ID, "key"), 10); len(got) != 1 {
		t.Errorf("candidates of key in q: %v, want q's one chunk", got)
	}

	asked := []string{id(ragd.ScopeDocs, docs[0]), id(ragd.ScopeDocs, docs[2]), id(ragd.ScopeADR, adr), "no-such-chunk"}
	scores, err := sn.LexicalScores(ctx, p.ID, socket, asked)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(scores)); !slices.Equal(got, want) {
		t.Errorf("scores of socket for %v: %v; want the two chunks that hold it", asked, scores)
	}
}

// testLexicalSnapshot: the lexical index a snapshot reads is the state of
// its Snapshot call, as the vectors are (see testSnapshotOneState).
func testLexicalSnapshot(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	old := docChunk("docs/a.md", 0, "the old wording", nil)
	e.replace(p.ID, ragd.ScopeDocs, old)
	sn, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	oldQ, newQ := query(t, sn, p.ID, "old"), query(t, sn, p.ID, "fresh")
	done := make(chan error, 1)
	go func() {
		_, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, []ragd.ChunkInput{docChunk("docs/a.md", 0, "the fresh wording", nil)})
		done <- err
	}()
	if !e.su.WritesWaitForSnapshots {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	f := ragd.Filter{ProjectID: p.ID}
	if got := candidateIDs(t, sn, f, oldQ, 10); !slices.Equal(got, []string{chunkID(p.ID, ragd.ScopeDocs, old)}) {
		t.Errorf("candidates of old in the snapshot: %v", got)
	}
	if got := candidateIDs(t, sn, f, newQ, 10); len(got) != 0 {
		t.Errorf("candidates of fresh in the snapshot: %v", got)
	}
	sn.Close()
	if e.su.WritesWaitForSnapshots {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	sn2 := e.snapshot()
	if got := candidateIDs(t, sn2, f, oldQ, 10); len(got) != 0 {
		t.Errorf("candidates of old in the next snapshot: %v", got)
	}
	if got := candidateIDs(t, sn2, f, newQ, 10); len(got) != 1 {
		t.Errorf("candidates of fresh in the next snapshot: %v", got)
	}
}

// testLexicalGone: a refused replacement adds no lexical row, and a
// forgotten session's words match nothing.
func testLexicalGone(t *testing.T, e *env) {
	s := e.store()
	ctx := t.Context()
	p := e.project("p")
	e.replace(p.ID, ragd.ScopeDocs, docChunk("docs/a.md", 0, "kept wording", nil))
	e.appendSession(p.ID, message("m1", "s1", 0, "a password pasted here"), message("m2", "s2", 1, "kept message"))
	bad := []ragd.ChunkInput{docChunk("docs/a.md", 0, "refused wording", nil), docChunk("docs/b.md", 0, "refused too", nil)}
	bad[1].ContentHash = ""
	if _, err := s.ReplaceScope(ctx, p.ID, ragd.ScopeDocs, bad); err == nil {
		t.Fatal("a replace with a chunk without content hash was accepted")
	}
	if _, err := s.ForgetSession(ctx, p.ID, "s1"); err != nil {
		t.Fatal(err)
	}
	sn := e.snapshot()
	f := ragd.Filter{ProjectID: p.ID}
	for _, w := range []string{"refused", "password"} {
		if got := candidateIDs(t, sn, f, query(t, sn, p.ID, w), 10); len(got) != 0 {
			t.Errorf("candidates of %s: %v, want none", w, got)
		}
	}
	if got := candidateIDs(t, sn, f, query(t, sn, p.ID, "kept"), 10); len(got) != 2 {
		t.Errorf("candidates of kept: %v, want the doc and the message", got)
	}
}

// Package testdb holds the test helpers every store's tests use: add a
// project, replace a scope, make a session event, failing the test on
// error. It imports only the domain, so that the engines' own tests (package
// store, store/postgres) and the searcher's, the indexer's and eval's can
// all use it; sqlitedb opens a SQLite store for the tests above the store.
package testdb

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/internal/vectest"
)

// Projects is the part of a store AddProject uses.
type Projects interface {
	AddProject(ctx context.Context, name, path string) (ragd.Project, error)
}

// Replacer is the part of a store Replace uses.
type Replacer interface {
	ReplaceScope(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) (ragd.ReplaceResult, error)
}

// AddProject registers a project named name at path and fails tb on error.
func AddProject(tb testing.TB, s Projects, name, path string) ragd.Project {
	tb.Helper()
	p, err := s.AddProject(context.Background(), name, path)
	if err != nil {
		tb.Fatalf("add project %s: %v", name, err)
	}
	return p
}

// Replace replaces a project's scope with chunks and fails tb on error.
func Replace(tb testing.TB, s Replacer, projectID int64, scope string, chunks []ragd.ChunkInput) ragd.ReplaceResult {
	tb.Helper()
	r, err := s.ReplaceScope(context.Background(), projectID, scope, chunks)
	if err != nil {
		tb.Fatalf("replace %s of project %d: %v", scope, projectID, err)
	}
	return r
}

// Term is a term of a lexical query: the word as typed, its analysed
// tokens (more than one: a phrase), and whether it is a prefix.
func Term(word string, prefix bool, tokens ...string) ragd.LexicalTerm {
	return ragd.LexicalTerm{Word: word, Tokens: tokens, Prefix: prefix}
}

// T0 is when the engines' tests' events start.
var T0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Event is a person's event of session, of type typ with text, at T0 plus
// at.
func Event(id, session, typ, text string, at time.Duration) ragd.Event {
	return ragd.Event{ID: id, SessionID: session, Type: typ, Actor: "person", Text: text, Time: T0.Add(at)}
}

// WordChunks cuts e's text into one chunk per word, as a caller's chunker
// would, each hashed "h-WORD".
func WordChunks(e ragd.Event) []ragd.ChunkInput {
	var out []ragd.ChunkInput
	start := 0
	for i, w := range strings.Fields(e.Text) {
		at := strings.Index(e.Text[start:], w) + start
		out = append(out, ragd.ChunkInput{SessionID: e.SessionID, EventID: e.ID, Position: i,
			Start: at, End: at + len(w), Content: w, ContentHash: "h-" + w})
		start = at + len(w)
	}
	return out
}

// ChunksOf lists the WordChunks of each event, nil for events not indexed
// (AppendSession's chunks argument).
func ChunksOf(events ...ragd.Event) [][]ragd.ChunkInput {
	out := make([][]ragd.ChunkInput, len(events))
	for i, e := range events {
		if ragd.Indexed(e.Type) {
			out[i] = WordChunks(e)
		}
	}
	return out
}

// BenchContent is a benchmark chunk's text: about 1,200 bytes of words
// drawn from a Zipf distribution over 50,000, as real text's frequencies
// fall.
func BenchContent(r *rand.Rand) string {
	z := rand.NewZipf(r, 1.07, 2, 50_000)
	b := make([]byte, 0, 1300)
	for len(b) < 1200 {
		b = append(b, 'w')
		b = strconv.AppendUint(b, z.Uint64()+1, 10)
		b = append(b, ' ')
	}
	return string(b)
}

// ScopeChunks are the chunks of one scope.
type ScopeChunks struct {
	Scope  string
	Chunks []ragd.ChunkInput
}

// ZipfScopes is a corpus of n chunks of 300 to 900 bytes of words drawn
// from a Zipf distribution over 5,000 (seed 5), as the benchmarks' corpus
// but smaller: "w1" is in nearly every chunk, "w300" in a few percent.
// Half are docs, ten chunks a file, half adr, a chunk a file; each chunk
// is made by chunk(path, position, text). Docs come first.
func ZipfScopes(n int, chunk func(path string, pos int, text string) ragd.ChunkInput) []ScopeChunks {
	r := rand.New(rand.NewSource(5))
	z := rand.NewZipf(r, 1.07, 2, 5000)
	var out []ScopeChunks
	for i, scope := range []string{ragd.ScopeDocs, ragd.ScopeADR} {
		sc := ScopeChunks{Scope: scope}
		for j := range n / 2 {
			var b strings.Builder
			for b.Len() < 300+r.Intn(600) {
				b.WriteString("w" + strconv.FormatUint(z.Uint64()+1, 10) + " ")
			}
			path := fmt.Sprintf("docs/%d/%d.md", i, j/10)
			if scope == ragd.ScopeADR {
				path = fmt.Sprintf("docs/adr/%d.md", j)
			}
			sc.Chunks = append(sc.Chunks, chunk(path, j%10, b.String()))
		}
		out = append(out, sc)
	}
	return out
}

// BenchFiles is a benchmark corpus of n chunks of dims-dimensional random
// unit vectors (seed 42), a thousand per file: each file's chunks made by
// chunk(path, position, text, vector).
func BenchFiles(n, dims int, chunk func(path string, pos int, text string, vec []float32) ragd.ChunkInput) [][]ragd.ChunkInput {
	const perFile = 1000
	r := rand.New(rand.NewSource(42))
	var files [][]ragd.ChunkInput
	for start := 0; start < n; start += perFile {
		var in []ragd.ChunkInput
		for i := start; i < min(start+perFile, n); i++ {
			in = append(in, chunk(fmt.Sprintf("docs/f%05d.md", i/perFile), i, BenchContent(r), vectest.RandomUnit(r, dims)))
		}
		files = append(files, in)
	}
	return files
}

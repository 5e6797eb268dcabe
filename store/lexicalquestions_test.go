package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/search"
)

// BenchmarkLexicalTopKQuestions times LexicalCandidates on real questions
// over a real index, with each method (the MaxScore pass, every match
// scored) in turn, and fails when the MaxScore pass's
// answer to any question differs from every match scored in any way (rows,
// order, scores). RAGD_BENCH_QUESTIONS_DB is a copy of a ragd database
// (e.g. the one `ragd eval --beir ../shared/bench/scifact --work W` builds:
// W/index-nomic-embed-text_768.db), of the embedding space
// RAGD_BENCH_SPACE (default nomic-embed-text/768), searched in its first
// project; RAGD_BENCH_QUESTIONS a JSON-lines file of {"text": question}
// (e.g. ../shared/bench/scifact/queries-train.jsonl). Metrics: each
// method's total time over all questions, and how many questions the pass
// answered by itself.
//
//	RAGD_BENCH_QUESTIONS_DB=COPY RAGD_BENCH_QUESTIONS=../shared/bench/scifact/queries-train.jsonl \
//	  go test -run '^$' -bench LexicalTopKQuestions -benchtime 3x ./store/
func BenchmarkLexicalTopKQuestions(b *testing.B) {
	path, file := os.Getenv("RAGD_BENCH_QUESTIONS_DB"), os.Getenv("RAGD_BENCH_QUESTIONS")
	if path == "" || file == "" {
		b.Skip("RAGD_BENCH_QUESTIONS_DB and RAGD_BENCH_QUESTIONS name the index and the questions")
	}
	space := os.Getenv("RAGD_BENCH_SPACE")
	if space == "" {
		space = "nomic-embed-text/768"
	}
	ctx := context.Background()
	s, err := Open(ctx, path, Options{Space: space, Dims: 768})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var pid int64
	if err := s.db.QueryRow("SELECT min(id) FROM projects").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	if err := s.ensureBounds(ctx, pid); err != nil {
		b.Fatal(err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	sn := snap.(*Snapshot)
	langName, err := sn.LexicalLanguage(ctx, pid)
	if err != nil {
		b.Fatal(err)
	}
	lang, err := lexical.ParseLanguage(langName)
	if err != nil {
		b.Fatal(err)
	}
	a, err := lexical.New(lang)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	var qs []ragd.LexicalQuery
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			b.Fatal(err)
		}
		q, err := search.ParseQuery(line.Text)
		if err != nil {
			continue
		}
		qs = append(qs, q.In(a).Lexical)
	}
	f.Close()
	for _, k := range []int{12, search50, 100} {
		b.Run(fmt.Sprintf("k%d", k), func(b *testing.B) {
			took := map[topKMethod]time.Duration{}
			exact := 0
			i := 0
			methods := []topKMethod{topKMaxScore, topKOff}
			for b.Loop() {
				exact = 0
				for _, q := range qs {
					answers := map[topKMethod][]ragd.LexicalCandidate{}
					for j := range methods {
						m := methods[(i+j)%len(methods)]
						// Every match scored by FTS5's own bm25(), the
						// reference (no kept count read).
						lexicalTopK, countDocs = m, m == topKOff
						sn.lastPlan = nil
						start := time.Now()
						got, err := sn.LexicalCandidates(ctx, ragd.Filter{ProjectID: pid}, q, k)
						took[m] += time.Since(start)
						if err != nil {
							b.Fatal(err)
						}
						if m == topKMaxScore && sn.lastTopK == topKExact {
							exact++
						}
						answers[m] = got.Candidates
					}
					lexicalTopK, countDocs = topKMaxScore, false
					if !slices.Equal(answers[topKMaxScore], answers[topKOff]) {
						b.Fatalf("%v, k %d: the pass answered\n%v\nevery match scored\n%v", q.Terms, k, answers[topKMaxScore], answers[topKOff])
					}
					i++
				}
			}
			per := func(m topKMethod) float64 {
				return float64(took[m].Microseconds()) / 1000 / float64(b.N)
			}
			b.ReportMetric(per(topKMaxScore), "maxscore-ms")
			b.ReportMetric(per(topKOff), "whole-ms")
			b.ReportMetric(float64(exact), "exact")
			b.ReportMetric(float64(len(qs)), "questions")
		})
	}
}

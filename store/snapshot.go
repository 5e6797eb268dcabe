package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Snapshot is one read transaction: every query on it sees the database as it
// was when the snapshot began, whatever writers commit meanwhile. Searches run
// their vector and lexical queries on one snapshot, so a reindex that replaces
// a scope in between can never make them read a mix.
//
// A Snapshot is not safe for concurrent use. Close it when done.
type Snapshot struct {
	s  *Store
	tx *sql.Tx
	// codesGen is the codes' generation when the snapshot began.
	codesGen uint64
	// lastPlan is the last lexical query planned (plan).
	lastPlan *lexicalPlan
	// lastTopK is what the top-k pass did for the last lexical
	// candidates (maxScoreCandidates).
	lastTopK topKPass
}

// Snapshot begins a read snapshot.
func (s *Store) Snapshot(ctx context.Context) (ragd.Snapshot, error) {
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin snapshot: %w", err)
	}
	// A deferred transaction takes its snapshot at its first read: read now,
	// so the snapshot is the state at this call. Vector writes commit
	// holding the codes' lock, so the generation read with it is the one
	// that matches the snapshot.
	sn := &Snapshot{s: s, tx: tx}
	if s.codes != nil {
		s.codes.mu.RLock()
		defer s.codes.mu.RUnlock()
		sn.codesGen = s.codes.gen
	}
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("begin snapshot: %w", err)
	}
	return sn, nil
}

// Close ends the snapshot.
func (sn *Snapshot) Close() error {
	if err := sn.tx.Rollback(); err != nil && err != sql.ErrTxDone {
		return fmt.Errorf("close snapshot: %w", err)
	}
	return nil
}

// VectorCandidates returns the k chunks nearest to vec (cosine), nearest
// first, among the filter's project and scopes. The scope filter is applied
// during the scan, so k candidates come back whenever k such chunks exist.
// Ties in distance are ordered by chunk id.
func (sn *Snapshot) VectorCandidates(ctx context.Context, f ragd.Filter, vec []float32, k int) ([]ragd.VectorCandidate, error) {
	if k <= 0 {
		return nil, nil
	}
	blob, err := sn.s.encodeVector(vec)
	if err != nil {
		return nil, fmt.Errorf("vector candidates: query %w", err)
	}
	scopes, err := rules.FilterScopes(f)
	if err != nil {
		return nil, fmt.Errorf("vector candidates: %w", err)
	}
	if x := sn.s.codes; x != nil && x.covers(f.ProjectID, sn.s.quantizedMin, sn.codesGen) {
		out, ok, err := sn.quantizedCandidates(ctx, f.ProjectID, scopes, vec, blob, k)
		if ok || err != nil {
			return out, err
		}
		// A commit changed the codes since the snapshot began: scan exactly.
	}
	q := "SELECT chunk_seq, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ? AND project_id = ?"
	args := []any{blob, k, f.ProjectID}
	if len(scopes) > 0 {
		q += " AND scope IN (" + placeholders(len(scopes)) + ")"
		for _, sc := range scopes {
			args = append(args, sc)
		}
	}
	q = "SELECT c.id, knn.distance FROM (" + q + ") AS knn JOIN chunks c ON c.seq = knn.chunk_seq"
	rows, err := sn.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("vector candidates: %w", err)
	}
	defer rows.Close()
	var out []ragd.VectorCandidate
	for rows.Next() {
		var c ragd.VectorCandidate
		var l2 float64
		if err := rows.Scan(&c.ChunkID, &l2); err != nil {
			return nil, fmt.Errorf("vector candidates: %w", err)
		}
		c.Distance = cosineDistance(l2)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector candidates: %w", err)
	}
	sortVectorCandidates(out)
	return out, nil
}

func sortVectorCandidates(out []ragd.VectorCandidate) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Distance != out[j].Distance {
			return out[i].Distance < out[j].Distance
		}
		return out[i].ChunkID < out[j].ChunkID
	})
}

// quantizedCandidates finds a shortlist of shortlistFactor·k chunks by the
// Hamming distance of their codes, then ranks it by the exact distance of
// the floats stored in the snapshot. It returns false, and no candidates,
// when a commit changed the codes after the snapshot began.
func (sn *Snapshot) quantizedCandidates(ctx context.Context, projectID int64, scopes []string, vec []float32, blob []byte, k int) ([]ragd.VectorCandidate, bool, error) {
	mask := uint8(1<<len(ragd.Scopes) - 1)
	if len(scopes) > 0 {
		mask = 0
		for _, sc := range scopes {
			mask |= 1 << scopeIndex(sc)
		}
	}
	x := sn.s.codes
	short, ok := x.shortlist(projectID, mask, codeOf(vec, x.words), max(k*sn.s.shortlistFactor, sn.s.minShortlist), sn.codesGen)
	if !ok {
		return nil, false, nil
	}
	// From the plain table, in one statement: vec0 answers each point read
	// by opening a blob handle, six times the cost (BenchmarkRescoreReads).
	rows, err := sn.tx.QueryContext(ctx, "SELECT seq, vec_distance_l2(embedding, ?) FROM chunk_floats WHERE seq IN ("+joinInts(short)+")", blob)
	if err != nil {
		return nil, true, fmt.Errorf("vector candidates: rescore: %w", err)
	}
	type scored struct {
		seq int64
		l2  float64
	}
	exact := make([]scored, 0, len(short))
	for rows.Next() {
		var e scored
		if err := rows.Scan(&e.seq, &e.l2); err != nil {
			rows.Close()
			return nil, true, fmt.Errorf("vector candidates: rescore: %w", err)
		}
		exact = append(exact, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, true, fmt.Errorf("vector candidates: rescore: %w", err)
	}
	// Ties by seq: the IN list's order is the index's, not the shortlist's.
	sort.Slice(exact, func(i, j int) bool {
		if exact[i].l2 != exact[j].l2 {
			return exact[i].l2 < exact[j].l2
		}
		return exact[i].seq < exact[j].seq
	})
	exact = exact[:min(k, len(exact))]
	if len(exact) == 0 {
		return nil, true, nil
	}
	seqs := make([]int64, len(exact))
	for i, e := range exact {
		seqs[i] = e.seq
	}
	// The codes' mask already kept the scopes.
	ids, err := chunkIDsBySeq(ctx, sn.tx, seqs, nil)
	if err != nil {
		return nil, true, fmt.Errorf("vector candidates: %w", err)
	}
	out := make([]ragd.VectorCandidate, 0, len(exact))
	for _, e := range exact {
		if id, ok := ids[e.seq]; ok {
			out = append(out, ragd.VectorCandidate{ChunkID: id, Distance: cosineDistance(e.l2)})
		}
	}
	sortVectorCandidates(out)
	return out, true, nil
}

// VectorDistances returns the cosine distance between vec and each of the
// given chunks that has a vector; chunks without one are absent from the map.
func (sn *Snapshot) VectorDistances(ctx context.Context, vec []float32, chunkIDs []string) (map[string]float64, error) {
	out := make(map[string]float64, len(chunkIDs))
	if len(chunkIDs) == 0 {
		return out, nil
	}
	blob, err := sn.s.encodeVector(vec)
	if err != nil {
		return nil, fmt.Errorf("vector distances: query %w", err)
	}
	args := make([]any, 0, len(chunkIDs)+1)
	args = append(args, blob)
	for _, id := range chunkIDs {
		args = append(args, id)
	}
	rows, err := sn.tx.QueryContext(ctx, `SELECT c.id, vec_distance_l2(f.embedding, ?) FROM chunks c JOIN chunk_floats f ON f.seq = c.seq
		WHERE c.id IN (`+placeholders(len(chunkIDs))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("vector distances: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var l2 float64
		if err := rows.Scan(&id, &l2); err != nil {
			return nil, fmt.Errorf("vector distances: %w", err)
		}
		out[id] = cosineDistance(l2)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector distances: %w", err)
	}
	return out, nil
}

// matchCandidates returns up to k chunks matching the FTS5 expression
// match, best first (highest −bm25), among the filter's project and
// scopes. match must be a well-formed FTS5 query of tokens analysed for
// the project's language (MatchExpression renders one). Ties are ordered
// by the order the chunks were written (their seq), which lets the FTS
// table cut the list before any row is joined to its chunk.
func (sn *Snapshot) matchCandidates(ctx context.Context, f ragd.Filter, match string, k int) ([]ragd.LexicalCandidate, error) {
	return sn.scoredCandidates(ctx, f, match, fts5Scoring(lexicalTable(f.ProjectID)), k)
}

// lexicalScoring is how a lexical query orders its rows: the SQL of the
// score (over the FTS5 table, whose MATCH follows) with its arguments,
// and whether a higher value is better. Candidates carry the higher-better
// value.
type lexicalScoring struct {
	expr string
	args []any
	desc bool
}

// fts5Scoring is FTS5's bm25 of table t: lower is better.
func fts5Scoring(t string) lexicalScoring {
	return lexicalScoring{expr: "bm25(" + t + ")"}
}

// order is the ORDER BY of the scoring, ties by seq (col).
func (sc lexicalScoring) order(col string) string {
	if sc.desc {
		return "score DESC, " + col
	}
	return "score, " + col
}

// candidate is the higher-better score of a scored row.
func (sc lexicalScoring) candidate(score float64) float64 {
	if sc.desc {
		return score
	}
	return -score
}

// scoredCandidates is matchCandidates with the rows ordered by sc.
func (sn *Snapshot) scoredCandidates(ctx context.Context, f ragd.Filter, match string, sc lexicalScoring, k int) ([]ragd.LexicalCandidate, error) {
	if k <= 0 || match == "" {
		return nil, nil
	}
	scopes, err := rules.FilterScopes(f)
	if err != nil {
		return nil, fmt.Errorf("lexical candidates: %w", err)
	}
	// The project's own table: its bm25 statistics are the project's alone.
	t := lexicalTable(f.ProjectID)
	if out, exact, err := sn.lexicalWindow(ctx, t, scopes, match, sc, k); err != nil || exact {
		return out, err
	}
	q := `SELECT c.id, ` + sc.expr + ` AS score FROM ` + t + ` JOIN chunks c ON c.seq = ` + t + `.rowid
		WHERE ` + t + ` MATCH ? AND c.scope IN (` + placeholders(len(scopes)) + `) ORDER BY ` + sc.order("c.seq") + ` LIMIT ?`
	args := append(slices.Clone(sc.args), match)
	for _, sc := range scopes {
		args = append(args, sc)
	}
	rows, err := sn.tx.QueryContext(ctx, q, append(args, k)...)
	if err != nil {
		return nil, fmt.Errorf("lexical candidates for %q: %w", match, err)
	}
	defer rows.Close()
	var out []ragd.LexicalCandidate
	for rows.Next() {
		var c ragd.LexicalCandidate
		var score float64
		if err := rows.Scan(&c.ChunkID, &score); err != nil {
			return nil, fmt.Errorf("lexical candidates: %w", err)
		}
		c.Score = sc.candidate(score)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lexical candidates for %q: %w", match, err)
	}
	return out, nil
}

// The lexical window: the best rows of the FTS table alone, in the
// candidates' order (score, then seq), before any join. Joining every
// matching row to chunks (for its id and scope) cost four times the match
// itself at 100k chunks (50 vs 12 ms for a three-word question,
// docs/adr/0009-scale.md): a row lookup in a table of 1.2 kB rows for each
// of thousands of matches, where only k are kept.
const (
	// lexicalScopeFactor sizes the window when scopes are filtered: some
	// of the best rows belong to the scopes left out.
	lexicalScopeFactor = 4
	// lexicalScopeMargin is added to it, for small k.
	lexicalScopeMargin = 8
)

// lexicalWindow reads the best rows of match from table t alone, in the
// candidates' order, then the ids and scopes of those only, and returns
// the first k of them in the scopes. Rows beyond the window come after
// every row in it, so the answer is the whole query's unless the scopes
// left fewer than k of a full window: exact is false then, and the caller
// runs the whole join.
func (sn *Snapshot) lexicalWindow(ctx context.Context, t string, scopes []string, match string, sc lexicalScoring, k int) (_ []ragd.LexicalCandidate, exact bool, _ error) {
	window := k
	if len(scopes) > 0 {
		window = lexicalScopeFactor*k + lexicalScopeMargin
	}
	args := append(slices.Clone(sc.args), match, window)
	rows, err := sn.tx.QueryContext(ctx, `SELECT rowid, `+sc.expr+` AS score FROM `+t+` WHERE `+t+` MATCH ? ORDER BY `+sc.order("rowid")+` LIMIT ?`, args...)
	if err != nil {
		return nil, false, fmt.Errorf("lexical candidates for %q: %w", match, err)
	}
	type row struct {
		seq   int64
		score float64
	}
	var got []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.seq, &r.score); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("lexical candidates: %w", err)
		}
		got = append(got, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("lexical candidates for %q: %w", match, err)
	}
	if len(got) == 0 {
		return nil, true, nil
	}
	seqs := make([]int64, len(got))
	for i, r := range got {
		seqs[i] = r.seq
	}
	ids, err := chunkIDsBySeq(ctx, sn.tx, seqs, scopes)
	if err != nil {
		return nil, false, fmt.Errorf("lexical candidates: %w", err)
	}
	out := make([]ragd.LexicalCandidate, 0, k)
	for _, r := range got {
		if id, ok := ids[r.seq]; ok && len(out) < k {
			out = append(out, ragd.LexicalCandidate{ChunkID: id, Score: sc.candidate(r.score)})
		}
	}
	if len(out) < k && len(got) == window && len(scopes) > 0 {
		return nil, false, nil // the scopes' next rows may lie beyond the window
	}
	return out, true, nil
}

// lexicalScoresLookups is the most chunks matchScores scores by a lookup
// of each in the FTS5 table. A rowid constraint reaches FTS5 as one
// lookup per row, and bm25 counts every phrase's rows again for each
// (FTS5 frees its per-query data at each lookup): at 100k chunks, 50 rows
// of a three-word question cost 51 ms so against 1.3 ms for one walk of
// its 11,000 matches, while one row costs 0.15 ms against 1.2 ms
// (docs/adr/0017-lexical-top-k.md).
const lexicalScoresLookups = 4

// matchScores returns the score (−bm25, as sc computes it: FTS5's bm25 or
// ragd_bm25 with the kept row counts, the same values) of the FTS5
// expression match for each of the given chunks of a project that
// matches it; chunks that do not match, or belong to another project, are
// absent from the map. The scores are on the same scale as
// matchCandidates'.
func (sn *Snapshot) matchScores(ctx context.Context, projectID int64, match string, sc lexicalScoring, chunkIDs []string) (map[string]float64, error) {
	out := make(map[string]float64, len(chunkIDs))
	if len(chunkIDs) == 0 || match == "" {
		return out, nil
	}
	args := append(slices.Clone(sc.args), match)
	for _, id := range chunkIDs {
		args = append(args, id)
	}
	t := lexicalTable(projectID)
	// A few rows: FTS5 looks each up. More: one walk of the matches, the
	// rows kept by a filter FTS5 never sees (the unary plus), so that
	// bm25 counts each phrase's rows for its idf once, not once per row
	// (ragd_bm25, given the counts, counts none).
	in := t + `.rowid IN`
	if len(chunkIDs) > lexicalScoresLookups {
		in = `+` + in
	}
	q := `SELECT c.id, ` + sc.expr + ` FROM ` + t + ` JOIN chunks c ON c.seq = ` + t + `.rowid
		WHERE ` + t + ` MATCH ? AND ` + in + ` (SELECT seq FROM chunks WHERE id IN (` + placeholders(len(chunkIDs)) + `))`
	rows, err := sn.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("lexical scores for %q: %w", match, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return nil, fmt.Errorf("lexical scores: %w", err)
		}
		out[id] = sc.candidate(score)
	}
	return out, rows.Err()
}

// Chunks loads chunks by id from the snapshot, in the order given; unknown
// ids are left out.
func (sn *Snapshot) Chunks(ctx context.Context, ids []string) ([]ragd.Chunk, error) {
	return chunksByID(ctx, sn.tx, ids)
}

// VectorCoverage counts the chunks f selects and those of them with a
// vector, from the counts the triggers of migration 4 keep: one row per
// scope, however large the index.
func (sn *Snapshot) VectorCoverage(ctx context.Context, f ragd.Filter) (chunks, vectors int, err error) {
	scopes, err := rules.FilterScopes(f)
	if err != nil {
		return 0, 0, fmt.Errorf("vector coverage: %w", err)
	}
	q := "SELECT coalesce(sum(chunks), 0), coalesce(sum(vectors), 0) FROM chunk_counts WHERE project_id = ?"
	args := []any{f.ProjectID}
	if len(scopes) > 0 {
		q += " AND scope IN (" + placeholders(len(scopes)) + ")"
		for _, sc := range scopes {
			args = append(args, sc)
		}
	}
	if err := sn.tx.QueryRowContext(ctx, q, args...).Scan(&chunks, &vectors); err != nil {
		return 0, 0, fmt.Errorf("vector coverage of project %d: %w", f.ProjectID, err)
	}
	return chunks, vectors, nil
}

// chunkIDsBySeq maps the seqs of chunks in scopes (every scope when nil)
// to their ids: the candidate queries cut their lists by seq, and look up
// only the ids they keep.
func chunkIDsBySeq(ctx context.Context, q queryer, seqs []int64, scopes []string) (map[int64]string, error) {
	keep := map[string]bool{}
	for _, sc := range scopes {
		keep[sc] = true
	}
	rows, err := q.QueryContext(ctx, "SELECT seq, id, scope FROM chunks WHERE seq IN ("+joinInts(seqs)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := make(map[int64]string, len(seqs))
	for rows.Next() {
		var seq int64
		var id, scope string
		if err := rows.Scan(&seq, &id, &scope); err != nil {
			return nil, err
		}
		if len(keep) == 0 || keep[scope] {
			ids[seq] = id
		}
	}
	return ids, rows.Err()
}

var _ ragd.Snapshot = (*Snapshot)(nil)

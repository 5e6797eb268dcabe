package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"github.com/ragd/ragd"
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
}

// Snapshot begins a read snapshot.
func (s *Store) Snapshot(ctx context.Context) (ragd.Snapshot, error) {
	tx, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin snapshot: %w", err)
	}
	// A deferred transaction takes its snapshot at its first read: read now,
	// so the snapshot is the state at this call.
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("begin snapshot: %w", err)
	}
	return &Snapshot{s: s, tx: tx}, nil
}

// Close ends the snapshot.
func (sn *Snapshot) Close() error {
	if err := sn.tx.Rollback(); err != nil && err != sql.ErrTxDone {
		return fmt.Errorf("close snapshot: %w", err)
	}
	return nil
}

func filterScopes(f ragd.Filter) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, sc := range f.Scopes {
		if !ragd.ValidScope(sc) {
			return nil, fmt.Errorf("unknown scope %q", sc)
		}
		if !seen[sc] {
			seen[sc] = true
			out = append(out, sc)
		}
	}
	if len(out) == len(ragd.Scopes) {
		return nil, nil // every scope: no filter
	}
	sort.Strings(out)
	return out, nil
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
	scopes, err := filterScopes(f)
	if err != nil {
		return nil, fmt.Errorf("vector candidates: %w", err)
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
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Distance != out[j].Distance {
			return out[i].Distance < out[j].Distance
		}
		return out[i].ChunkID < out[j].ChunkID
	})
	return out, nil
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
	stmt, err := sn.tx.PrepareContext(ctx, `SELECT vec_distance_l2(v.embedding, ?) FROM chunk_vectors v
		WHERE v.chunk_seq = (SELECT seq FROM chunks WHERE id = ?)`)
	if err != nil {
		return nil, fmt.Errorf("vector distances: %w", err)
	}
	defer stmt.Close()
	for _, id := range chunkIDs {
		var l2 float64
		switch err := stmt.QueryRowContext(ctx, blob, id).Scan(&l2); err {
		case nil:
			out[id] = cosineDistance(l2)
		case sql.ErrNoRows:
		default:
			return nil, fmt.Errorf("vector distance of chunk %s: %w", id, err)
		}
	}
	return out, nil
}

// LexicalCandidates returns up to k chunks matching the FTS5 expression
// match, best bm25 first, among the filter's project and scopes. match must
// be a well-formed FTS5 query of tokens analysed for the project's language
// (LexicalLanguage): the search package's parser builds it from user text.
// Ties are ordered by chunk id.
func (sn *Snapshot) LexicalCandidates(ctx context.Context, f ragd.Filter, match string, k int) ([]ragd.LexicalCandidate, error) {
	if k <= 0 || match == "" {
		return nil, nil
	}
	scopes, err := filterScopes(f)
	if err != nil {
		return nil, fmt.Errorf("lexical candidates: %w", err)
	}
	// The project's own table: its bm25 statistics are the project's alone.
	t := lexicalTable(f.ProjectID)
	q := `SELECT c.id, bm25(` + t + `) AS score FROM ` + t + ` JOIN chunks c ON c.seq = ` + t + `.rowid
		WHERE ` + t + ` MATCH ?`
	args := []any{match}
	if len(scopes) > 0 {
		q += " AND c.scope IN (" + placeholders(len(scopes)) + ")"
		for _, sc := range scopes {
			args = append(args, sc)
		}
	}
	q += " ORDER BY score, c.id LIMIT ?"
	args = append(args, k)
	rows, err := sn.tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("lexical candidates for %q: %w", match, err)
	}
	defer rows.Close()
	var out []ragd.LexicalCandidate
	for rows.Next() {
		var c ragd.LexicalCandidate
		if err := rows.Scan(&c.ChunkID, &c.BM25); err != nil {
			return nil, fmt.Errorf("lexical candidates: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lexical candidates for %q: %w", match, err)
	}
	return out, nil
}

// LexicalScores returns the bm25 score of match for each of the given chunks
// of a project that matches it; chunks that do not match, or belong to
// another project, are absent from the map. The scores are on the same
// scale as LexicalCandidates'.
func (sn *Snapshot) LexicalScores(ctx context.Context, projectID int64, match string, chunkIDs []string) (map[string]float64, error) {
	out := make(map[string]float64, len(chunkIDs))
	if len(chunkIDs) == 0 || match == "" {
		return out, nil
	}
	args := []any{match}
	for _, id := range chunkIDs {
		args = append(args, id)
	}
	t := lexicalTable(projectID)
	q := `SELECT c.id, bm25(` + t + `) FROM ` + t + ` JOIN chunks c ON c.seq = ` + t + `.rowid
		WHERE ` + t + ` MATCH ? AND ` + t + `.rowid IN (SELECT seq FROM chunks WHERE id IN (` + placeholders(len(chunkIDs)) + `))`
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
		out[id] = score
	}
	return out, rows.Err()
}

// Chunks loads chunks by id from the snapshot, in the order given; unknown
// ids are left out.
func (sn *Snapshot) Chunks(ctx context.Context, ids []string) ([]ragd.Chunk, error) {
	return chunksByID(ctx, sn.tx, ids)
}

var _ ragd.Snapshot = (*Snapshot)(nil)

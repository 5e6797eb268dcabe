package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Snapshot is one REPEATABLE READ READ ONLY transaction on one connection:
// every query on it sees the database as it was at its first statement,
// whatever other daemons commit meanwhile, so a search's vector and
// lexical queries never read a mix of two states of a scope. It returns
// only what the store's owner may read (docs, ADRs, the owner's and the
// shared session chunks).
//
// A Snapshot is not safe for concurrent use. Close it when done: it holds
// a connection of the pool until then.
type Snapshot struct {
	s     *Store
	tx    pgx.Tx
	stats map[int64]*lexStats // by project, counted at first use
	// generations are the projects' lexical generations (rank.go), read
	// at first use.
	generations map[int64]string
	// selected are the chunks each filter selects (VectorCoverage's
	// count), by filterKey.
	selected map[string]int64
	// unembedded are the chunks without a vector each filter selects, by
	// filterKey, when counted before VectorCoverage asked.
	unembedded map[string]int64
}

// hnswSearchFactor sizes the HNSW search's candidate list (ef_search) from
// k: pgvector's default 40 returns at most 40 rows, and a filter on project,
// scope and owner keeps fewer (the iterative scan then goes on). Measured
// on real embeddings (all-MiniLM-L6-v2, 384 dims, on SciFact's 8,208
// chunks, 100 queries each between two chunks, against an exact scan;
// docs/engines.md, branch pgq), in the graph of hnswM and
// hnswEfConstruction: recall@50 0.963 at ef_search 100, 0.984 at 150.
// Three times k: the sparser graph's search at 150 read fewer vectors than
// the former graph's (m 16) at 100, which gave 0.989.
const hnswSearchFactor = 3

// minEfSearch is the least ef_search searched with, what k = 12 searches
// with: recall@12 0.971 in the same graph and embeddings (0.939 at 48,
// 0.964 at 64, 0.973 at 100; the former graph gave 0.970–0.974 at 48).
const minEfSearch = 80

// maxEfSearch is pgvector's upper bound of ef_search.
const maxEfSearch = 1000

// graphShare is the share of the table's chunks a filter must select for
// its KNN to go through the HNSW graph, whatever the planner estimates.
// The planner costs an exact scan (every selected vector read and
// compared, then sorted) as cheaper than the graph once ef_search grows:
// at k = 50 (ef_search 200) on 10k chunks it read every vector back from
// TOAST, 33k buffers in 96-128 ms, against 1.5k buffers and 2-5 ms
// through the graph (EXPLAIN (ANALYZE, BUFFERS), docs/engines.md). A
// filter selecting a tenth of the rows or more finds its k in the graph
// within pgvector's iterative scan bound (hnsw.max_scan_tuples, 20,000);
// a smaller project of a large database is left to the planner, whose
// exact scan is then the right answer.
const graphShare = 0.1

var _ ragd.Snapshot = (*Snapshot)(nil)

// Snapshot begins a read snapshot.
func (s *Store) Snapshot(ctx context.Context) (ragd.Snapshot, error) {
	return s.snapshot(ctx)
}

func (s *Store) snapshot(ctx context.Context) (*Snapshot, error) {
	// A REPEATABLE READ transaction takes its snapshot at its first
	// statement: one is sent with the BEGIN, in the same round trip, so the
	// snapshot is the state at this call.
	// With pgvector 0.8 the HNSW scan goes on past ef_search until the
	// filter kept k rows (iterative scan), set for this transaction only.
	//
	// Every query of the snapshot is planned for its parameters
	// (plan_cache_mode): pgx prepares each statement once per connection,
	// and after five runs PostgreSQL may keep a generic plan, which knows
	// neither the query vector nor the LIMIT, and chose a sequential scan
	// and a sort of every vector over the HNSW index (EXPLAIN ANALYZE on
	// 10k chunks at a load of 20: 119 ms against 20 ms; docs/engines.md).
	//
	// The savepoint readAlone returns to is made here too, after the
	// settings.
	q := "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT set_config('plan_cache_mode', 'force_custom_plan', true)"
	if s.iterative {
		q += ", set_config('hnsw.iterative_scan', 'relaxed_order', true)"
	}
	q += "; SAVEPOINT " + readAloneSavepoint
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: q})
	if err != nil {
		return nil, s.describe("begin snapshot", err)
	}
	return &Snapshot{s: s, tx: tx}, nil
}

// Close ends the snapshot.
func (sn *Snapshot) Close() error {
	// The context is not the search's: a cancelled search must still give
	// its connection back.
	if err := sn.tx.Rollback(context.Background()); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		return sn.s.describe("close snapshot", err)
	}
	return nil
}

// filterSQL is the WHERE clause of f's project ($1), scopes ($2, every
// scope when NULL) and the owner's visibility ($3), with its arguments.
func (sn *Snapshot) filterSQL(f ragd.Filter) (string, []any, error) {
	scopes, err := rules.FilterScopes(f)
	if err != nil {
		return "", nil, err
	}
	var sc any
	if scopes != nil {
		sc = scopes
	}
	return "chunks.project_id = $1 AND ($2::text[] IS NULL OR chunks.scope = ANY($2)) AND " + visibleSQL(3),
		[]any{f.ProjectID, sc, sn.s.owner}, nil
}

// VectorCandidates returns the k chunks nearest to vec (cosine distance)
// among the filter's project and scopes, nearest first, ties by chunk id.
// The HNSW index answers (approximately, as HNSW does); the filter is
// applied during its scan.
func (sn *Snapshot) VectorCandidates(ctx context.Context, f ragd.Filter, vec []float32, k int) ([]ragd.VectorCandidate, error) {
	if k <= 0 {
		return nil, nil
	}
	v, err := sn.s.vector(vec)
	if err != nil {
		return nil, fmt.Errorf("vector candidates: query %w", err)
	}
	where, args, err := sn.filterSQL(f)
	if err != nil {
		return nil, fmt.Errorf("vector candidates: %w", err)
	}
	ef := min(max(minEfSearch, hnswSearchFactor*k), maxEfSearch)
	selected, err := sn.selectedChunks(ctx, f, where, args)
	if err != nil {
		return nil, err
	}
	// ef_search, and, when the filter selects graphShare of the table or
	// more (of its rows as last counted by ANALYZE; none before), no plan
	// but the graph: sequential and bitmap scans and sorts off. Set inside
	// the query's savepoint, they end with it.
	settings := `SELECT set_config('hnsw.ef_search', $1, true),
		set_config('enable_seqscan', p.graph, true), set_config('enable_bitmapscan', p.graph, true), set_config('enable_sort', p.graph, true)
		FROM (SELECT CASE WHEN t.rows >= 0 AND $2::float8 >= $3::float8 * t.rows THEN 'off' ELSE current_setting('enable_sort') END AS graph
			FROM (SELECT reltuples AS rows FROM pg_class WHERE oid = 'chunks'::regclass) t OFFSET 0) p`
	var out []ragd.VectorCandidate
	err = sn.readAlone(ctx, settings, []any{strconv.Itoa(ef), selected, graphShare},
		`SELECT chunks.id, chunks.embedding <=> $4 AS distance FROM chunks
		WHERE `+where+` AND chunks.embedding IS NOT NULL ORDER BY chunks.embedding <=> $4 LIMIT $5`, append(args, v, k),
		func(rows pgx.Rows) error {
			for rows.Next() {
				var c ragd.VectorCandidate
				if err := rows.Scan(&c.ChunkID, &c.Distance); err != nil {
					return err
				}
				if math.IsNaN(c.Distance) {
					continue // a zero vector (written by SQL): no direction, no distance
				}
				out = append(out, c)
			}
			return rows.Err()
		})
	if err != nil {
		return nil, sn.s.describe(fmt.Sprintf("vector candidates of project %d", f.ProjectID), err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Distance != out[j].Distance {
			return out[i].Distance < out[j].Distance
		}
		return out[i].ChunkID < out[j].ChunkID
	})
	return out, nil
}

// readAloneSavepoint is the savepoint a snapshot makes after its
// settings, for readAlone.
const readAloneSavepoint = "ragd_read_alone"

// readAlone runs the read-only query (after settings, when not "") and
// rolls the snapshot back to its savepoint once the rows are read, all in
// one round trip: the settings end there, and when the query fails (the
// vector column gone with its extension, ErrVectorsGone, even at its
// preparing) the transaction is rolled back to the savepoint and goes on,
// so that the search still answers lexical-only. The savepoint, made with
// the BEGIN, outlives each rollback to it. Each round trip counts: on a
// loaded machine each is a wake-up of the client and of the server (the
// savepoint, the settings, the query, their reset and the release were
// five).
func (sn *Snapshot) readAlone(ctx context.Context, settings string, settingsArgs []any, query string, args []any, read func(pgx.Rows) error) error {
	b := &pgx.Batch{}
	if settings != "" {
		b.Queue(settings, settingsArgs...)
	}
	b.Queue(query, args...)
	b.Queue("ROLLBACK TO SAVEPOINT " + readAloneSavepoint)
	br := sn.tx.SendBatch(ctx, b)
	err := func() error {
		if settings != "" {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		rows, err := br.Query()
		if err != nil {
			return err
		}
		err = read(rows)
		rows.Close()
		if err != nil {
			return err
		}
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("roll back to savepoint: %w", err)
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The snapshot goes on from its savepoint.
		if _, rerr := sn.tx.Exec(ctx, "ROLLBACK TO SAVEPOINT "+readAloneSavepoint); rerr != nil {
			return fmt.Errorf("%w (then roll back to savepoint: %w)", err, rerr)
		}
	}
	return err
}

// VectorDistances returns the cosine distance between vec and each of the
// given chunks that has a vector (and that the owner may read); the others
// are absent from the map.
func (sn *Snapshot) VectorDistances(ctx context.Context, vec []float32, chunkIDs []string) (map[string]float64, error) {
	out := make(map[string]float64, len(chunkIDs))
	if len(chunkIDs) == 0 {
		return out, nil
	}
	v, err := sn.s.vector(vec)
	if err != nil {
		return nil, fmt.Errorf("vector distances: query %w", err)
	}
	err = sn.readAlone(ctx, "", nil, `SELECT id, embedding <=> $1 FROM chunks WHERE id = ANY($2) AND embedding IS NOT NULL AND `+visibleSQL(3),
		[]any{v, chunkIDs, sn.s.owner}, func(rows pgx.Rows) error {
			for rows.Next() {
				var id string
				var d float64
				if err := rows.Scan(&id, &d); err != nil {
					return err
				}
				if math.IsNaN(d) {
					continue // a zero vector: as a chunk without one
				}
				out[id] = d
			}
			return rows.Err()
		})
	if err != nil {
		return nil, sn.s.describe(fmt.Sprintf("vector distances of %d chunks", len(chunkIDs)), err)
	}
	return out, nil
}

// LexicalCandidates returns up to k chunks matching q, best first by the
// rarity-weighted rank of rank.go (ties in the order the chunks were
// written), among the filter's project and scopes. q's tokens must be
// analysed for the project's language (LexicalLanguage). Expression is the
// tsquery matched and the ranking's weights. Nothing is left out as too
// frequent: Dropped is nil.
func (sn *Snapshot) LexicalCandidates(ctx context.Context, f ragd.Filter, q ragd.LexicalQuery, k int) (ragd.LexicalMatches, error) {
	var m ragd.LexicalMatches
	expr := renderTSQuery(q)
	m.Expression = expr
	if k <= 0 || expr == "" {
		return m, nil
	}
	where, args, err := sn.filterSQL(f)
	if err != nil {
		return m, fmt.Errorf("lexical candidates: %w", err)
	}
	terms, err := sn.rankTerms(ctx, f.ProjectID, q)
	if err != nil {
		return m, fmt.Errorf("lexical candidates for %q: %w", expr, err)
	}
	m.Expression = expr + " ranked by " + describeRanking(terms)
	if rarer, bound := splitFrequent(terms, k); len(rarer) < len(terms) {
		// The rarer terms' matches first (rank.go): their top k is the
		// answer when the k-th scores above what any other match can.
		ts := make([]string, len(rarer))
		for i, t := range rarer {
			ts[i] = t.tsquery
		}
		top, err := sn.rankMatches(ctx, f, where, args, orExcluding(ts, q.Excluded), terms, k)
		if err != nil {
			return m, err
		}
		if len(top) == k && top[k-1].Score > bound {
			m.Candidates = top
			return m, nil
		}
	}
	m.Candidates, err = sn.rankMatches(ctx, f, where, args, expr, terms, k)
	return m, err
}

// rankMatches returns the top k of the chunks the filter (where, args)
// selects that match the tsquery expr, scored on terms.
func (sn *Snapshot) rankMatches(ctx context.Context, f ragd.Filter, where string, filterArgs []any, expr string, terms []rankTerm, k int) ([]ragd.LexicalCandidate, error) {
	score, from, termArgs := rankSQL(terms, 6)
	args := append(append(append([]any{}, filterArgs...), expr, k), termArgs...)
	rows, err := sn.tx.Query(ctx, `SELECT chunks.id, `+score+` AS score FROM chunks, to_tsquery('`+tsConfig+`', $4) AS q`+from+`
		WHERE `+where+` AND chunks.tsv @@ q ORDER BY score DESC, chunks.seq LIMIT $5`, args...)
	if err != nil {
		return nil, sn.s.describe(fmt.Sprintf("lexical candidates for %q in project %d", expr, f.ProjectID), err)
	}
	defer rows.Close()
	var out []ragd.LexicalCandidate
	for rows.Next() {
		var c ragd.LexicalCandidate
		if err := rows.Scan(&c.ChunkID, &c.Score); err != nil {
			return nil, sn.s.describe("lexical candidates", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, sn.s.describe(fmt.Sprintf("lexical candidates for %q in project %d", expr, f.ProjectID), err)
	}
	return out, nil
}

// LexicalScores returns the score of q for each of the given chunks of a
// project that matches it, on LexicalCandidates' scale (the same weights,
// counted once per snapshot); chunks that do not match, belong to another
// project or to another owner's unshared sessions are absent.
func (sn *Snapshot) LexicalScores(ctx context.Context, projectID int64, q ragd.LexicalQuery, chunkIDs []string) (map[string]float64, error) {
	out := make(map[string]float64, len(chunkIDs))
	expr := renderTSQuery(q)
	if len(chunkIDs) == 0 || expr == "" {
		return out, nil
	}
	terms, err := sn.rankTerms(ctx, projectID, q)
	if err != nil {
		return nil, fmt.Errorf("lexical scores for %q: %w", expr, err)
	}
	score, from, termArgs := rankSQL(terms, 5)
	args := append([]any{expr, projectID, chunkIDs, sn.s.owner}, termArgs...)
	rows, err := sn.tx.Query(ctx, `SELECT chunks.id, `+score+` FROM chunks, to_tsquery('`+tsConfig+`', $1) AS q`+from+`
		WHERE chunks.project_id = $2 AND chunks.id = ANY($3) AND chunks.tsv @@ q AND `+visibleSQL(4), args...)
	if err != nil {
		return nil, sn.s.describe(fmt.Sprintf("lexical scores for %q in project %d", expr, projectID), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return nil, sn.s.describe("lexical scores", err)
		}
		out[id] = score
	}
	if err := rows.Err(); err != nil {
		return nil, sn.s.describe(fmt.Sprintf("lexical scores for %q in project %d", expr, projectID), err)
	}
	return out, nil
}

// LexicalLanguage returns the language the project's lexical index holds,
// as the snapshot sees it: queries must be analysed with it.
func (sn *Snapshot) LexicalLanguage(ctx context.Context, projectID int64) (string, error) {
	// The project's lexical generation comes in the same round trip, and
	// the vector coverage of the whole project (two index counts, 1 ms at
	// 10k chunks): a search asks for both next, and each round trip of a
	// loaded machine costs more (rank.go, VectorCoverage).
	//
	// The count of the chunks the owner may read is the ranking's N, kept
	// by the Store under the lexical generation it was counted in (rank.go):
	// under the same generation the same chunks are there to read (every
	// insert, delete and change of sharing bumps it), so it is counted
	// again only when the generation moved (an index-only scan of every
	// chunk of the project: 0.5-1.5 ms at 10k chunks).
	var cachedGen any // NULL: no generation cached, never equal
	var cachedN int64
	if g, n, ok := sn.s.stats.chunksOf(projectID); ok {
		cachedGen, cachedN = g, n
	}
	var setting, built, gen string
	var chunks, missing int64
	err := sn.tx.QueryRow(ctx, `SELECT language, lexical_language, g.gen,
		CASE WHEN g.gen = $3::text THEN $4::int8
			ELSE (SELECT count(*) FROM chunks WHERE chunks.project_id = $1 AND `+visibleSQL(2)+`) END,
		(SELECT count(*) FROM chunks WHERE chunks.project_id = $1 AND `+visibleSQL(2)+` AND chunks.embedding_space IS NULL)
		FROM projects, LATERAL (SELECT ragd_lexical_generation(projects.id) AS gen) g WHERE id = $1`, projectID, sn.s.owner, cachedGen, cachedN).
		Scan(&setting, &built, &gen, &chunks, &missing)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", sn.s.describe("lexical language", fmt.Errorf("project %d: %w", projectID, ragd.ErrNotFound))
	}
	if err != nil {
		return "", sn.s.describe("lexical language", fmt.Errorf("language of project %d: %w", projectID, err))
	}
	sn.setGeneration(projectID, gen)
	if cachedGen != gen {
		// The ranking's N of this generation (rankTerms reads it back).
		sn.s.stats.save(projectID, gen, &lexStats{chunks: chunks})
	}
	whole := ragd.Filter{ProjectID: projectID}
	sn.setSelected(whole, chunks)
	if sn.unembedded == nil {
		sn.unembedded = map[string]int64{}
	}
	sn.unembedded[filterKey(whole)] = missing
	return rules.InForce(setting, built), nil
}

// Chunks loads chunks by id from the snapshot, in the order given; unknown
// ids, and other owners' unshared session chunks, are left out.
func (sn *Snapshot) Chunks(ctx context.Context, ids []string) ([]ragd.Chunk, error) {
	out, err := sn.s.chunksByID(ctx, sn.tx, ids)
	if err != nil {
		return nil, sn.s.describe("snapshot chunks", err)
	}
	return out, nil
}

// VectorCoverage counts the chunks f selects (that the owner may read) and
// those of them with a vector.
func (sn *Snapshot) VectorCoverage(ctx context.Context, f ragd.Filter) (chunks, vectors int, err error) {
	where, args, err := sn.filterSQL(f)
	if err != nil {
		return 0, 0, fmt.Errorf("vector coverage: %w", err)
	}
	// Two counts the indexes answer: the chunks by an index-only scan of
	// chunks_visible, those without a vector through the partial index
	// chunks_without_vector (empty once every vector is written). One
	// count(embedding_space) read every row of the project instead: 16 ms
	// a search at 10k chunks (docs/engines.md).
	if n, ok := sn.unembedded[filterKey(f)]; ok {
		all := sn.selected[filterKey(f)]
		return int(all), int(all - n), nil
	}
	var missing int
	if err := sn.tx.QueryRow(ctx, "SELECT (SELECT count(*) FROM chunks WHERE "+where+"), (SELECT count(*) FROM chunks WHERE "+where+
		" AND chunks.embedding_space IS NULL)", args...).Scan(&chunks, &missing); err != nil {
		return 0, 0, sn.s.describe(fmt.Sprintf("vector coverage of project %d", f.ProjectID), err)
	}
	sn.setSelected(f, int64(chunks))
	return chunks, chunks - missing, nil
}

// filterKey names a filter's selection within a snapshot.
func filterKey(f ragd.Filter) string {
	return fmt.Sprint(f.ProjectID, f.Scopes)
}

func (sn *Snapshot) setSelected(f ragd.Filter, n int64) {
	if sn.selected == nil {
		sn.selected = map[string]int64{}
	}
	sn.selected[filterKey(f)] = n
}

// selectedChunks returns the chunks the filter (where, args) selects in
// the snapshot: VectorCoverage's count when it ran, else counted now.
func (sn *Snapshot) selectedChunks(ctx context.Context, f ragd.Filter, where string, args []any) (int64, error) {
	if n, ok := sn.selected[filterKey(f)]; ok {
		return n, nil
	}
	var n int64
	if err := sn.tx.QueryRow(ctx, "SELECT count(*) FROM chunks WHERE "+where, args...).Scan(&n); err != nil {
		return 0, sn.s.describe(fmt.Sprintf("chunks of project %d", f.ProjectID), err)
	}
	sn.setSelected(f, n)
	return n, nil
}

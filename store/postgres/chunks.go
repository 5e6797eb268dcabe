package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgvector/pgvector-go"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// visibleSQL keeps the chunks a store's owner may read: docs and ADRs are
// everyone's; a session chunk is its owner's, or everyone's when shared.
// Its one parameter is the owner.
func visibleSQL(owner int) string {
	return fmt.Sprintf("(chunks.scope <> 'session' OR chunks.owner = $%d OR chunks.shared)", owner)
}

// ownedSQL keeps the chunks a write of scope replaces: the whole docs or
// adr scope of the project (one for everybody), the owner's own session
// chunks.
func ownedSQL(owner int) string {
	return fmt.Sprintf("(chunks.scope <> 'session' OR chunks.owner = $%d)", owner)
}

// scopeOwner is the owner written on a chunk of scope: "" for the shared
// docs and ADRs.
func (s *Store) scopeOwner(scope string) string {
	if scope == ragd.ScopeSession {
		return s.owner
	}
	return ""
}

// LockScope takes the transaction-scoped advisory lock of one project's
// scope (of the owner's sessions, for the session scope): two writers of
// the same chunks, in two daemons, serialise on it, and a reader never
// waits for it. The keys are the project id and a hash of the scope and
// owner; a collision of two hashes only serialises more.
func LockScope(ctx context.Context, tx pgx.Tx, projectID int64, scope, owner string) error {
	key := scope
	if scope == ragd.ScopeSession {
		key += ":" + owner
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1::int4, hashtext($2))", int32(projectID), key); err != nil {
		return fmt.Errorf("lock %s of project %d: %w", scope, projectID, err)
	}
	return nil
}

// pgText makes s storable in a text column: PostgreSQL refuses NUL bytes
// and invalid UTF-8, which SQLite stores. Both become U+FFFD; the chunk's
// id and hash stay the caller's.
func pgText(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// headingJSON is a chunk's heading path as stored: a JSON array, [] for
// none.
func headingJSON(path []string) (string, error) {
	if path == nil {
		path = []string{}
	}
	clean := make([]string, len(path))
	for i, h := range path {
		clean[i] = pgText(h)
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return "", fmt.Errorf("heading path %q: %w", path, err)
	}
	return string(b), nil
}

// preparedChunk is one input chunk of ReplaceScope, checked and encoded.
type preparedChunk struct {
	in      *ragd.ChunkInput
	id      string
	title   string
	content string
	heading string
	vec     *pgvector.Vector // nil: none given
	doc     *analysedChunk   // nil until analysed
}

// storedChunk is what ReplaceScope needs of a chunk the scope holds.
type storedChunk struct {
	seq            int64
	vector         bool
	title, heading string
	event          string
}

// ReplaceScope makes the chunks of one project's scope exactly chunks, in
// one transaction: a reader sees the old scope or the new one, never a mix,
// and a failure (the connection lost included) leaves the old scope whole.
// The session scope is the owner's own sessions; in it the chunks of
// events that chunks does not mention but the log holds are kept (their
// events were appended after the caller read the log). Chunks whose id
// survives are updated in place, so their votes survive; the others are
// deleted with their votes, and the new ones inserted. Two ReplaceScope of
// one scope, from any daemon, serialise on the scope's advisory lock.
//
// The text is analysed in the transaction, once the stored chunks are
// read, for the language the project's index holds (decided before it by
// its first chunks), and only where a tsvector is written: the new chunks
// and the kept ones whose title or heading changed. A reindex keeps most
// chunks as they were, and analysing all of them was most of its time
// (10k kept chunks: 3.4 s of 5.1 s; docs/engines.md, branch pgq).
func (s *Store) ReplaceScope(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) (ragd.ReplaceResult, error) {
	var res ragd.ReplaceResult
	if !ragd.ValidScope(scope) {
		return res, fmt.Errorf("replace scope: unknown scope %q", scope)
	}
	what := fmt.Sprintf("replace %s of project %d", scope, projectID)
	items, seen, err := s.prepareChunks(projectID, scope, chunks)
	if err != nil {
		return res, fmt.Errorf("%s: %w", what, err)
	}
	lang, err := s.decideLanguage(ctx, projectID, chunks)
	if err != nil {
		return res, s.describe(what, err)
	}

	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return res, s.describe(what+": begin", err)
	}
	defer tx.Rollback(ctx)
	if err := LockScope(ctx, tx, projectID, scope, s.owner); err != nil {
		return res, s.describe(what, err)
	}
	if s.afterLock != nil {
		if err := s.afterLock(ctx, tx); err != nil {
			return res, err
		}
	}
	// The project's row, shared: SetLanguage and RemoveProject wait for
	// this write, and it for them.
	_, inTx, err := projectLanguages(ctx, tx, projectID, " FOR KEY SHARE")
	if err != nil {
		return res, s.describe(what, err)
	}
	if inTx != "" {
		lang = inTx // SetLanguage changed it meanwhile
	}
	old, err := s.readScopeChunks(ctx, tx, projectID, scope)
	if err != nil {
		return res, s.describe(what, err)
	}
	if err := analyseWritten(items, old, lang); err != nil {
		return res, fmt.Errorf("%s: %w", what, err)
	}
	gone, err := vanishedChunks(ctx, tx, projectID, scope, chunks, old, seen)
	if err != nil {
		return res, s.describe(what, err)
	}
	if res, err = s.applyReplace(ctx, tx, projectID, scope, items, old, gone); err != nil {
		return res, s.describe(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return ragd.ReplaceResult{}, s.describe(what+": commit", err)
	}
	return res, nil
}

// prepareChunks checks every chunk (fields, no duplicate), and computes its
// id, heading and vector, outside the transaction.
func (s *Store) prepareChunks(projectID int64, scope string, chunks []ragd.ChunkInput) ([]preparedChunk, map[string]bool, error) {
	items := make([]preparedChunk, len(chunks))
	seen := make(map[string]bool, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		if err := rules.ValidateChunk(c, scope); err != nil {
			return nil, nil, err
		}
		id := ragd.ChunkID(projectID, scope, c.Source(scope), c.Position, c.ContentHash)
		if seen[id] {
			return nil, nil, fmt.Errorf("duplicate chunk %s#%d", c.Source(scope), c.Position)
		}
		seen[id] = true
		heading, err := headingJSON(c.HeadingPath)
		if err != nil {
			return nil, nil, err
		}
		it := preparedChunk{in: c, id: id, title: pgText(c.Title), content: pgText(c.Content), heading: heading}
		if c.Vector != nil {
			v, err := s.vector(c.Vector)
			if err != nil {
				return nil, nil, fmt.Errorf("chunk %s#%d: %w", c.Source(scope), c.Position, err)
			}
			it.vec = &v
		}
		items[i] = it
	}
	return items, seen, nil
}

// analyseWritten analyses, for lang, the text of the items whose
// tsvector applyReplace writes: those not in old (every item when old is
// nil), and those whose title or heading differs from old's.
func analyseWritten(items []preparedChunk, old map[string]storedChunk, lang string) error {
	var a *lexical.Analyzer
	for i := range items {
		it := &items[i]
		if e, ok := old[it.id]; ok && e.title == it.title && e.heading == it.heading {
			continue
		}
		if a == nil {
			var err error
			if a, err = rules.AnalyzerFor(lang); err != nil {
				return fmt.Errorf("analyse for %q: %w", lang, err)
			}
		}
		d := analyseChunk(a, it.title, it.heading, it.content)
		it.doc = &d
	}
	return nil
}

// readScopeChunks reads the chunks a write of the project's scope
// replaces, by id.
func (s *Store) readScopeChunks(ctx context.Context, tx pgx.Tx, projectID int64, scope string) (map[string]storedChunk, error) {
	rows, err := tx.Query(ctx, `SELECT id, seq, embedding_space IS NOT NULL, title, heading_path, coalesce(event_id, '')
		FROM chunks WHERE project_id = $1 AND scope = $2 AND `+ownedSQL(3), projectID, scope, s.owner)
	if err != nil {
		return nil, fmt.Errorf("read old chunks: %w", err)
	}
	defer rows.Close()
	old := map[string]storedChunk{}
	for rows.Next() {
		var id string
		var e storedChunk
		if err := rows.Scan(&id, &e.seq, &e.vector, &e.title, &e.heading, &e.event); err != nil {
			return nil, fmt.Errorf("read old chunks: %w", err)
		}
		old[id] = e
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read old chunks: %w", err)
	}
	return old, nil
}

// vanishedChunks returns the seqs (ascending) of the stored chunks the
// replacement drops: those not in seen, less, in the session scope, the
// chunks of events the input does not mention that the log holds.
func vanishedChunks(ctx context.Context, tx pgx.Tx, projectID int64, scope string, chunks []ragd.ChunkInput,
	old map[string]storedChunk, seen map[string]bool) ([]int64, error) {
	var keepEvents map[string]bool
	if scope == ragd.ScopeSession {
		mentioned := make(map[string]bool, len(chunks))
		for i := range chunks {
			mentioned[chunks[i].EventID] = true
		}
		var ask []string
		asked := map[string]bool{}
		for id, e := range old {
			if !seen[id] && !mentioned[e.event] && !asked[e.event] {
				asked[e.event] = true
				ask = append(ask, e.event)
			}
		}
		keepEvents = map[string]bool{}
		if len(ask) > 0 {
			rows, err := tx.Query(ctx, "SELECT id FROM session_events WHERE project_id = $1 AND id = ANY($2)", projectID, ask)
			if err != nil {
				return nil, fmt.Errorf("look up appended events: %w", err)
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, fmt.Errorf("look up appended events: %w", err)
				}
				keepEvents[id] = true
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, fmt.Errorf("look up appended events: %w", err)
			}
		}
	}
	var gone []int64
	for id, e := range old {
		if seen[id] || keepEvents[e.event] {
			continue
		}
		gone = append(gone, e.seq)
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i] < gone[j] })
	return gone, nil
}

// updateTSVSQL rewrites the tsvector of a kept chunk whose title or
// heading changed (its text did not: the id holds the content's hash).
const updateTSVSQL = "UPDATE chunks SET tsv = %s WHERE seq = $4"

// updateChunksSQL updates the kept chunks of one write that come without
// a vector (as the indexer sends a chunk that has one),
// insertRowsPerStatement to a statement, from one array per column ($2
// to $7; $1 is the time every row shares): the columns a reindex may
// change, none of them indexed, so with room on the row's page (migration
// 0006's fillfactor) PostgreSQL updates the row in place, a HOT update,
// and writes no new entry in any index: a new entry in the HNSW graph
// costs milliseconds (docs/engines.md, branch pgq). The vector is not
// named: even set to itself (coalesce of no new one and the stored one),
// a vector of 768 dims, kept out of line, came back as a new value, and
// no update was in place (3,333 rows: 18.9 s, against 0.4 s without it).
// A statement for a thousand chunks, not one a chunk: each statement also
// runs the update trigger of migration 0005 over its rows.
const updateChunksSQL = `UPDATE chunks SET source_commit = u.source_commit, heading_path = u.heading_path, title = u.title,
		start_offset = u.start_offset, end_offset = u.end_offset, indexed_at = $1::timestamptz
	FROM unnest($2::int8[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int8[])
		AS u(seq, source_commit, heading_path, title, start_offset, end_offset)
	WHERE chunks.seq = u.seq`

// updateVectoredChunksSQL is updateChunksSQL for the kept chunks given a
// vector, written with its space ($8, the last array, and $9).
const updateVectoredChunksSQL = `UPDATE chunks SET source_commit = u.source_commit, heading_path = u.heading_path, title = u.title,
		start_offset = u.start_offset, end_offset = u.end_offset, indexed_at = $1::timestamptz,
		embedding = u.embedding, embedding_space = $9::text
	FROM unnest($2::int8[], $3::text[], $4::text[], $5::text[], $6::int8[], $7::int8[], $8::vector[])
		AS u(seq, source_commit, heading_path, title, start_offset, end_offset, embedding)
	WHERE chunks.seq = u.seq`

// keptChunkRows are the columns of updateChunksSQL's arrays (and
// updateVectoredChunksSQL's, with the vectors).
type keptChunkRows struct {
	seqs         []int64
	commits      []pgtype.Text
	headings     []string
	titles       []string
	starts, ends []int
	vectors      []*pgvector.Vector
}

func (r *keptChunkRows) add(seq int64, it preparedChunk) {
	r.seqs = append(r.seqs, seq)
	r.commits = append(r.commits, nullText(it.in.SourceCommit))
	r.headings = append(r.headings, it.heading)
	r.titles = append(r.titles, it.title)
	r.starts = append(r.starts, it.in.Start)
	r.ends = append(r.ends, it.in.End)
	if it.vec != nil {
		r.vectors = append(r.vectors, it.vec)
	}
}

// queue queues the update of r's chunks on b, with what it writes.
func (r *keptChunkRows) queue(b *pgx.Batch, stamp time.Time, space string) {
	args := []any{stamp, r.seqs, r.commits, r.headings, r.titles, r.starts, r.ends}
	if len(r.vectors) > 0 {
		b.Queue(updateVectoredChunksSQL, append(args, r.vectors, space)...)
		return
	}
	b.Queue(updateChunksSQL, args...)
}

// insertChunksSQL inserts the new chunks of one write in one statement,
// from one array per column ($7 to $22; $1 to $6 are the project, scope,
// owner, sharing, embedding space and time every row shares, the space
// written where a vector is), in the arrays' order: the chunks take their seqs
// (the ranking's order of equal scores) in the order given, as one
// INSERT per chunk gave them. One statement for a thousand rows rather
// than one a row: a write of 3,333 chunks sent 3,333 statements, each
// bound and executed with its three to_tsvector calls and its statement
// trigger (migration 0005); BenchmarkReplaceScopeNew writes 1.25 times as
// many chunks a second so (docs/engines.md, "Writes in one statement").
// The HNSW and GIN indexes' inserts, row by row either way, are most of
// what is left.
var insertChunksSQL = `INSERT INTO chunks (id, project_id, scope, source_path, source_commit, session_id, event_id, owner, shared,
		heading_path, title, position, start_offset, end_offset, content, content_hash, embedding, embedding_space, indexed_at, tsv)
	SELECT u.id, $1::int8, $2::text, u.source_path, u.source_commit, u.session_id, u.event_id, $3::text, $4::bool,
		u.heading_path, u.title, u.position, u.start_offset, u.end_offset, u.content, u.content_hash,
		u.embedding, CASE WHEN u.embedding IS NULL THEN NULL ELSE $5::text END, $6::timestamptz, ` + tsvOf("u.tsv_title", "u.tsv_heading", "u.tsv_content") + `
	FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::int8[], $15::int8[],
		$16::int8[], $17::text[], $18::text[], $19::vector[], $20::text[], $21::text[], $22::text[])
		WITH ORDINALITY AS u(id, source_path, source_commit, session_id, event_id, heading_path, title, position, start_offset,
		end_offset, content, content_hash, embedding, tsv_title, tsv_heading, tsv_content, n)
	ORDER BY u.n`

// insertRowsPerStatement bounds the rows of one insertChunksSQL (and of
// one updateChunksSQL): the statement's arrays are held whole in the
// client's and the server's memory (about 6 kB a chunk of 768 dims: text,
// analysed text, vector), so a scope of 100k chunks goes in statements of
// a few MB each, all in the same round trip.
const insertRowsPerStatement = 1000

// newChunkRows are the columns of insertChunksSQL's arrays.
type newChunkRows struct {
	ids, headings, titles, contents, hashes []string
	paths, commits, sessions, events        []pgtype.Text
	positions, starts, ends                 []int // int8 arrays: the server refuses what the column cannot hold
	vectors                                 []*pgvector.Vector
	tsvTitles, tsvHeadings, tsvContents     []string
}

func (r *newChunkRows) add(it preparedChunk) {
	c := it.in
	r.ids = append(r.ids, it.id)
	r.paths = append(r.paths, nullText(c.SourcePath))
	r.commits = append(r.commits, nullText(c.SourceCommit))
	r.sessions = append(r.sessions, nullText(c.SessionID))
	r.events = append(r.events, nullText(c.EventID))
	r.headings = append(r.headings, it.heading)
	r.titles = append(r.titles, it.title)
	r.positions = append(r.positions, c.Position)
	r.starts = append(r.starts, c.Start)
	r.ends = append(r.ends, c.End)
	r.contents = append(r.contents, it.content)
	r.hashes = append(r.hashes, c.ContentHash)
	r.vectors = append(r.vectors, it.vec)
	r.tsvTitles = append(r.tsvTitles, it.doc.title)
	r.tsvHeadings = append(r.tsvHeadings, it.doc.heading)
	r.tsvContents = append(r.tsvContents, it.doc.content)
}

func (r *newChunkRows) args() []any {
	return []any{r.ids, r.paths, r.commits, r.sessions, r.events, r.headings, r.titles, r.positions, r.starts, r.ends,
		r.contents, r.hashes, r.vectors, r.tsvTitles, r.tsvHeadings, r.tsvContents}
}

// nullText is s as a text value, NULL when "".
func nullText(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

// applyReplace writes the replacement in tx, in one round trip: the
// vanished chunks deleted first (their votes and marks follow by cascade),
// then each chunk updated in place (its id survives), then the new ones
// inserted, insertRowsPerStatement to a statement, in their order.
func (s *Store) applyReplace(ctx context.Context, tx pgx.Tx, projectID int64, scope string, items []preparedChunk,
	old map[string]storedChunk, gone []int64) (ragd.ReplaceResult, error) {
	var res ragd.ReplaceResult
	b := &pgx.Batch{}
	if len(gone) > 0 {
		b.Queue("DELETE FROM chunks WHERE seq = ANY($1)", gone)
	}
	res.Deleted = len(gone)
	stamp := nowUTC()
	owner, shared := s.scopeOwner(scope), scope == ragd.ScopeSession && s.share
	update := fmt.Sprintf(updateTSVSQL, tsvSQL(1, 2, 3))
	var what []string // what each queued statement writes, for its error
	if len(gone) > 0 {
		what = append(what, fmt.Sprintf("delete %d vanished chunks", len(gone)))
	}
	var rows []newChunkRows
	var kept, vectored []keptChunkRows
	for _, it := range items {
		c := it.in
		if e, ok := old[it.id]; ok {
			to := &kept
			if it.vec != nil {
				to = &vectored
			}
			if len(*to) == 0 || len((*to)[len(*to)-1].seqs) == insertRowsPerStatement {
				*to = append(*to, keptChunkRows{})
			}
			(*to)[len(*to)-1].add(e.seq, it)
			if e.title != it.title || e.heading != it.heading {
				// Same text under another title or heading: its tsv changes.
				b.Queue(update, it.doc.title, it.doc.heading, it.doc.content, e.seq)
				what = append(what, fmt.Sprintf("update lexical index of chunk %s#%d", c.Source(scope), c.Position))
			}
			if e.vector || it.vec != nil {
				res.Vectors++
			}
			res.Kept++
			continue
		}
		if it.vec != nil {
			res.Vectors++
		}
		if len(rows) == 0 || len(rows[len(rows)-1].ids) == insertRowsPerStatement {
			rows = append(rows, newChunkRows{})
		}
		rows[len(rows)-1].add(it)
		res.Inserted++
	}
	updated := 0
	for _, group := range [][]keptChunkRows{kept, vectored} {
		for i := range group {
			r := &group[i]
			r.queue(b, stamp, s.space)
			what = append(what, fmt.Sprintf("update chunks %d to %d of %d kept", updated+1, updated+len(r.seqs), res.Kept))
			updated += len(r.seqs)
		}
	}
	inserted := 0
	for i := range rows {
		r := &rows[i]
		b.Queue(insertChunksSQL, append([]any{projectID, scope, owner, shared, s.space, stamp}, r.args()...)...)
		what = append(what, fmt.Sprintf("insert chunks %d to %d of %d new", inserted+1, inserted+len(r.ids), res.Inserted))
		inserted += len(r.ids)
	}
	if err := runBatch(ctx, tx, b, what); err != nil {
		return ragd.ReplaceResult{}, err
	}
	return res, nil
}

// runBatch sends b in one round trip and reads every result, naming the
// statement that failed by what.
func runBatch(ctx context.Context, tx pgx.Tx, b *pgx.Batch, what []string) error {
	if b.Len() == 0 {
		return nil
	}
	br := tx.SendBatch(ctx, b)
	for i := 0; i < b.Len(); i++ {
		if _, err := br.Exec(); err != nil {
			br.Close()
			name := "statement"
			if i < len(what) {
				name = what[i]
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return br.Close()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

const chunkColumns = `chunks.id, chunks.project_id, chunks.scope, coalesce(chunks.source_path, ''), coalesce(chunks.source_commit, ''),
	coalesce(chunks.session_id, ''), coalesce(chunks.event_id, ''), chunks.heading_path, chunks.title, chunks.position,
	chunks.start_offset, chunks.end_offset, chunks.content, chunks.content_hash, coalesce(chunks.embedding_space, ''), chunks.indexed_at`

func scanChunk(r pgx.Row) (ragd.Chunk, error) {
	var indexed time.Time
	c, err := rules.ScanChunk(r, &indexed)
	c.IndexedAt = indexed.UTC()
	return c, err
}

// collectChunks reads every row of a chunks query.
func collectChunks(rows pgx.Rows) ([]ragd.Chunk, error) {
	defer rows.Close()
	var out []ragd.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// chunksByID loads the chunks with the given ids the owner may read, in
// the order of ids; ids that do not exist (or are another owner's
// unshared session chunks) are left out.
func (s *Store) chunksByID(ctx context.Context, q querier, ids []string) ([]ragd.Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, "SELECT "+chunkColumns+" FROM chunks WHERE id = ANY($1) AND "+visibleSQL(2), ids, s.owner)
	if err != nil {
		return nil, fmt.Errorf("load %d chunks: %w", len(ids), err)
	}
	got, err := collectChunks(rows)
	if err != nil {
		return nil, fmt.Errorf("load %d chunks: %w", len(ids), err)
	}
	byID := make(map[string]ragd.Chunk, len(got))
	for _, c := range got {
		byID[c.ID] = c
	}
	out := make([]ragd.Chunk, 0, len(got))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
			delete(byID, id) // an id asked twice comes once
		}
	}
	return out, nil
}

// Chunks loads chunks by id, in the order given; unknown ids, and other
// owners' unshared session chunks, are left out.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]ragd.Chunk, error) {
	out, err := s.chunksByID(ctx, s.pool, ids)
	if err != nil {
		return nil, s.describe("chunks", err)
	}
	return out, nil
}

// ScopeChunks lists one scope's chunks of a project that the owner may
// read, ordered by source and position.
func (s *Store) ScopeChunks(ctx context.Context, projectID int64, scope string) ([]ragd.Chunk, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+chunkColumns+` FROM chunks WHERE project_id = $1 AND scope = $2 AND `+visibleSQL(3)+`
		ORDER BY coalesce(source_path, ''), coalesce(session_id, ''), coalesce(event_id, ''), position`, projectID, scope, s.owner)
	if err != nil {
		return nil, s.describe(fmt.Sprintf("list %s chunks of project %d", scope, projectID), err)
	}
	out, err := collectChunks(rows)
	if err != nil {
		return nil, s.describe(fmt.Sprintf("list %s chunks of project %d", scope, projectID), err)
	}
	return out, nil
}

// notUnembeddable leaves out the chunks the store's space refused for
// good; its one parameter is the space.
func notUnembeddable(space int) string {
	return fmt.Sprintf(`NOT EXISTS (SELECT 1 FROM unembeddable_chunks u
	WHERE u.chunk_seq = chunks.seq AND u.embedding_space = $%d AND u.content_hash = chunks.content_hash)`, space)
}

// ChunkStates maps the id of each chunk a write of the project's scope
// replaces to its state, so that a reindex asks the embedder only for the
// chunks that are new or still lack a vector.
func (s *Store) ChunkStates(ctx context.Context, projectID int64, scope string) (map[string]ragd.ChunkState, error) {
	what := fmt.Sprintf("chunk states of %s, project %d", scope, projectID)
	rows, err := s.pool.Query(ctx, `SELECT id, embedding_space IS NOT NULL, embedding_space IS NULL AND NOT `+notUnembeddable(1)+`,
		coalesce(source_commit, ''), heading_path, title, start_offset, end_offset FROM chunks
		WHERE project_id = $2 AND scope = $3 AND `+ownedSQL(4), s.space, projectID, scope, s.owner)
	if err != nil {
		return nil, s.describe(what, err)
	}
	defer rows.Close()
	out, err := rules.ReadChunkStates(rows)
	if err != nil {
		return nil, s.describe(what, err)
	}
	return out, nil
}

// ScopeStats counts the chunks of a project's scope the owner may read, by
// source.
func (s *Store) ScopeStats(ctx context.Context, projectID int64, scope string) (ragd.ScopeStats, error) {
	st := ragd.ScopeStats{Sources: map[string]int{}, Unembeddable: map[string]int{}}
	if !ragd.ValidScope(scope) {
		return st, fmt.Errorf("scope stats: unknown scope %q", scope)
	}
	what := fmt.Sprintf("%s stats of project %d", scope, projectID)
	rows, err := s.pool.Query(ctx, `SELECT coalesce(source_path, session_id, ''), count(*), count(*) - count(embedding_space)
		FROM chunks WHERE project_id = $1 AND scope = $2 AND `+visibleSQL(3)+` GROUP BY 1`, projectID, scope, s.owner)
	if err != nil {
		return st, s.describe(what, err)
	}
	for rows.Next() {
		var src string
		var n, lex int
		if err := rows.Scan(&src, &n, &lex); err != nil {
			rows.Close()
			return st, s.describe(what, err)
		}
		st.Sources[src] = n
		st.Chunks += n
		st.LexicalOnly += lex
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, s.describe(what, err)
	}
	rows, err = s.pool.Query(ctx, `SELECT u.reason, count(*) FROM unembeddable_chunks u JOIN chunks ON chunks.seq = u.chunk_seq
		WHERE chunks.project_id = $1 AND chunks.scope = $2 AND chunks.embedding_space IS NULL AND u.embedding_space = $3
		AND u.content_hash = chunks.content_hash AND `+visibleSQL(4)+` GROUP BY u.reason`, projectID, scope, s.space, s.owner)
	if err != nil {
		return st, s.describe(what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var reason string
		var n int
		if err := rows.Scan(&reason, &n); err != nil {
			return st, s.describe(what, err)
		}
		st.Unembeddable[reason] = n
	}
	if err := rows.Err(); err != nil {
		return st, s.describe(what, err)
	}
	return st, nil
}

// errNoRows reports whether err is pgx's no-rows error.
func errNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

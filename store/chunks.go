package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// ReplaceScope makes the chunks of one project's scope exactly chunks, in one
// transaction: a reader sees the old scope or the new one, never a mix, and a
// failure leaves the old scope whole. In the session scope, the chunks of
// events that chunks does not mention but the log holds are kept: their
// events were appended, with their chunks, after the caller read the log
// (see AppendSession). Chunks whose id survives (same source,
// position and content) are updated in place, so their votes survive; the
// others are deleted with their votes, and the new ones inserted.
//
// Callers compute embeddings before calling: no provider call ever runs
// inside the write transaction.
//
// It runs in three steps: prepare (check and encode the input, analyse its
// text, all outside the transaction), read what exists (the scope's
// stored chunks, and those that vanish), and apply (delete, update, insert,
// commit).
func (s *Store) ReplaceScope(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) (ragd.ReplaceResult, error) {
	var res ragd.ReplaceResult
	if !ragd.ValidScope(scope) {
		return res, fmt.Errorf("replace scope: unknown scope %q", scope)
	}
	rp, err := s.prepareReplace(ctx, projectID, scope, chunks)
	if err != nil {
		return res, fmt.Errorf("replace %s: %w", scope, err)
	}

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("replace %s: begin: %w", scope, err)
	}
	defer tx.Rollback()
	old, err := readScopeChunks(ctx, tx, projectID, scope)
	if err != nil {
		return res, fmt.Errorf("replace %s: %w", scope, err)
	}
	gone, goneIDs, err := vanishedChunks(ctx, tx, projectID, scope, chunks, old, rp.seen)
	if err != nil {
		return res, fmt.Errorf("replace %s: %w", scope, err)
	}
	res, err = s.applyReplace(ctx, tx, rp, old, gone)
	if err != nil {
		return res, fmt.Errorf("replace %s: %w", scope, err)
	}
	// Votes go with their chunks. They live in the telemetry file, so this is
	// a second transaction: should it fail (or the process die first), the
	// orphans are dropped at the next Open.
	if err := s.dropVotes(ctx, goneIDs); err != nil {
		s.logger.Warn("drop votes of replaced chunks (retried at next open)", "err", err)
	}
	return res, nil
}

// preparedChunk is one input chunk of ReplaceScope, checked and encoded.
type preparedChunk struct {
	in      *ragd.ChunkInput
	id      string
	heading string
	vec     []byte
}

// replacement is ReplaceScope's input made ready outside the transaction.
type replacement struct {
	projectID int64
	scope     string
	chunks    []ragd.ChunkInput
	items     []preparedChunk
	// seen holds the ids of items.
	seen map[string]bool
	// guess is the language docs were analysed for, docs[i] item i's
	// lexical row (nil when the stored one stays, or to analyse in the
	// transaction).
	guess string
	docs  []*lexicalDoc
}

// prepareReplace checks every chunk (fields, no duplicate), computes its id,
// heading and vector encoding, and analyses the text outside the write
// transaction, for the language the table has or would take now: only
// the chunks that need a lexical row written, as the stored ones were
// when read.
func (s *Store) prepareReplace(ctx context.Context, projectID int64, scope string, chunks []ragd.ChunkInput) (*replacement, error) {
	rp := &replacement{projectID: projectID, scope: scope, chunks: chunks,
		items: make([]preparedChunk, len(chunks)), seen: make(map[string]bool, len(chunks))}
	for i := range chunks {
		c := &chunks[i]
		if err := rules.ValidateChunk(c, scope); err != nil {
			return nil, err
		}
		id := ragd.ChunkID(projectID, scope, c.Source(scope), c.Position, c.ContentHash)
		if rp.seen[id] {
			return nil, fmt.Errorf("duplicate chunk %s#%d", c.Source(scope), c.Position)
		}
		rp.seen[id] = true
		heading, err := headingJSON(c.HeadingPath)
		if err != nil {
			return nil, err
		}
		var vec []byte
		if c.Vector != nil {
			if vec, err = s.encodeVector(c.Vector); err != nil {
				return nil, fmt.Errorf("chunk %s#%d: %w", c.Source(scope), c.Position, err)
			}
		}
		rp.items[i] = preparedChunk{in: c, id: id, heading: heading, vec: vec}
	}

	guess, _, err := s.writeLanguage(ctx, s.rdb, projectID, chunks)
	if err != nil {
		return nil, err
	}
	stored, err := lexicalStates(ctx, s.rdb, projectID, scope)
	if err != nil {
		return nil, err
	}
	rp.guess, rp.docs = guess, make([]*lexicalDoc, len(rp.items))
	if a, err := rules.AnalyzerFor(guess); err == nil {
		for i, it := range rp.items {
			if old, ok := stored[it.id]; !ok || old.title != it.in.Title || old.heading != it.heading {
				d := analyseChunk(a, it.in.Title, it.heading, it.in.Content)
				rp.docs[i] = &d
			}
		}
	}
	return rp, nil
}

// storedChunk is what ReplaceScope needs of a chunk the scope holds.
type storedChunk struct {
	seq     int64
	vector  bool
	lexical lexicalState
	event   string
}

// readScopeChunks reads the chunks a project's scope holds, by id.
func readScopeChunks(ctx context.Context, tx *sql.Tx, projectID int64, scope string) (map[string]storedChunk, error) {
	old := map[string]storedChunk{}
	rows, err := tx.QueryContext(ctx, "SELECT id, seq, embedding_space IS NOT NULL, title, heading_path, coalesce(event_id, '') FROM chunks WHERE project_id = ? AND scope = ?", projectID, scope)
	if err != nil {
		return nil, fmt.Errorf("read old chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var e storedChunk
		if err := rows.Scan(&id, &e.seq, &e.vector, &e.lexical.title, &e.lexical.heading, &e.event); err != nil {
			return nil, fmt.Errorf("read old chunks: %w", err)
		}
		old[id] = e
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read old chunks: %w", err)
	}
	return old, nil
}

// vanishedChunks returns the stored chunks the replacement drops, by seq
// (ascending) and by id: those not in seen, less, in the session scope, the
// chunks of events appended after the caller read the log.
func vanishedChunks(ctx context.Context, tx *sql.Tx, projectID int64, scope string, chunks []ragd.ChunkInput,
	old map[string]storedChunk, seen map[string]bool) (gone []int64, goneIDs []string, err error) {
	var keep *appendedKeeper
	if scope == ragd.ScopeSession {
		if keep, err = newAppendedKeeper(ctx, tx, projectID, chunks); err != nil {
			return nil, nil, err
		}
		defer keep.Close()
	}
	for id, e := range old {
		if seen[id] {
			continue
		}
		if keep != nil {
			if k, err := keep.keeps(ctx, e.event); err != nil {
				return nil, nil, err
			} else if k {
				continue
			}
		}
		gone = append(gone, e.seq)
		goneIDs = append(goneIDs, id)
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i] < gone[j] })
	return gone, goneIDs, nil
}

// applyReplace writes the replacement in tx and commits: the vanished
// chunks deleted first, with their vectors and votes, then each chunk
// updated in place (its id survives) or inserted, with its vector and
// lexical row; the project's language recorded when this write decides it.
func (s *Store) applyReplace(ctx context.Context, tx *sql.Tx, rp *replacement, old map[string]storedChunk, gone []int64) (ragd.ReplaceResult, error) {
	var res ragd.ReplaceResult
	projectID, scope := rp.projectID, rp.scope
	// The language, again in the transaction: the first write to a
	// project decides it, and the table holds one language only.
	lang, decide, err := s.writeLanguage(ctx, tx, projectID, rp.chunks)
	if err != nil {
		return res, err
	}
	var analyser *lexical.Analyzer
	if lang != "" {
		if analyser, err = rules.AnalyzerFor(lang); err != nil {
			return res, fmt.Errorf("project %d: %w", projectID, err)
		}
		if lang != rp.guess {
			clear(rp.docs) // analysed for another language: redo in here
		}
	}
	docOf := func(i int) lexicalDoc {
		if rp.docs[i] == nil {
			it := rp.items[i]
			d := analyseChunk(analyser, it.in.Title, it.heading, it.in.Content)
			rp.docs[i] = &d
		}
		return *rp.docs[i]
	}

	ops := make([]codeOp, 0, len(gone)+len(rp.items))
	for _, seq := range gone {
		ops = append(ops, codeOp{seq: seq})
	}
	if err := deleteChunks(ctx, tx, projectID, analyser, gone); err != nil {
		return res, err
	}
	res.Deleted = len(gone)

	w, err := newReplaceWriter(ctx, tx, projectID)
	if err != nil {
		return res, err
	}
	defer w.Close()
	stamp := now()
	for n, it := range rp.items {
		c := it.in
		var seq int64
		if e, ok := old[it.id]; ok {
			seq = e.seq
			if _, err := w.update.ExecContext(ctx, nullable(c.SourceCommit), it.heading, c.Title, c.Start, c.End,
				it.vec != nil, s.space, stamp, seq); err != nil {
				return res, fmt.Errorf("update chunk %s#%d: %w", c.Source(scope), c.Position, err)
			}
			if it.vec != nil && e.vector {
				if _, err := w.delVec.ExecContext(ctx, seq); err != nil {
					return res, fmt.Errorf("replace vector of %s#%d: %w", c.Source(scope), c.Position, err)
				}
			}
			if e.lexical.title != c.Title || e.lexical.heading != it.heading {
				// Same text under another title or heading: its row changes.
				if err := w.lexical.delete(ctx, seq, analyseChunk(analyser, e.lexical.title, e.lexical.heading, c.Content)); err != nil {
					return res, fmt.Errorf("chunk %s#%d: %w", c.Source(scope), c.Position, err)
				}
				if err := w.lexical.insert(ctx, seq, docOf(n)); err != nil {
					return res, fmt.Errorf("chunk %s#%d: %w", c.Source(scope), c.Position, err)
				}
			}
			if e.vector || it.vec != nil {
				res.Vectors++
			}
			res.Kept++
		} else {
			var space any
			if it.vec != nil {
				space = s.space
			}
			r, err := w.insert.ExecContext(ctx, it.id, projectID, scope, nullable(c.SourcePath), nullable(c.SourceCommit),
				nullable(c.SessionID), nullable(c.EventID), it.heading, c.Title, c.Position, c.Start, c.End,
				c.Content, c.ContentHash, space, stamp)
			if err != nil {
				return res, fmt.Errorf("insert chunk %s#%d: %w", c.Source(scope), c.Position, err)
			}
			if seq, err = r.LastInsertId(); err != nil {
				return res, fmt.Errorf("insert chunk %s#%d: %w", c.Source(scope), c.Position, err)
			}
			if err := w.lexical.insert(ctx, seq, docOf(n)); err != nil {
				return res, fmt.Errorf("chunk %s#%d: %w", c.Source(scope), c.Position, err)
			}
			if it.vec != nil {
				res.Vectors++
			}
			res.Inserted++
		}
		if it.vec != nil {
			if _, err := w.insVec.ExecContext(ctx, seq, projectID, scope, it.vec); err != nil {
				return res, fmt.Errorf("insert vector of %s#%d: %w", c.Source(scope), c.Position, err)
			}
			if _, err := w.insFloats.ExecContext(ctx, seq, it.vec); err != nil {
				return res, fmt.Errorf("insert floats of %s#%d: %w", c.Source(scope), c.Position, err)
			}
			if s.codes != nil {
				ops = append(ops, codeOp{seq: seq, project: projectID, scope: scopeIndex(scope), code: codeOfBlob(it.vec, s.codes.words)})
			}
		}
		if s.failAfterInsert != nil {
			if err := s.failAfterInsert(n); err != nil {
				return res, err
			}
		}
	}
	if err := w.lexical.flush(ctx); err != nil {
		return res, err
	}
	if decide {
		if err := recordLanguage(ctx, tx, projectID, lang); err != nil {
			return res, err
		}
	}
	if err := s.commitVectors(tx, ops); err != nil {
		return res, fmt.Errorf("commit: %w", err)
	}
	if decide {
		s.projects.forget() // the project's language in force changed
	}
	return res, nil
}

// replaceWriter holds the statements ReplaceScope writes a scope with.
type replaceWriter struct {
	insert, update, delVec, insVec, insFloats *sql.Stmt
	lexical                                   *lexicalWriter
}

func newReplaceWriter(ctx context.Context, tx *sql.Tx, projectID int64) (*replaceWriter, error) {
	w := &replaceWriter{}
	var err error
	for _, st := range []struct {
		dst  **sql.Stmt
		what string
		sql  string
	}{
		{&w.insert, "insert", `INSERT INTO chunks (id, project_id, scope, source_path, source_commit, session_id, event_id,
		heading_path, title, position, start_offset, end_offset, content, content_hash, embedding_space, indexed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.update, "update", `UPDATE chunks SET source_commit = ?, heading_path = ?, title = ?,
		start_offset = ?, end_offset = ?, embedding_space = CASE WHEN ? THEN ? ELSE embedding_space END, indexed_at = ?
		WHERE seq = ?`},
		{&w.delVec, "vector delete", "DELETE FROM chunk_vectors WHERE chunk_seq = ?"},
		{&w.insVec, "vector insert", "INSERT INTO chunk_vectors (chunk_seq, project_id, scope, embedding) VALUES (?, ?, ?, ?)"},
		{&w.insFloats, "floats insert", insertFloatsSQL},
	} {
		if *st.dst, err = tx.PrepareContext(ctx, st.sql); err != nil {
			w.Close()
			return nil, fmt.Errorf("prepare %s: %w", st.what, err)
		}
	}
	if w.lexical, err = newLexicalWriter(ctx, tx, projectID); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Close closes the statements prepared.
func (w *replaceWriter) Close() {
	for _, st := range []*sql.Stmt{w.insert, w.update, w.delVec, w.insVec, w.insFloats} {
		if st != nil {
			st.Close()
		}
	}
	if w.lexical != nil {
		w.lexical.Close()
	}
}

// deleteChunks removes a project's chunks by seq with their vectors and
// lexical rows; the votes follow by cascade. a is the analyser of the
// project's lexical table (nil when no chunk was ever written): the
// words of the rows deleted lose a row each in the counts the bounds
// table keeps.
func deleteChunks(ctx context.Context, tx *sql.Tx, projectID int64, a *lexical.Analyzer, seqs []int64) error {
	var bounds *boundsWriter
	if keepBounds && a != nil && len(seqs) > 0 {
		var err error
		if bounds, err = newBoundsWriter(ctx, tx, projectID); err != nil {
			return err
		}
		defer bounds.Close()
	}
	const batch = 500
	for len(seqs) > 0 {
		n := min(batch, len(seqs))
		list := joinInts(seqs[:n])
		if bounds != nil && bounds.counts {
			rows, err := tx.QueryContext(ctx, "SELECT seq, title, heading_path, content FROM chunks WHERE seq IN ("+list+")")
			if err != nil {
				return fmt.Errorf("read the deleted chunks: %w", err)
			}
			texts, err := rules.ReadTexts(rows)
			rows.Close()
			if err != nil {
				return fmt.Errorf("read the deleted chunks: %w", err)
			}
			for _, t := range texts {
				if err := bounds.remove(ctx, t.Seq, analyseChunk(a, t.Title, t.Heading, t.Content)); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+lexicalTable(projectID)+" WHERE rowid IN ("+list+")"); err != nil {
			return fmt.Errorf("delete lexical rows: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM chunk_vectors WHERE chunk_seq IN ("+list+")"); err != nil {
			return fmt.Errorf("delete vectors: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM chunks WHERE seq IN ("+list+")"); err != nil {
			return fmt.Errorf("delete chunks: %w", err)
		}
		seqs = seqs[n:]
	}
	return bounds.flush(ctx)
}

// joinInts renders integers for an IN list; integers need no quoting.
// headingJSON is a chunk's heading path as stored: a JSON array, [] for
// none.
func headingJSON(path []string) (string, error) {
	if path == nil {
		path = []string{}
	}
	b, err := json.Marshal(path)
	if err != nil {
		return "", fmt.Errorf("heading path %q: %w", path, err)
	}
	return string(b), nil
}

func joinInts(xs []int64) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(x, 10))
	}
	return b.String()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// queryer is what *sql.DB and *sql.Tx have in common for reads.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const chunkColumns = `id, project_id, scope, coalesce(source_path, ''), coalesce(source_commit, ''),
	coalesce(session_id, ''), coalesce(event_id, ''), heading_path, title, position, start_offset, end_offset,
	content, content_hash, coalesce(embedding_space, ''), indexed_at`

func scanChunk(r scanner) (ragd.Chunk, error) {
	var indexed string
	c, err := rules.ScanChunk(r, &indexed)
	c.IndexedAt = parseTime(indexed)
	return c, err
}

// chunksByID loads the chunks with the given ids, in the order of ids; ids
// that do not exist are left out.
func chunksByID(ctx context.Context, q queryer, ids []string) ([]ragd.Chunk, error) {
	byID := make(map[string]ragd.Chunk, len(ids))
	const batch = 500
	for start := 0; start < len(ids); start += batch {
		part := ids[start:min(start+batch, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := q.QueryContext(ctx, "SELECT "+chunkColumns+" FROM chunks WHERE id IN ("+placeholders(len(part))+")", args...)
		if err != nil {
			return nil, fmt.Errorf("load chunks: %w", err)
		}
		for rows.Next() {
			c, err := scanChunk(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("load chunks: %w", err)
			}
			byID[c.ID] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("load chunks: %w", err)
		}
	}
	out := make([]ragd.Chunk, 0, len(byID))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// Chunks loads chunks by id, in the order given; unknown ids are left out.
func (s *Store) Chunks(ctx context.Context, ids []string) ([]ragd.Chunk, error) {
	return chunksByID(ctx, s.rdb, ids)
}

// ScopeChunks lists one scope's chunks of a project, ordered by source and
// position.
func (s *Store) ScopeChunks(ctx context.Context, projectID int64, scope string) ([]ragd.Chunk, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT "+chunkColumns+` FROM chunks WHERE project_id = ? AND scope = ?
		ORDER BY coalesce(source_path, ''), coalesce(session_id, ''), coalesce(event_id, ''), position`, projectID, scope)
	if err != nil {
		return nil, fmt.Errorf("list %s chunks: %w", scope, err)
	}
	defer rows.Close()
	var out []ragd.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, fmt.Errorf("list %s chunks: %w", scope, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?,", n-1) + "?"
}

package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// RewriteSessions rewrites, in place, the session text the store's owner
// has in project projectID: its events' text and payloads, its sessions'
// titles, the content and titles of its session chunks with their
// lexical column, and its transcript checkpoints, in one transaction.
// Another owner's sessions are theirs, shared or not. A chunk keeps its id
// and its vector; its content hash follows its content. Running it again
// with the same rewriter changes nothing.
//
// As with ForgetSession, the old text may survive in the server's pages
// until a VACUUM reuses them, and in its write-ahead log and backups.
func (s *Store) RewriteSessions(ctx context.Context, projectID int64, rw ragd.Rewriter) (ragd.RewriteResult, error) {
	var res ragd.RewriteResult
	what := fmt.Sprintf("rewrite the sessions of project %d", projectID)
	fail := func(step string, err error) (ragd.RewriteResult, error) {
		return ragd.RewriteResult{}, s.describe(what+": "+step, err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fail("begin", err)
	}
	defer tx.Rollback(ctx)
	// The owner's session scope, as a reindex of it takes it, and the
	// project's row (SetLanguage waits).
	if err := LockScope(ctx, tx, projectID, ragd.ScopeSession, s.owner); err != nil {
		return fail("lock", err)
	}
	_, lang, err := projectLanguages(ctx, tx, projectID, " FOR KEY SHARE")
	if err != nil {
		return fail("project", err)
	}

	// Events.
	type eventRow struct {
		seq     int64
		text    string
		payload *string
	}
	rows, err := tx.Query(ctx, `SELECT seq, text, payload FROM session_events WHERE project_id = $1 AND owner = $2 ORDER BY seq`,
		projectID, s.owner)
	if err != nil {
		return fail("read events", err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (eventRow, error) {
		var e eventRow
		err := r.Scan(&e.seq, &e.text, &e.payload)
		return e, err
	})
	if err != nil {
		return fail("read events", err)
	}
	var seqs []int64
	var texts []string
	var payloads []*string
	for _, r := range all {
		text := pgText(rw.Text(r.text, true))
		payload, changed := r.payload, false
		if payload != nil {
			p := pgText(string(rw.JSON([]byte(*payload))))
			payload, changed = &p, p != *r.payload
		}
		if text != r.text || changed {
			seqs, texts, payloads = append(seqs, r.seq), append(texts, text), append(payloads, payload)
		}
	}
	if len(seqs) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE session_events e SET text = u.text, payload = u.payload
			FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(seq, text, payload) WHERE e.seq = u.seq`,
			seqs, texts, payloads); err != nil {
			return fail("update events", err)
		}
	}
	res.Events = len(seqs)

	// Session titles.
	if res.Sessions, err = rewriteColumn(ctx, tx, `SELECT id, title FROM sessions WHERE project_id = $1 AND owner = $2`,
		`UPDATE sessions SET title = $3 WHERE project_id = $1 AND id = $2 AND owner = $4`, projectID, s.owner,
		func(v string) string { return pgText(rw.Text(v, true)) }); err != nil {
		return fail("sessions", err)
	}

	// Chunks, and their lexical column.
	if res.Chunks, err = s.rewriteChunks(ctx, tx, projectID, lang, func(v string) string { return rw.Text(v, false) }); err != nil {
		return fail("chunks", err)
	}

	// Checkpoints.
	if res.Checkpoints, err = rewriteColumn(ctx, tx, `SELECT path, checkpoint FROM transcript_files WHERE project_id = $1 AND owner = $2`,
		`UPDATE transcript_files SET checkpoint = $3 WHERE project_id = $1 AND path = $2 AND owner = $4`, projectID, s.owner,
		func(v string) string { return pgText(string(rw.JSON([]byte(v)))) }); err != nil {
		return fail("checkpoints", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fail("commit", err)
	}
	return res, nil
}

// rewriteColumn reads (key, value) rows of a project's owner with sel
// ($1 the project, $2 the owner) and writes the changed values back with
// upd ($1 the project, $2 the key, $3 the value, $4 the owner).
func rewriteColumn(ctx context.Context, tx pgx.Tx, sel, upd string, projectID int64, owner string, fn func(string) string) (int, error) {
	rows, err := tx.Query(ctx, sel, projectID, owner)
	if err != nil {
		return 0, err
	}
	type kv struct{ k, v string }
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (kv, error) {
		var x kv
		err := r.Scan(&x.k, &x.v)
		return x, err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, x := range all {
		nv := fn(x.v)
		if nv == x.v {
			continue
		}
		if _, err := tx.Exec(ctx, upd, projectID, x.k, nv, owner); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// rewriteChunks rewrites the content and title of the owner's session
// chunks of a project, with their lexical column and content hash.
func (s *Store) rewriteChunks(ctx context.Context, tx pgx.Tx, projectID int64, lang string, fn func(string) string) (int, error) {
	type chunkRow struct {
		seq                  int64
		title, heading, text string
	}
	rows, err := tx.Query(ctx, `SELECT seq, title, heading_path, content FROM chunks
		WHERE project_id = $1 AND scope = 'session' AND owner = $2`, projectID, s.owner)
	if err != nil {
		return 0, err
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (chunkRow, error) {
		var c chunkRow
		err := r.Scan(&c.seq, &c.title, &c.heading, &c.text)
		return c, err
	})
	if err != nil {
		return 0, err
	}
	var seqs []int64
	var titles, texts, hashes, at, ah, ac []string
	var a *lexical.Analyzer // the project's, once a chunk changes
	for _, r := range all {
		title, text := pgText(fn(r.title)), pgText(fn(r.text))
		if title == r.title && text == r.text {
			continue
		}
		if a == nil {
			if a, err = rules.AnalyzerFor(lang); err != nil {
				return 0, fmt.Errorf("project %d: %w", projectID, err)
			}
		}
		sum := sha256.Sum256([]byte(text))
		d := analyseChunk(a, title, r.heading, text)
		seqs, titles, texts, hashes = append(seqs, r.seq), append(titles, title), append(texts, text), append(hashes, hex.EncodeToString(sum[:]))
		at, ah, ac = append(at, d.title), append(ah, d.heading), append(ac, d.content)
	}
	if len(seqs) == 0 {
		return 0, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE chunks c SET title = u.title, content = u.content, content_hash = u.hash,
			tsv = `+tsvOf("u.at", "u.ah", "u.ac")+`
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
			AS u(seq, title, content, hash, at, ah, ac)
		WHERE c.seq = u.seq`, seqs, titles, texts, hashes, at, ah, ac); err != nil {
		return 0, err
	}
	return len(seqs), nil
}

package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// AppendSession stores events in a project's log by the rules of
// AppendEvents and, in the same transaction, the session chunks of the
// events it stores, as the SQLite engine's (store.Store.AppendSession)
// does: chunks is nil (no chunk: AppendEvents) or as long as events,
// chunks[i] the chunks of events[i], cut as a reindex of the session
// scope cuts them. They are written only when events[i] is stored by
// this call; a chunk whose id is already stored is skipped. They are
// written without vectors (an input with a Vector is refused), for the
// background fill, with their lexical column at once: owned by the
// store's Owner, shared as their session is.
//
// Titles: the chunks carry their session's title as stored once the
// events are (ragd.SessionChunkTitle); when the events change a session's
// title, its stored chunks are rewritten with the new one.
//
// Sharing: a session takes the ShareSessions of the store that appends to
// it. When an own session was written with the other setting, this call
// brings the session and its stored chunks to this store's.
//
// The error is for invalid input (an event, a chunk, chunks not matching
// events: it wraps ragd.ErrInvalidEvent for an event), an unknown project
// (ragd.ErrNotFound) and database failures; either way nothing is stored.
func (s *Store) AppendSession(ctx context.Context, projectID int64, events []ragd.Event, chunks [][]ragd.ChunkInput) (ragd.AppendResult, error) {
	items, err := rules.PrepareAppended(projectID, events, chunks, headingJSON)
	if err != nil {
		return ragd.AppendResult{}, err
	}
	events = storableEvents(events)
	res := ragd.AppendResult{ByType: map[string]int{}}
	if len(events) == 0 {
		return res, nil
	}
	what := fmt.Sprintf("append events to project %d", projectID)
	// The language is decided before the transaction, by the chunks given,
	// as ReplaceScope decides it (see decideLanguage).
	var sample []ragd.ChunkInput
	for _, it := range items {
		sample = append(sample, *it.In)
	}
	if _, err := s.decideLanguage(ctx, projectID, sample); err != nil {
		return ragd.AppendResult{}, s.describe(what, err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return ragd.AppendResult{}, s.describe(what+": begin", err)
	}
	defer tx.Rollback(ctx)
	// The owner's session scope, as a reindex of it takes it: the reindex
	// keeps the chunks appended before it, and sees none appended halfway.
	if err := LockScope(ctx, tx, projectID, ragd.ScopeSession, s.owner); err != nil {
		return ragd.AppendResult{}, s.describe(what, err)
	}
	if s.afterLock != nil {
		if err := s.afterLock(ctx, tx); err != nil {
			return ragd.AppendResult{}, err
		}
	}
	// The project's row, shared: SetLanguage and RemoveProject wait for
	// this write, and it for them.
	_, lang, err := projectLanguages(ctx, tx, projectID, " FOR KEY SHARE")
	if err != nil {
		return ragd.AppendResult{}, s.describe(what, err)
	}

	stored, titled, sessions, err := s.writeEvents(ctx, tx, projectID, events, &res)
	if err != nil {
		return ragd.AppendResult{}, s.describe(what, err)
	}
	for i := range events {
		if stored[i] && ragd.Indexed(events[i].Type) && (chunks == nil || len(chunks[i]) == 0) {
			res.Unindexed++
		}
	}
	if err := s.reshare(ctx, tx, projectID, sessions); err != nil {
		return ragd.AppendResult{}, s.describe(what, err)
	}
	if err := s.writeAppended(ctx, tx, projectID, lang, items, stored, titled, &res); err != nil {
		return ragd.AppendResult{}, s.describe(what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return ragd.AppendResult{}, s.describe(what+": commit", err)
	}
	return res, nil
}

// storableEvents returns events with their text as PostgreSQL stores it
// (pgText: no NUL byte), so that a re-appended event compares equal to
// what was stored of it. Ids are kept: one the server refuses fails the
// call.
func storableEvents(events []ragd.Event) []ragd.Event {
	out := make([]ragd.Event, len(events))
	for i, e := range events {
		e.Type, e.Actor, e.Text, e.Title = pgText(e.Type), pgText(e.Actor), pgText(e.Text), pgText(e.Title)
		out[i] = e
	}
	return out
}

// reshare gives the own sessions whose sharing differs from the store's
// the store's, with their stored chunks.
func (s *Store) reshare(ctx context.Context, tx pgx.Tx, projectID int64, sessions map[string]*sessionState) error {
	var ids []string
	for id, st := range sessions {
		if st.owner == s.owner && !st.created && st.shared != s.share {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE sessions SET shared = $4 WHERE project_id = $1 AND owner = $2 AND id = ANY($3::text[])`,
		projectID, s.owner, ids, s.share); err != nil {
		return fmt.Errorf("share sessions %q: %w", ids, err)
	}
	if _, err := tx.Exec(ctx, `UPDATE chunks SET shared = $4 WHERE project_id = $1 AND scope = 'session' AND owner = $2
		AND session_id = ANY($3::text[])`, projectID, s.owner, ids, s.share); err != nil {
		return fmt.Errorf("share the chunks of sessions %q: %w", ids, err)
	}
	return nil
}

// writeAppended writes, in tx, the chunks of the events stored and the new
// titles of the sessions in titled; lang is the language of the project's
// lexical column, "" while none was decided. It reads the sessions and the
// chunks to retitle, then writes each kind in one statement.
func (s *Store) writeAppended(ctx context.Context, tx pgx.Tx, projectID int64, lang string, items []rules.AppendedChunk, stored []bool,
	titled map[string]bool, res *ragd.AppendResult) error {
	var write []*rules.AppendedChunk
	for i := range items {
		if stored[items[i].Event] {
			write = append(write, &items[i])
		}
	}
	if lang == "" || (len(write) == 0 && len(titled) == 0) {
		// With no language decided, no chunk was ever written to the
		// project, and none is now: no stored chunk carries an old title.
		return nil
	}
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		return fmt.Errorf("project %d: %w", projectID, err)
	}

	// Each session's chunk title and sharing, as stored now that the
	// events are.
	need := map[string]bool{}
	for _, it := range write {
		need[it.In.SessionID] = true
	}
	for id := range titled {
		need[id] = true
	}
	sessions, err := chunkSessions(ctx, tx, projectID, need)
	if err != nil {
		return err
	}
	analysedTitle := rules.TitleText(a)

	if len(titled) > 0 {
		old, err := chunksToRetitle(ctx, tx, projectID, titled, sessions)
		if err != nil {
			return err
		}
		if err := retitleChunks(ctx, tx, old, sessions, a, analysedTitle); err != nil {
			return err
		}
		res.Retitled = len(old)
	}
	if len(write) == 0 {
		return nil
	}
	var cols struct {
		id, session, event, heading, title, content, hash, at, ah, ac []string
		shared                                                        []bool
		position, start, end                                          []int
	}
	for _, it := range write {
		c, r, content := it.In, sessions[it.In.SessionID], pgText(it.In.Content)
		cols.id, cols.session, cols.event = append(cols.id, it.ID), append(cols.session, c.SessionID), append(cols.event, c.EventID)
		cols.heading, cols.title, cols.content = append(cols.heading, it.Heading), append(cols.title, r.title), append(cols.content, content)
		cols.hash, cols.shared = append(cols.hash, c.ContentHash), append(cols.shared, r.shared)
		cols.position, cols.start, cols.end = append(cols.position, c.Position), append(cols.start, c.Start), append(cols.end, c.End)
		cols.at, cols.ah, cols.ac = append(cols.at, analysedTitle(r.title)), append(cols.ah, a.Text(rules.HeadingText(it.Heading))), append(cols.ac, a.Text(content))
	}
	// A chunk whose id is already stored is skipped: its id fixes its text.
	tag, err := tx.Exec(ctx, `INSERT INTO chunks (id, project_id, scope, session_id, event_id, owner, shared,
			heading_path, title, position, start_offset, end_offset, content, content_hash, tsv, indexed_at)
		SELECT u.id, $1, 'session', u.session_id, u.event_id, $2, u.shared, u.heading, u.title, u.position, u.start_offset,
			u.end_offset, u.content, u.hash, `+tsvOf("u.at", "u.ah", "u.ac")+`, $3
		FROM unnest($4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[], $10::integer[], $11::integer[],
			$12::integer[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[])
			AS u(id, session_id, event_id, shared, heading, title, position, start_offset, end_offset, content, hash, at, ah, ac)
		ON CONFLICT (id) DO NOTHING`,
		projectID, s.owner, nowUTC(), cols.id, cols.session, cols.event, cols.shared, cols.heading, cols.title, cols.position,
		cols.start, cols.end, cols.content, cols.hash, cols.at, cols.ah, cols.ac)
	if err != nil {
		return fmt.Errorf("insert %d chunks: %w", len(cols.id), err)
	}
	res.Chunks = int(tag.RowsAffected())
	return nil
}

// tsvOf is the core's expression of a chunk's tsv (tsvSQL) over the SQL
// expressions t, h and c of the analysed title, headings and content
// instead of parameters: one formula for every writer of the column.
func tsvOf(t, h, c string) string {
	return strings.NewReplacer("$1", t, "$2", h, "$3", c).Replace(tsvSQL(1, 2, 3))
}

// retitleChunks gives the chunks old their session's new title, with
// their lexical column, in one statement.
func retitleChunks(ctx context.Context, tx pgx.Tx, old []retitledChunk, sessions map[string]chunkSession,
	a *lexical.Analyzer, analysedTitle func(string) string) error {
	if len(old) == 0 {
		return nil
	}
	seqs := make([]int64, len(old))
	titles, at, ah, ac := make([]string, len(old)), make([]string, len(old)), make([]string, len(old)), make([]string, len(old))
	for i, r := range old {
		seqs[i], titles[i] = r.seq, sessions[r.session].title
		at[i], ah[i], ac[i] = analysedTitle(titles[i]), a.Text(rules.HeadingText(r.heading)), a.Text(r.content)
	}
	if _, err := tx.Exec(ctx, `UPDATE chunks c SET title = u.title, tsv = `+tsvOf("u.at", "u.ah", "u.ac")+`
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(seq, title, at, ah, ac)
		WHERE c.seq = u.seq`, seqs, titles, at, ah, ac); err != nil {
		return fmt.Errorf("retitle %d chunks: %w", len(old), err)
	}
	return nil
}

// chunkSession is what a session chunk takes from its session.
type chunkSession struct {
	title  string // ragd.SessionChunkTitle, as stored
	shared bool
}

// chunkSessions reads the sessions in ids.
func chunkSessions(ctx context.Context, tx pgx.Tx, projectID int64, ids map[string]bool) (map[string]chunkSession, error) {
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	rows, err := tx.Query(ctx, `SELECT id, title, shared FROM sessions WHERE project_id = $1 AND id = ANY($2::text[])`, projectID, list)
	if err != nil {
		return nil, fmt.Errorf("titles of %d sessions: %w", len(list), err)
	}
	defer rows.Close()
	out := make(map[string]chunkSession, len(list))
	for rows.Next() {
		var id string
		var r chunkSession
		if err := rows.Scan(&id, &r.title, &r.shared); err != nil {
			return nil, fmt.Errorf("titles of %d sessions: %w", len(list), err)
		}
		r.title = pgText(ragd.SessionChunkTitle(r.title, id))
		out[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("titles of %d sessions: %w", len(list), err)
	}
	for id := range ids {
		if _, ok := out[id]; !ok {
			return nil, fmt.Errorf("session %q: %w", id, ragd.ErrNotFound)
		}
	}
	return out, nil
}

// retitledChunk is a stored chunk whose session's title changed.
type retitledChunk struct {
	seq                     int64
	session, event, heading string
	content                 string
	position                int
}

// chunksToRetitle lists the stored chunks of the sessions in titled whose
// title is not their session's.
func chunksToRetitle(ctx context.Context, tx pgx.Tx, projectID int64, titled map[string]bool, sessions map[string]chunkSession) ([]retitledChunk, error) {
	ids := make([]string, 0, len(titled))
	for id := range titled {
		ids = append(ids, id)
	}
	rows, err := tx.Query(ctx, `SELECT seq, session_id, event_id, position, title, heading_path, content FROM chunks
		WHERE project_id = $1 AND scope = 'session' AND session_id = ANY($2::text[]) ORDER BY seq`, projectID, ids)
	if err != nil {
		return nil, fmt.Errorf("retitle sessions %q: %w", ids, err)
	}
	defer rows.Close()
	var out []retitledChunk
	for rows.Next() {
		var r retitledChunk
		var title string
		if err := rows.Scan(&r.seq, &r.session, &r.event, &r.position, &title, &r.heading, &r.content); err != nil {
			return nil, fmt.Errorf("retitle sessions %q: %w", ids, err)
		}
		if title != sessions[r.session].title {
			out = append(out, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("retitle sessions %q: %w", ids, err)
	}
	return out, nil
}

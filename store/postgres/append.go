package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
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
	res := ragd.AppendResult{ByType: map[string]int{}}
	for i := range events {
		if err := events[i].Validate(); err != nil {
			// The caller names the project.
			return ragd.AppendResult{}, fmt.Errorf("event %d (id %q): %w", i, events[i].ID, err)
		}
	}
	items, err := prepareAppended(projectID, events, chunks)
	if err != nil {
		return ragd.AppendResult{}, fmt.Errorf("append events to project %d: %w", projectID, err)
	}
	events = storableEvents(events)
	if len(events) == 0 {
		return res, nil
	}
	what := fmt.Sprintf("append events to project %d", projectID)
	// The language is decided before the transaction, by the chunks given,
	// as ReplaceScope decides it (see decideLanguage).
	var sample []ragd.ChunkInput
	for _, it := range items {
		sample = append(sample, *it.in)
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
	// The project's row, shared: SetLanguage and RemoveProject wait for
	// this write, and it for them.
	_, lang, err := projectLanguages(ctx, tx, projectID, " FOR KEY SHARE")
	if err != nil {
		return ragd.AppendResult{}, s.describe(what, err)
	}

	ew := &eventWriter{tx: tx, projectID: projectID, owner: s.owner, share: s.share, stamp: nowUTC(),
		sessions: map[string]*sessionState{}}
	stored := make([]bool, len(events))
	titled := map[string]bool{} // sessions whose title this call changed
	for i := range events {
		var retitled bool
		if stored[i], retitled, err = ew.write(ctx, &events[i], &res); err != nil {
			return ragd.AppendResult{}, s.describe(what, err)
		}
		if retitled {
			titled[events[i].SessionID] = true
		}
		if stored[i] && ragd.Indexed(events[i].Type) && (chunks == nil || len(chunks[i]) == 0) {
			res.Unindexed++
		}
	}
	if err := s.reshare(ctx, tx, projectID, ew.sessions); err != nil {
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

// appendedChunk is a chunk to append, with its id and its heading path as
// stored.
type appendedChunk struct {
	in      *ragd.ChunkInput
	event   int // index of its event
	id      string
	heading string
	content string // as stored (pgText)
}

// prepareAppended checks chunks against events and lists them with their
// ids.
func prepareAppended(projectID int64, events []ragd.Event, chunks [][]ragd.ChunkInput) ([]appendedChunk, error) {
	if chunks == nil {
		return nil, nil
	}
	if len(chunks) != len(events) {
		return nil, fmt.Errorf("%d chunk lists for %d events", len(chunks), len(events))
	}
	var items []appendedChunk
	for i := range chunks {
		seen := map[string]bool{}
		for j := range chunks[i] {
			c := &chunks[i][j]
			if err := validateChunk(c, ragd.ScopeSession); err != nil {
				return nil, fmt.Errorf("event %d: %w", i, err)
			}
			if c.SessionID != events[i].SessionID || c.EventID != events[i].ID {
				return nil, fmt.Errorf("event %d (%q of session %q): chunk %d names event %q of session %q",
					i, events[i].ID, events[i].SessionID, j, c.EventID, c.SessionID)
			}
			if c.Vector != nil {
				return nil, fmt.Errorf("event %q: chunk %d has a vector: appended chunks take theirs from the background fill", c.EventID, c.Position)
			}
			id := c.ID(projectID, ragd.ScopeSession)
			if seen[id] {
				return nil, fmt.Errorf("event %q: duplicate chunk %d", c.EventID, c.Position)
			}
			seen[id] = true
			heading, err := headingJSON(c.HeadingPath)
			if err != nil {
				return nil, fmt.Errorf("event %q: chunk %d: %w", c.EventID, c.Position, err)
			}
			items = append(items, appendedChunk{in: c, event: i, id: id, heading: heading, content: pgText(c.Content)})
		}
	}
	return items, nil
}

// reshare gives the own sessions whose sharing differs from the store's
// the store's, with their stored chunks.
func (s *Store) reshare(ctx context.Context, tx pgx.Tx, projectID int64, sessions map[string]*sessionState) error {
	var ids []string
	for id, st := range sessions {
		if st.reshare {
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
// lexical column, "" while none was decided.
func (s *Store) writeAppended(ctx context.Context, tx pgx.Tx, projectID int64, lang string, items []appendedChunk, stored []bool,
	titled map[string]bool, res *ragd.AppendResult) error {
	var write []*appendedChunk
	for i := range items {
		if stored[items[i].event] {
			write = append(write, &items[i])
		}
	}
	if len(write) == 0 && len(titled) == 0 {
		return nil
	}

	// Each session's chunk title and sharing, as stored now that the
	// events are.
	type sessionRow struct {
		title  string
		shared bool
	}
	sessions := map[string]sessionRow{}
	sessionOf := func(id string) (sessionRow, error) {
		if r, ok := sessions[id]; ok {
			return r, nil
		}
		var r sessionRow
		if err := tx.QueryRow(ctx, `SELECT title, shared FROM sessions WHERE project_id = $1 AND id = $2`, projectID, id).
			Scan(&r.title, &r.shared); err != nil {
			return r, fmt.Errorf("title of session %q: %w", id, err)
		}
		r.title = pgText(ragd.SessionChunkTitle(r.title, id))
		sessions[id] = r
		return r, nil
	}
	if lang == "" {
		// No chunk was ever written to the project, and none is now: no
		// stored chunk can carry an old title.
		return nil
	}
	a, err := analyzerFor(lang)
	if err != nil {
		return fmt.Errorf("project %d: %w", projectID, err)
	}
	analysedTitles := map[string]string{}
	analysedTitle := func(t string) string {
		if at, ok := analysedTitles[t]; ok {
			return at
		}
		at := a.Text(t)
		analysedTitles[t] = at
		return at
	}

	for session := range titled {
		r, err := sessionOf(session)
		if err != nil {
			return err
		}
		n, err := retitleChunks(ctx, tx, projectID, session, r.title, a, analysedTitle(r.title))
		if err != nil {
			return err
		}
		res.Retitled += n
	}

	stamp := nowUTC()
	for _, it := range write {
		c := it.in
		r, err := sessionOf(c.SessionID)
		if err != nil {
			return err
		}
		doc := analysedChunk{title: analysedTitle(r.title), heading: a.Text(headingText(it.heading)), content: a.Text(it.content)}
		tag, err := tx.Exec(ctx, `INSERT INTO chunks (id, project_id, scope, session_id, event_id, owner, shared,
			heading_path, title, position, start_offset, end_offset, content, content_hash, tsv, indexed_at)
			VALUES ($1, $2, 'session', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, `+tsvSQL(14, 15, 16)+`, $17)
			ON CONFLICT (id) DO NOTHING`,
			it.id, projectID, c.SessionID, c.EventID, s.owner, r.shared, it.heading, r.title, c.Position, c.Start, c.End,
			it.content, c.ContentHash, doc.title, doc.heading, doc.content, stamp)
		if err != nil {
			return fmt.Errorf("insert chunk %s#%d: %w", c.EventID, c.Position, err)
		}
		if tag.RowsAffected() == 0 {
			continue // already stored: its id fixes its text
		}
		res.Chunks++
	}
	return nil
}

// retitleChunks gives the stored chunks of a session its new title, and
// rewrites their lexical column. It returns how many it rewrote.
func retitleChunks(ctx context.Context, tx pgx.Tx, projectID int64, session, title string, a *lexical.Analyzer, analysedTitle string) (int, error) {
	rows, err := tx.Query(ctx, `SELECT seq, heading_path, content FROM chunks
		WHERE project_id = $1 AND session_id = $2 AND scope = 'session' AND title != $3`, projectID, session, title)
	if err != nil {
		return 0, fmt.Errorf("retitle session %q: %w", session, err)
	}
	type row struct {
		seq              int64
		heading, content string
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.seq, &x.heading, &x.content)
		return x, err
	})
	if err != nil {
		return 0, fmt.Errorf("retitle session %q: %w", session, err)
	}
	for _, r := range list {
		if _, err := tx.Exec(ctx, `UPDATE chunks SET title = $2, tsv = `+tsvSQL(3, 4, 5)+` WHERE seq = $1`,
			r.seq, title, analysedTitle, a.Text(headingText(r.heading)), a.Text(r.content)); err != nil {
			return 0, fmt.Errorf("retitle session %q: %w", session, err)
		}
	}
	return len(list), nil
}

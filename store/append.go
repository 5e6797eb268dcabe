package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/lexical"
	"github.com/ragd/ragd/store/rules"
)

// Appending a session's messages writes their chunks at once, so that they
// search lexically without a reindex of the session scope; the background
// fill gives them vectors later (docs/adr/0009-scale.md, "Incremental
// session chunks"). The write costs what the new messages cost: no stored
// chunk of the scope is read, and the lexical table takes inserts only.

// AppendSession stores events in a project's log by the rules of
// AppendEvents and, in the same transaction, the session chunks of the
// events it stores. chunks is nil (no chunk: AppendEvents) or as long as
// events: chunks[i] are the chunks of events[i], cut by the caller as a
// reindex of the session scope cuts them, so that they get the ids a
// reindex gives. They are written only when events[i] is stored by this
// call: an event already stored (a duplicate) or refused (a conflict) adds
// no chunk, and a chunk whose id is already stored is skipped.
//
// Titles: a session chunk carries its session's title
// (ragd.SessionChunkTitle), as a reindex writes it. The store titles the
// chunks it writes with their session's title once the events are stored
// (the inputs' Title is not read); when the events change a session's
// title, the session's stored chunks are rewritten with the new one (their
// title and lexical rows: a cost in the session's chunks, once per new
// title).
//
// Chunks are written without vectors (an input with a Vector is refused):
// they are the background fill's queue.
//
// The error is for invalid input (an event, a chunk, chunks not matching
// events) and for database failures; either way nothing is stored.
func (s *Store) AppendSession(ctx context.Context, projectID int64, events []ragd.Event, chunks [][]ragd.ChunkInput) (ragd.AppendResult, error) {
	res := ragd.AppendResult{ByType: map[string]int{}}
	items, err := prepareAppended(projectID, events, chunks)
	if err != nil {
		return ragd.AppendResult{}, err
	}
	if len(events) == 0 {
		return res, nil
	}

	// The text is analysed before the transaction, for the language the
	// project's lexical table has or would take now; titles, known only in
	// it, are analysed there. The guess is read on the writer's
	// connection, which the append takes next anyway: on the read pool it
	// queued behind every search (docs/scale.md, under load).
	flat := make([]ragd.ChunkInput, 0, len(items))
	for _, it := range items {
		flat = append(flat, *it.in)
	}
	guess, _, err := s.writeLanguage(ctx, s.db, projectID, flat)
	if err != nil {
		return ragd.AppendResult{}, fmt.Errorf("append events to project %d: %w", projectID, err)
	}
	if err := analyseAppended(items, guess); err != nil {
		return ragd.AppendResult{}, fmt.Errorf("append events to project %d: %w", projectID, err)
	}

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return ragd.AppendResult{}, fmt.Errorf("append events to project %d: begin: %w", projectID, err)
	}
	defer tx.Rollback()
	ew, err := newEventWriter(ctx, tx, projectID)
	if err != nil {
		return ragd.AppendResult{}, fmt.Errorf("append events to project %d: %w", projectID, err)
	}
	defer ew.Close()

	stored := make([]bool, len(events))
	titled := map[string]bool{} // sessions whose title this call changed
	for i := range events {
		var retitled bool
		if stored[i], retitled, err = ew.write(ctx, &events[i], &res); err != nil {
			return ragd.AppendResult{}, err
		}
		if retitled {
			titled[events[i].SessionID] = true
		}
		if stored[i] && ragd.Indexed(events[i].Type) && (chunks == nil || len(chunks[i]) == 0) {
			res.Unindexed++
		}
	}
	decided, err := s.writeAppended(ctx, tx, projectID, items, stored, titled, guess, &res)
	if err != nil {
		return ragd.AppendResult{}, fmt.Errorf("append events to project %d: %w", projectID, err)
	}
	if err := tx.Commit(); err != nil {
		return ragd.AppendResult{}, fmt.Errorf("append events to project %d: commit: %w", projectID, err)
	}
	if decided {
		s.projects.forget() // the project's language in force changed
	}
	return res, nil
}

// appendedChunk is a chunk to append, with what its rows are made of.
type appendedChunk struct {
	in      *ragd.ChunkInput
	event   int // index of its event
	id      string
	heading string
	// doc is the analysed heading and text (the title is analysed in the
	// transaction), for the language lang; nil when not analysed yet.
	doc  *lexicalDoc
	lang string
}

// prepareAppended checks chunks against events (rules.PrepareAppended)
// and lists them with their ids.
func prepareAppended(projectID int64, events []ragd.Event, chunks [][]ragd.ChunkInput) ([]appendedChunk, error) {
	prepared, err := rules.PrepareAppended(projectID, events, chunks, headingJSON)
	items := make([]appendedChunk, len(prepared))
	for i, p := range prepared {
		items[i] = appendedChunk{in: p.In, event: p.Event, id: p.ID, heading: p.Heading}
	}
	return items, err
}

// analyseAppended analyses the heading and text of items for lang.
func analyseAppended(items []appendedChunk, lang string) error {
	if len(items) == 0 {
		return nil
	}
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		it.doc = &lexicalDoc{heading: a.Text(rules.HeadingText(it.heading)), content: a.Text(it.in.Content)}
		it.lang = lang
	}
	return nil
}

// writeAppended writes, in tx, the chunks of the events stored and the new
// titles of the sessions in titled. It reports whether it decided the
// project's language.
func (s *Store) writeAppended(ctx context.Context, tx *sql.Tx, projectID int64, items []appendedChunk, stored []bool,
	titled map[string]bool, guess string, res *ragd.AppendResult) (decided bool, err error) {
	var write []*appendedChunk
	for i := range items {
		if stored[items[i].event] {
			write = append(write, &items[i])
		}
	}
	if len(write) == 0 && len(titled) == 0 {
		return false, nil
	}

	// Each session's title, as stored now that the events are.
	titles := map[string]string{}
	titleStmt, err := tx.PrepareContext(ctx, "SELECT title FROM sessions WHERE project_id = ? AND id = ?")
	if err != nil {
		return false, fmt.Errorf("prepare title lookup: %w", err)
	}
	defer titleStmt.Close()
	titleOf := func(session string) (string, error) {
		if t, ok := titles[session]; ok {
			return t, nil
		}
		var t string
		if err := titleStmt.QueryRowContext(ctx, projectID, session).Scan(&t); err != nil {
			return "", fmt.Errorf("title of session %q: %w", session, err)
		}
		t = ragd.SessionChunkTitle(t, session)
		titles[session] = t
		return t, nil
	}
	sample := make([]ragd.ChunkInput, len(write))
	for i, it := range write {
		sample[i] = *it.in
		if sample[i].Title, err = titleOf(it.in.SessionID); err != nil {
			return false, err
		}
	}

	lang, decide, err := s.writeLanguage(ctx, tx, projectID, sample)
	if err != nil {
		return false, err
	}
	if lang == "" {
		// No chunk was ever written to the project, and none is now: no
		// stored chunk can carry an old title.
		return false, nil
	}
	a, err := rules.AnalyzerFor(lang)
	if err != nil {
		return false, fmt.Errorf("project %d: %w", projectID, err)
	}
	lw, err := newLexicalWriter(ctx, tx, projectID)
	if err != nil {
		return false, err
	}
	defer lw.Close()
	analysedTitle := rules.TitleText(a)

	if err := retitleSessions(ctx, tx, projectID, titled, titleOf, a, analysedTitle, lw, res); err != nil {
		return false, err
	}

	insert, err := tx.PrepareContext(ctx, `INSERT INTO chunks (id, project_id, scope, session_id, event_id,
		heading_path, title, position, start_offset, end_offset, content, content_hash, indexed_at)
		VALUES (?, ?, 'session', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
	if err != nil {
		return false, fmt.Errorf("prepare chunk insert: %w", err)
	}
	defer insert.Close()
	stamp := now()
	for n, it := range write {
		c := it.in
		title := sample[n].Title
		r, err := insert.ExecContext(ctx, it.id, projectID, c.SessionID, c.EventID, it.heading, title,
			c.Position, c.Start, c.End, c.Content, c.ContentHash, stamp)
		if err != nil {
			return false, fmt.Errorf("insert chunk %s#%d: %w", c.EventID, c.Position, err)
		}
		if k, _ := r.RowsAffected(); k == 0 {
			continue // already stored: its id fixes its text
		}
		seq, err := r.LastInsertId()
		if err != nil {
			return false, fmt.Errorf("insert chunk %s#%d: %w", c.EventID, c.Position, err)
		}
		if it.doc == nil || it.lang != lang {
			// Analysed for another language, or not at all: redo in here.
			it.doc = &lexicalDoc{heading: a.Text(rules.HeadingText(it.heading)), content: a.Text(c.Content)}
		}
		d := *it.doc
		d.title = analysedTitle(title)
		if err := lw.insert(ctx, seq, d); err != nil {
			return false, fmt.Errorf("chunk %s#%d: %w", c.EventID, c.Position, err)
		}
		res.Chunks++
		if s.failAfterInsert != nil {
			if err := s.failAfterInsert(n); err != nil {
				return false, err
			}
		}
	}
	if err := lw.flush(ctx); err != nil {
		return false, err
	}
	if decide {
		if err := recordLanguage(ctx, tx, projectID, lang); err != nil {
			return false, err
		}
	}
	return decide, nil
}

// retitleSessions gives the stored chunks of the sessions in titled their
// session's new title, and rewrites their lexical rows.
func retitleSessions(ctx context.Context, tx *sql.Tx, projectID int64, titled map[string]bool,
	titleOf func(string) (string, error), a *lexical.Analyzer, analysedTitle func(string) string,
	lw *lexicalWriter, res *ragd.AppendResult) error {
	if len(titled) == 0 {
		return nil
	}
	update, err := tx.PrepareContext(ctx, "UPDATE chunks SET title = ? WHERE seq = ?")
	if err != nil {
		return fmt.Errorf("prepare retitle: %w", err)
	}
	defer update.Close()
	for session := range titled {
		title, err := titleOf(session)
		if err != nil {
			return err
		}
		type row struct {
			seq                     int64
			title, heading, content string
		}
		var rows []row
		q, err := tx.QueryContext(ctx, `SELECT seq, title, heading_path, content FROM chunks
			WHERE project_id = ? AND session_id = ? AND scope = 'session' AND title != ?`, projectID, session, title)
		if err != nil {
			return fmt.Errorf("retitle session %q: %w", session, err)
		}
		for q.Next() {
			var r row
			if err := q.Scan(&r.seq, &r.title, &r.heading, &r.content); err != nil {
				q.Close()
				return fmt.Errorf("retitle session %q: %w", session, err)
			}
			rows = append(rows, r)
		}
		q.Close()
		if err := q.Err(); err != nil {
			return fmt.Errorf("retitle session %q: %w", session, err)
		}
		for _, r := range rows {
			if _, err := update.ExecContext(ctx, title, r.seq); err != nil {
				return fmt.Errorf("retitle session %q: %w", session, err)
			}
			d := lexicalDoc{title: analysedTitle(title), heading: a.Text(rules.HeadingText(r.heading)), content: a.Text(r.content)}
			old := d
			old.title = analysedTitle(r.title)
			if err := lw.delete(ctx, r.seq, old); err != nil {
				return fmt.Errorf("retitle session %q: %w", session, err)
			}
			if err := lw.insert(ctx, r.seq, d); err != nil {
				return fmt.Errorf("retitle session %q: %w", session, err)
			}
			res.Retitled++
		}
	}
	return nil
}

// appendedKeeper tells which stored session chunks a ReplaceScope of the
// session scope keeps although its input lacks them: those of events that
// the input does not mention and that the log holds. A reindex reads the
// log, then embeds for minutes before it writes; messages appended
// meanwhile were chunked by AppendSession, and deleting their chunks would
// unindex them until the next reindex. A chunk of an event the input
// mentions is the input's to keep or drop (its cut changed), and one of an
// event no longer in the log goes.
type appendedKeeper struct {
	mentioned map[string]bool
	inLog     *sql.Stmt
	projectID int64
	known     map[string]bool
}

func newAppendedKeeper(ctx context.Context, tx *sql.Tx, projectID int64, chunks []ragd.ChunkInput) (*appendedKeeper, error) {
	k := &appendedKeeper{mentioned: make(map[string]bool, len(chunks)), projectID: projectID, known: map[string]bool{}}
	for i := range chunks {
		k.mentioned[chunks[i].EventID] = true
	}
	var err error
	if k.inLog, err = tx.PrepareContext(ctx, "SELECT EXISTS (SELECT 1 FROM session_events WHERE project_id = ? AND id = ?)"); err != nil {
		return nil, fmt.Errorf("prepare event lookup: %w", err)
	}
	return k, nil
}

// keeps reports whether a stored chunk of event is kept.
func (k *appendedKeeper) keeps(ctx context.Context, event string) (bool, error) {
	if k.mentioned[event] {
		return false, nil
	}
	if in, ok := k.known[event]; ok {
		return in, nil
	}
	var in bool
	if err := k.inLog.QueryRowContext(ctx, k.projectID, event).Scan(&in); err != nil {
		return false, fmt.Errorf("look up event %q: %w", event, err)
	}
	k.known[event] = in
	return in, nil
}

func (k *appendedKeeper) Close() { k.inLog.Close() }

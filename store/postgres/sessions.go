package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
	"github.com/ragd/ragd/store/rules"
)

// Sessions belong to their owner. A session, its events and its chunks
// carry the Owner of the store that created the session; a session is
// shared when the store that last appended to it had ShareSessions.
// Reading one session (Event, SessionEvents, EventsAround, EventChunks,
// ListSessions) sees the owner's sessions and everybody's shared ones;
// what works on a person's own log sees the owner's only: Messages and
// SessionStats (which a reindex of the session scope and its coverage
// read), ForgetSession, RewriteSessions and the transcript checkpoints.
// Session and event ids are one namespace per project: an event whose id
// or session is another owner's is refused as a conflict
// (ragd.EventConflict, Fields [ownerField]), without comparing its
// content, and ForgottenSessions lists every owner's forgotten ids.
//
// Writes of sessions (AppendSession, ForgetSession, RewriteSessions) take
// the owner's session scope lock (LockScope), as a reindex of that scope
// does, so they never interleave with it.

// ownerField is the conflict field of an event refused because its id or
// its session belongs to another owner.
const ownerField = "owner"

// formatEventTime is how session_events.time holds an event's time
// (rules.TimeLayout): text, so that the value compares exactly (a
// timestamptz would round it to microseconds).
func formatEventTime(t time.Time) string { return rules.FormatTime(t) }

func parseEventTime(s string) time.Time { return rules.ParseTime(s) }

// AppendEvents stores events in the log of a project, in one transaction,
// in order, by the rules of the SQLite engine's (store.Store.AppendEvents):
// an event id already stored with the same content is a duplicate and
// changes nothing, with other content (or another owner's) a conflict,
// reported in the result while the other events are still stored. A
// session is created by its first event, owned by this store's Owner and
// shared when ShareSessions is set; the latest title in time wins.
//
// It writes no chunk: AppendSession stores events with their chunks.
func (s *Store) AppendEvents(ctx context.Context, projectID int64, events []ragd.Event) (ragd.AppendResult, error) {
	return s.AppendSession(ctx, projectID, events, nil)
}

// storedEvent is a stored event as a re-appended one is compared with it.
type storedEvent struct {
	ev    ragd.Event
	owner string
}

// sessionState is what an append knows of one of its sessions.
type sessionState struct {
	owner   string
	shared  bool
	created bool   // by this call
	stored  string // its title as stored before this call
	title   string // its title once this call's events are stored
	last    string // the time of its latest event (formatEventTime), "" for none
}

// writeEvents stores events in tx by the rules of AppendEvents, counting
// them in res, in five statements whatever their number: two reads (the
// events' ids and sessions as stored), then the new sessions, the new
// titles and the events, each one statement over arrays. Titles are
// resolved here as the SQLite engine's statements resolve them event by
// event: an event's title wins unless a stored event of its session (one
// of this call's before it included) is later. It reports which events it
// stored, the sessions whose stored title changed, and what it learnt of
// each session.
//
// The caller holds the owner's session scope lock, so no other writer of
// the owner's sessions runs meanwhile; another owner creating one of the
// same ids in between fails the call (an error saying to retry), which
// then sees it.
func (s *Store) writeEvents(ctx context.Context, tx pgx.Tx, projectID int64, events []ragd.Event, res *ragd.AppendResult) (
	stored []bool, titled map[string]bool, sessions map[string]*sessionState, err error) {
	ids := make([]string, 0, len(events))
	var sessionIDs []string
	seenSession := map[string]bool{}
	for i := range events {
		ids = append(ids, events[i].ID)
		if !seenSession[events[i].SessionID] {
			seenSession[events[i].SessionID] = true
			sessionIDs = append(sessionIDs, events[i].SessionID)
		}
	}
	known, err := storedEvents(ctx, tx, projectID, ids)
	if err != nil {
		return nil, nil, nil, err
	}
	if sessions, err = storedSessions(ctx, tx, projectID, sessionIDs); err != nil {
		return nil, nil, nil, err
	}
	if err := s.addForeignIDs(ctx, tx, projectID, sessionIDs, ids, known, sessions); err != nil {
		return nil, nil, nil, err
	}

	// The events to insert, as columns.
	var cols struct {
		session, id, typ, actor, text, when []string
		payload                             []*string
	}
	var created []string // new sessions, in order
	stored = make([]bool, len(events))
	for i := range events {
		e := &events[i]
		if old, ok := known[e.ID]; ok {
			switch diff := rules.EventDiff(old.ev, *e); {
			case old.owner != s.owner:
				res.Conflicts = append(res.Conflicts, ragd.EventConflict{EventID: e.ID, Fields: []string{ownerField}})
			case len(diff) > 0:
				res.Conflicts = append(res.Conflicts, ragd.EventConflict{EventID: e.ID, Fields: diff})
			default:
				res.Duplicates++
			}
			continue
		}
		when := formatEventTime(e.Time)
		st, ok := sessions[e.SessionID]
		switch {
		case !ok:
			st = &sessionState{owner: s.owner, shared: s.share, created: true, title: e.Title}
			sessions[e.SessionID] = st
			created = append(created, e.SessionID)
		case st.owner != s.owner:
			res.Conflicts = append(res.Conflicts, ragd.EventConflict{EventID: e.ID, Fields: []string{ownerField}})
			continue
		case e.Title != "" && e.Title != st.title && (st.title == "" || st.last <= when):
			st.title = e.Title
		}
		st.last = max(st.last, when)
		var payload *string
		if e.Payload != nil {
			p := string(e.Payload)
			payload = &p
		}
		cols.session, cols.id, cols.typ = append(cols.session, e.SessionID), append(cols.id, e.ID), append(cols.typ, e.Type)
		cols.actor, cols.text, cols.when = append(cols.actor, e.Actor), append(cols.text, e.Text), append(cols.when, when)
		cols.payload = append(cols.payload, payload)
		// A later event of this call with the same id compares with this one.
		known[e.ID] = storedEvent{ev: *e, owner: s.owner}
		stored[i] = true
		res.Appended++
		res.ByType[e.Type]++
	}

	titled = map[string]bool{}
	stamp := nowUTC()
	if len(created) > 0 {
		titles := make([]string, len(created))
		for i, id := range created {
			titles[i] = sessions[id].title
		}
		tag, err := tx.Exec(ctx, `INSERT INTO sessions (project_id, owner, shared, created_at, id, title)
			SELECT $1, $2, $3, $4, u.id, u.title FROM unnest($5::text[], $6::text[]) AS u(id, title)
			ON CONFLICT (project_id, id) DO NOTHING`, projectID, s.owner, s.share, stamp, created, titles)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("create sessions %q: %w", created, err)
		}
		if int(tag.RowsAffected()) != len(created) {
			return nil, nil, nil, fmt.Errorf("create sessions %q: one was created meanwhile by another writer: retry", created)
		}
		res.SessionsCreated = len(created)
	}
	var retitle, titles []string
	for _, id := range sessionIDs {
		if st := sessions[id]; st != nil && !st.created && st.owner == s.owner && st.title != st.stored {
			retitle, titles = append(retitle, id), append(titles, st.title)
			titled[id] = true
		}
	}
	if len(retitle) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE sessions s SET title = u.title FROM unnest($2::text[], $3::text[]) AS u(id, title)
			WHERE s.project_id = $1 AND s.id = u.id`, projectID, retitle, titles); err != nil {
			return nil, nil, nil, fmt.Errorf("title sessions %q: %w", retitle, err)
		}
	}
	if len(cols.id) > 0 {
		tag, err := tx.Exec(ctx, `INSERT INTO session_events (project_id, owner, created_at, session_id, id, type, actor, text, payload, time)
			SELECT $1, $2, $3, u.session_id, u.id, u.type, u.actor, u.text, u.payload, u.time
			FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
				AS u(session_id, id, type, actor, text, payload, time)
			ON CONFLICT (project_id, id) DO NOTHING`,
			projectID, s.owner, stamp, cols.session, cols.id, cols.typ, cols.actor, cols.text, cols.payload, cols.when)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("insert %d events: %w", len(cols.id), err)
		}
		if int(tag.RowsAffected()) != len(cols.id) {
			return nil, nil, nil, fmt.Errorf("insert %d events: one was stored meanwhile by another writer: retry", len(cols.id))
		}
	}
	return stored, titled, sessions, nil
}

// storedEvents reads the stored events of a project among ids.
func storedEvents(ctx context.Context, tx pgx.Tx, projectID int64, ids []string) (map[string]storedEvent, error) {
	rows, err := tx.Query(ctx, `SELECT id, session_id, owner, type, actor, text, time, payload FROM session_events
		WHERE project_id = $1 AND id = ANY($2::text[])`, projectID, ids)
	if err != nil {
		return nil, fmt.Errorf("look up %d events: %w", len(ids), err)
	}
	defer rows.Close()
	out := map[string]storedEvent{}
	for rows.Next() {
		var old storedEvent
		var when string
		var payload *string
		if err := rows.Scan(&old.ev.ID, &old.ev.SessionID, &old.owner, &old.ev.Type, &old.ev.Actor, &old.ev.Text, &when, &payload); err != nil {
			return nil, fmt.Errorf("look up %d events: %w", len(ids), err)
		}
		old.ev.Time = parseEventTime(when)
		if payload != nil {
			old.ev.Payload = []byte(*payload)
		}
		out[old.ev.ID] = old
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up %d events: %w", len(ids), err)
	}
	return out, nil
}

// storedSessions reads the stored sessions of a project among ids, and
// keeps them from being forgotten until the transaction ends.
func storedSessions(ctx context.Context, tx pgx.Tx, projectID int64, ids []string) (map[string]*sessionState, error) {
	rows, err := tx.Query(ctx, `SELECT s.id, s.owner, s.shared, s.title, coalesce((SELECT max(e.time) FROM session_events e
			WHERE e.project_id = s.project_id AND e.session_id = s.id), '')
		FROM sessions s WHERE s.project_id = $1 AND s.id = ANY($2::text[]) FOR SHARE OF s`, projectID, ids)
	if err != nil {
		return nil, fmt.Errorf("look up %d sessions: %w", len(ids), err)
	}
	defer rows.Close()
	out := map[string]*sessionState{}
	for rows.Next() {
		var id string
		st := &sessionState{}
		if err := rows.Scan(&id, &st.owner, &st.shared, &st.stored, &st.last); err != nil {
			return nil, fmt.Errorf("look up %d sessions: %w", len(ids), err)
		}
		st.title = st.stored
		out[id] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up %d sessions: %w", len(ids), err)
	}
	return out, nil
}

// visibleSession is the condition on a sessions row s that the store's
// owner may read it: its own, or shared. $1 is always the owner.
const visibleSession = `(s.owner = $1 OR s.shared)`

// eventColumns are the columns scanEvent reads, of session_events e joined
// with sessions s.
const eventColumns = `e.id, e.session_id, e.type, e.actor, e.text, s.title, e.time, e.payload, e.created_at`

// scanner is a row to scan: a pgx.Row or pgx.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanEvent(r scanner) (ragd.Event, error) {
	var e ragd.Event
	var when string
	var payload *string
	if err := r.Scan(&e.ID, &e.SessionID, &e.Type, &e.Actor, &e.Text, &e.Title, &when, &payload, &e.CreatedAt); err != nil {
		return e, err
	}
	e.Time, e.CreatedAt = parseEventTime(when), e.CreatedAt.UTC()
	if payload != nil {
		e.Payload = []byte(*payload)
	}
	return e, nil
}

// Event returns the event id of a project's log, with its session's current
// title as Title. It returns an error wrapping ragd.ErrNotFound when the
// project has no such event that the store's owner may read.
func (s *Store) Event(ctx context.Context, projectID int64, id string) (ragd.Event, error) {
	e, err := scanEvent(s.pool.QueryRow(ctx, `SELECT `+eventColumns+`
		FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
		WHERE `+visibleSession+` AND e.project_id = $2 AND e.id = $3`, s.owner, projectID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return ragd.Event{ID: id}, fmt.Errorf("event %q of project %d: %w", id, projectID, ragd.ErrNotFound)
	}
	if err != nil {
		return ragd.Event{ID: id}, s.describe(fmt.Sprintf("event %q of project %d", id, projectID), err)
	}
	return e, nil
}

// Messages lists the events of the store owner's sessions of a project
// whose type is one of types, ordered by session, then time, then the
// order they were stored in. Another owner's sessions are theirs to index,
// shared or not.
func (s *Store) Messages(ctx context.Context, projectID int64, types []string) ([]ragd.Message, error) {
	if len(types) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT e.session_id, s.title, e.id, e.type, e.actor, e.text, e.time, e.created_at
		FROM session_events e JOIN sessions s ON s.project_id = e.project_id AND s.id = e.session_id
		WHERE s.owner = $1 AND e.project_id = $2 AND e.type = ANY($3::text[])
		ORDER BY e.session_id COLLATE "C", e.time, e.seq`, s.owner, projectID, types)
	if err != nil {
		return nil, s.describe(fmt.Sprintf("list messages of project %d", projectID), err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ragd.Message, error) {
		var m ragd.Message
		var when string
		err := r.Scan(&m.SessionID, &m.SessionTitle, &m.EventID, &m.Type, &m.Actor, &m.Text, &when, &m.CreatedAt)
		m.Time, m.CreatedAt = parseEventTime(when), m.CreatedAt.UTC()
		return m, err
	})
	if err != nil {
		return nil, s.describe(fmt.Sprintf("list messages of project %d", projectID), err)
	}
	return out, nil
}

package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ragd/ragd"
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

// eventTimeLayout is how session_events.time holds an event's time: UTC,
// nanoseconds, fixed width, so that text order is time order and the
// value compares exactly (a timestamptz would round it to microseconds).
const eventTimeLayout = "2006-01-02T15:04:05.000000000Z"

func formatEventTime(t time.Time) string { return t.UTC().Format(eventTimeLayout) }

func parseEventTime(s string) time.Time {
	t, err := time.Parse(eventTimeLayout, s)
	if err != nil {
		t, _ = time.Parse(time.RFC3339Nano, s)
	}
	return t
}

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

// eventWriter stores events in a transaction by the rules of AppendEvents.
type eventWriter struct {
	tx        pgx.Tx
	projectID int64
	owner     string
	share     bool
	stamp     time.Time
	// sessions holds what the writer learnt of each session: created by
	// this call, or whose owner and sharing it has brought in line.
	sessions map[string]*sessionState
}

// sessionState is what an eventWriter knows of one session.
type sessionState struct {
	mine    bool // owned by the writer's owner
	reshare bool // its sharing was changed to the writer's by this call
}

// write stores e, counting it in res. It reports whether e was stored (not
// a duplicate, not a conflict) and whether it changed its session's title.
func (w *eventWriter) write(ctx context.Context, e *ragd.Event, res *ragd.AppendResult) (stored, titled bool, err error) {
	if done, err := w.compare(ctx, e, res); done || err != nil {
		return false, false, err
	}
	st, err := w.session(ctx, e, res)
	if err != nil {
		return false, false, err
	}
	if !st.mine {
		res.Conflicts = append(res.Conflicts, ragd.EventConflict{EventID: e.ID, Fields: []string{ownerField}})
		return false, false, nil
	}
	if e.Title != "" {
		tag, err := w.tx.Exec(ctx, `UPDATE sessions SET title = $3 WHERE project_id = $1 AND id = $2 AND title != $3
			AND (title = '' OR NOT EXISTS (SELECT 1 FROM session_events
				WHERE project_id = $1 AND session_id = $2 AND time > $4))`,
			w.projectID, e.SessionID, e.Title, formatEventTime(e.Time))
		if err != nil {
			return false, false, fmt.Errorf("append event %q: title session %q: %w", e.ID, e.SessionID, err)
		}
		titled = tag.RowsAffected() > 0
	}
	var payload *string
	if e.Payload != nil {
		p := string(e.Payload)
		payload = &p
	}
	tag, err := w.tx.Exec(ctx, `INSERT INTO session_events (project_id, session_id, id, owner, type, actor, text, payload, time, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (project_id, id) DO NOTHING`,
		w.projectID, e.SessionID, e.ID, w.owner, e.Type, e.Actor, e.Text, payload, formatEventTime(e.Time), w.stamp)
	if err != nil {
		return false, false, fmt.Errorf("append event %q: %w", e.ID, err)
	}
	if tag.RowsAffected() == 0 {
		// Another writer stored the id since the look-up (its transaction
		// committed meanwhile): compare with what it stored.
		if _, err := w.compare(ctx, e, res); err != nil {
			return false, false, err
		}
		return false, titled, nil
	}
	res.Appended++
	res.ByType[e.Type]++
	return true, titled, nil
}

// compare looks e's id up and, when it is stored, counts e as a duplicate
// or a conflict and reports done.
func (w *eventWriter) compare(ctx context.Context, e *ragd.Event, res *ragd.AppendResult) (done bool, err error) {
	var old ragd.Event
	var owner, when string
	var payload *string
	err = w.tx.QueryRow(ctx, `SELECT session_id, owner, type, actor, text, time, payload FROM session_events
		WHERE project_id = $1 AND id = $2`, w.projectID, e.ID).
		Scan(&old.SessionID, &owner, &old.Type, &old.Actor, &old.Text, &when, &payload)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("append event %q: look up: %w", e.ID, err)
	}
	if owner != w.owner {
		res.Conflicts = append(res.Conflicts, ragd.EventConflict{EventID: e.ID, Fields: []string{ownerField}})
		return true, nil
	}
	old.ID, old.Time = e.ID, parseEventTime(when)
	if payload != nil {
		old.Payload = []byte(*payload)
	}
	if diff := eventDiff(old, *e); len(diff) > 0 {
		res.Conflicts = append(res.Conflicts, ragd.EventConflict{EventID: e.ID, Fields: diff})
	} else {
		res.Duplicates++
	}
	return true, nil
}

// session makes sure e's session exists, creating it for the writer's
// owner, and tells whose it is. An own session whose sharing differs from
// the writer's takes the writer's (see AppendSession).
func (w *eventWriter) session(ctx context.Context, e *ragd.Event, res *ragd.AppendResult) (*sessionState, error) {
	if st, ok := w.sessions[e.SessionID]; ok {
		return st, nil
	}
	tag, err := w.tx.Exec(ctx, `INSERT INTO sessions (project_id, id, owner, shared, title, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (project_id, id) DO NOTHING`,
		w.projectID, e.SessionID, w.owner, w.share, e.Title, w.stamp)
	if err != nil {
		return nil, fmt.Errorf("append event %q: create session %q: %w", e.ID, e.SessionID, err)
	}
	st := &sessionState{}
	if tag.RowsAffected() > 0 {
		res.SessionsCreated++
		st.mine = true
	} else {
		var owner string
		var shared bool
		// FOR SHARE: the session stays the owner's until the commit.
		err := w.tx.QueryRow(ctx, `SELECT owner, shared FROM sessions WHERE project_id = $1 AND id = $2 FOR SHARE`,
			w.projectID, e.SessionID).Scan(&owner, &shared)
		if err != nil {
			return nil, fmt.Errorf("append event %q: session %q: %w", e.ID, e.SessionID, err)
		}
		st.mine = owner == w.owner
		st.reshare = st.mine && shared != w.share
	}
	w.sessions[e.SessionID] = st
	return st, nil
}

// eventDiff names the fields in which a and b differ, by the rules of
// AppendEvents: time compared as an instant, payload as compacted JSON.
func eventDiff(a, b ragd.Event) []string {
	var diff []string
	for _, f := range []struct {
		name string
		x, y string
	}{
		{"sessionId", a.SessionID, b.SessionID},
		{"type", a.Type, b.Type},
		{"actor", a.Actor, b.Actor},
		{"text", a.Text, b.Text},
		{"time", formatEventTime(a.Time), formatEventTime(b.Time)},
	} {
		if f.x != f.y {
			diff = append(diff, f.name)
		}
	}
	if !bytes.Equal(compactJSON(a.Payload), compactJSON(b.Payload)) {
		diff = append(diff, "payload")
	}
	return diff
}

// compactJSON returns b without insignificant white space, or b itself if it
// is not JSON.
func compactJSON(b []byte) []byte {
	if b == nil {
		return nil
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
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
		ORDER BY e.session_id, e.time, e.seq`, s.owner, projectID, types)
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

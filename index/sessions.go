package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/chunking"
	"github.com/ragd/ragd/redact"
	"github.com/ragd/ragd/source"
)

// ragd.IndexedTypes are the event types that become chunks: the conversation.
// Everything else is mechanism and stays in the log only.

// importBatch is how many events ImportEvents stores per transaction: large
// enough to amortise the commit, small enough not to hold the writer long.
const importBatch = 500

// AppendEvents adds events to project p's session log, idempotently: an
// event whose id is stored with the same content is a duplicate, a no-op;
// with other content it is a ragd.Conflict, reported in the result while the
// other events are stored. A session is created by its first event; an
// event that carries a title names it, the latest in time winning (see
// store.Store.AppendEvents). Every event type is stored; chat.message and
// agent.response are indexed too: their chunks, cut as a reindex of scope
// session cuts them (same ids), are written in the same transaction, so
// they search lexically at once; vectors follow from the background fill.
// A new session title is carried to the session's stored chunks.
//
// The store holds every event to the event format's rules
// (ragd.Event.Validate): if one fails, nothing is stored and the error
// wraps ErrInvalidEvent, naming the event. Other errors are the store's
// (nothing of the call is stored).
//
// Before anything is stored or chunked, every event's text, title and
// payload go through redact.Event: secrets become "[REDACTED:kind]", and
// the result counts them by kind. events is not modified.
func (ix *Indexer) AppendEvents(ctx context.Context, p ragd.Project, events []ragd.Event) (ragd.AppendReport, error) {
	return ix.AppendEventsWith(ctx, p, events, AppendOptions{})
}

// AppendOptions tune AppendEventsWith. The zero value is AppendEvents.
type AppendOptions struct {
	// KeepRawPayload stores payloads as given, unredacted: a transcript
	// import's keep-raw, whose payload is the source record verbatim.
	// Text and title are redacted all the same.
	KeepRawPayload bool
	// Redacted says that the events' text and title have been through
	// redact.String already (a transcript reader's are): they are not
	// scanned a second time. Payloads are, unless KeepRawPayload.
	Redacted bool
}

// AppendEventsWith is AppendEvents with options.
func (ix *Indexer) AppendEventsWith(ctx context.Context, p ragd.Project, events []ragd.Event, opt AppendOptions) (ragd.AppendReport, error) {
	res := ragd.AppendReport{Conflicts: []ragd.Conflict{}}
	if err := ix.append(ctx, p, events, opt, &res); err != nil {
		return res, err
	}
	return res, nil
}

// append redacts rows and stores them, with the chunks of their messages,
// in one store transaction. Chunking every message of rows, before
// knowing which are new, costs what rows cost; the store writes the
// chunks of the new ones.
func (ix *Indexer) append(ctx context.Context, p ragd.Project, rows []ragd.Event, aopt AppendOptions, res *ragd.AppendReport) error {
	if len(rows) == 0 {
		return nil
	}
	opt, err := ix.chunkOptions()
	if err != nil {
		return err
	}
	rows = redactEvents(rows, aopt, res)
	chunks := make([][]ragd.ChunkInput, len(rows))
	for i := range rows {
		e := &rows[i]
		if !ragd.Indexed(e.Type) {
			continue
		}
		// The store sets the title: the session's, once the rows are stored.
		if chunks[i], _, err = messageChunks(e.SessionID, e.ID, "", e.Text, opt); err != nil {
			return fmt.Errorf("append events to %s: %w", p.Name, err)
		}
	}
	sres, err := ix.Store.AppendSession(ctx, p.ID, rows, chunks)
	if err != nil {
		return fmt.Errorf("append events to %s: %w", p.Name, err)
	}
	res.Appended += sres.Appended
	res.Duplicates += sres.Duplicates
	res.SessionsCreated += sres.SessionsCreated
	res.Chunks += sres.Chunks
	res.Unindexed += sres.Unindexed
	if sres.Chunks > 0 {
		ix.Backfill.Wake() // the chunks were written without vectors
	}
	for _, c := range sres.Conflicts {
		res.Conflicts = append(res.Conflicts, ragd.Conflict{EventID: c.EventID, Fields: c.Fields, Error: c.Error()})
	}
	for _, t := range ragd.IndexedTypes {
		res.Messages += sres.ByType[t]
	}
	return nil
}

// redactEvents returns rows with their text, title and payload redacted,
// counting in res.Redactions; rows itself is copied only if some event
// changes.
func redactEvents(rows []ragd.Event, opt AppendOptions, res *ragd.AppendReport) []ragd.Event {
	var out []ragd.Event
	for i := range rows {
		e := rows[i]
		if res.Redactions == nil {
			res.Redactions = map[string]int{}
		}
		switch {
		case !opt.Redacted:
			payload := e.Payload
			redact.Event(&e, res.Redactions)
			if opt.KeepRawPayload {
				e.Payload = payload
			}
		case !opt.KeepRawPayload && e.Payload != nil:
			e.Payload = redact.JSON(e.Payload, res.Redactions)
		}
		changed := e.Text != rows[i].Text || e.Title != rows[i].Title || !bytes.Equal(e.Payload, rows[i].Payload)
		if changed && out == nil {
			out = slices.Clone(rows)
		}
		if out != nil {
			out[i] = e
		}
	}
	if len(res.Redactions) == 0 {
		res.Redactions = nil
	}
	if out == nil {
		return rows
	}
	return out
}

// messageChunks cuts one message into its session chunks, titled title,
// and returns how many runs of bad bytes were replaced. A reindex and an
// append both cut messages here, so a chunk gets the same id either way.
func messageChunks(sessionID, eventID, title, text string, opt chunking.Options) ([]ragd.ChunkInput, int, error) {
	doc, err := chunking.Text(text, opt)
	if err != nil {
		return nil, 0, fmt.Errorf("chunking event %q: %w", eventID, err)
	}
	inputs := make([]ragd.ChunkInput, 0, len(doc.Chunks))
	for _, c := range doc.Chunks {
		inputs = append(inputs, ragd.ChunkInput{
			SessionID:   sessionID,
			EventID:     eventID,
			Title:       title,
			Position:    c.Position,
			Start:       c.Start,
			End:         c.End,
			Content:     c.Content,
			ContentHash: c.Hash,
		})
	}
	return inputs, doc.Replaced, nil
}

// ImportEvents reads a session event file (JSON lines, see
// source.ReadEvents) from r and appends its events to project p's log, in
// batches. A malformed line is reported with its number and the import goes
// on; a conflict is reported and the import goes on. The error is for a
// failure to read r (the events read before it are stored), for ctx, and for
// the store; the report then counts what was stored.
func (ix *Indexer) ImportEvents(ctx context.Context, p ragd.Project, r io.Reader) (ragd.ImportReport, error) {
	rep := ragd.ImportReport{AppendReport: ragd.AppendReport{Conflicts: []ragd.Conflict{}}, LineErrors: []ragd.LineError{}}
	batch := make([]ragd.Event, 0, importBatch)
	var stopped error // why storing stopped: ctx or the store
	flush := func() error {
		if stopped = ctx.Err(); stopped == nil {
			stopped = ix.append(ctx, p, batch, AppendOptions{}, &rep.AppendReport)
		}
		batch = batch[:0]
		return stopped
	}
	st, err := source.ReadEvents(r, func(e ragd.Event) error {
		batch = append(batch, e)
		if len(batch) < importBatch {
			return nil
		}
		return flush()
	})
	if stopped == nil {
		err = errors.Join(err, flush())
	}
	rep.Lines, rep.Events, rep.Bad = st.Lines, st.OK, st.Bad
	for _, le := range st.Errors {
		rep.LineErrors = append(rep.LineErrors, le)
	}
	if err != nil {
		return rep, fmt.Errorf("import events into %s: %w", p.Name, err)
	}
	return rep, nil
}

// Event returns event id of project p's log, with its session's current
// title as Title, so that a session citation resolves. It returns an error
// wrapping ragd.ErrNotFound when p has no such event.
func (ix *Indexer) Event(ctx context.Context, p ragd.Project, id string) (ragd.Event, error) {
	return ix.Store.Event(ctx, p.ID, id)
}

// sessionChunks reads and chunks the project's indexed messages.
func (r *reindex) sessionChunks(ctx context.Context, sr *ragd.ScopeReport) ([]ragd.ChunkInput, error) {
	r.progress(ragd.Progress{Phase: ragd.PhaseRead, Scope: sr.Scope})
	start := time.Now()
	msgs, err := r.ix.Store.Messages(ctx, r.p.ID, ragd.IndexedTypes)
	sr.Durations.ReadMs = ms(time.Since(start))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sr.Scope, err)
	}
	r.progress(ragd.Progress{Phase: ragd.PhaseRead, Scope: sr.Scope, Done: len(msgs), Total: len(msgs)})

	start = time.Now()
	defer func() { sr.Durations.ChunkMs = ms(time.Since(start)) }()
	tick := newTicker(len(msgs))
	r.progress(ragd.Progress{Phase: ragd.PhaseChunk, Scope: sr.Scope, Total: len(msgs)})
	var inputs []ragd.ChunkInput
	var through time.Time
	lastSession := ""
	for n, m := range msgs {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s: chunking: %w", sr.Scope, err)
			}
		}
		if tick.due(n) {
			r.progress(ragd.Progress{Phase: ragd.PhaseChunk, Scope: sr.Scope, Done: n, Total: len(msgs)})
		}
		// Messages come ordered by session.
		if m.SessionID != lastSession {
			sr.Sessions++
			lastSession = m.SessionID
		}
		sr.Messages++
		sr.Bytes += int64(len(m.Text))
		if m.CreatedAt.After(through) {
			through = m.CreatedAt
		}
		chunks, replaced, err := messageChunks(m.SessionID, m.EventID, ragd.SessionChunkTitle(m.SessionTitle, m.SessionID), m.Text, r.opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sr.Scope, err)
		}
		if replaced > 0 {
			sr.Replaced = append(sr.Replaced, ragd.Input{SessionID: m.SessionID, EventID: m.EventID, Reason: replacedReason(replaced)})
		}
		if len(chunks) == 0 {
			sr.Skipped = append(sr.Skipped, ragd.Input{SessionID: m.SessionID, EventID: m.EventID, Reason: ReasonNothingToIndex})
			continue
		}
		inputs = append(inputs, chunks...)
	}
	if !through.IsZero() {
		sr.EventsThrough = &through
	}
	r.progress(ragd.Progress{Phase: ragd.PhaseChunk, Scope: sr.Scope, Done: len(msgs), Total: len(msgs)})
	return inputs, nil
}

// RedactSessions re-applies the current redaction rules (package redact)
// to what project p's session scope stores already: events and their
// payloads, session titles, chunks and their lexical rows, transcript
// checkpoints, rewritten in place. It adds what it finds to counts, by
// kind; a second pass finds nothing. Run it after the rules improve.
func (ix *Indexer) RedactSessions(ctx context.Context, p ragd.Project, counts map[string]int) (ragd.RedactedProject, error) {
	rw := ragd.Rewriter{
		Text: func(s string, count bool) string {
			if !count {
				return redact.String(s, nil)
			}
			return redact.String(s, counts)
		},
		JSON: func(b []byte) []byte { return redact.JSON(b, counts) },
	}
	res, err := ix.Store.RewriteSessions(ctx, p.ID, rw)
	if err != nil {
		return ragd.RedactedProject{}, fmt.Errorf("redact the sessions of %s: %w", p.Name, err)
	}
	return ragd.RedactedProject{Project: p.Name, Events: res.Events, Sessions: res.Sessions, Chunks: res.Chunks, Checkpoints: res.Checkpoints}, nil
}

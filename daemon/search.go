package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/search"
)

// searchConfig turns the [search] section into the search package's
// configuration, validated.
func (c SearchConfig) searchConfig() (search.Config, error) {
	sc := c.Config
	if err := sc.Validate(); err != nil {
		return sc, fmt.Errorf("config [search]: %w", err)
	}
	if c.Limit < 1 || c.Limit > search.MaxLimit {
		return sc, fmt.Errorf("config [search]: limit %d: want 1..%d", c.Limit, search.MaxLimit)
	}
	return sc, nil
}

func (d *Daemon) handleSearch(w http.ResponseWriter, r *http.Request) error {
	p, err := d.project(r)
	if err != nil {
		return err
	}
	var req api.SearchRequest
	if err := d.decodeJSON(w, r, &req); err != nil {
		return err
	}
	req.Actor = sessionActor(req.Actor, req.SessionID)
	limit := d.cfg.Search.Limit
	if req.Limit != nil {
		limit = *req.Limit
	}
	resp, err := d.searcher.Search(r.Context(), search.Request{
		ProjectID: p.ID, Query: req.Query, Scopes: req.Scopes, Limit: limit,
		Fusion: search.Fusion(req.Fusion), Explain: req.Explain,
		Actor: search.Actor(req.Actor), SessionID: req.SessionID,
	})
	if errors.Is(err, ragd.ErrIndexCorrupt) {
		return &httpError{status: http.StatusServiceUnavailable, code: api.CodeIndexCorrupt,
			msg: fmt.Sprintf("the lexical index of project %s is corrupt on disk (%v): run `ragd reindex --project %s` to rebuild it", p.Name, err, p.Name)}
	}
	if err != nil {
		return err
	}
	if req.Explain {
		d.explainRules(r.Context(), p, resp.Hits)
	}
	if req.SessionID != "" {
		// The table is the measurement; the session log is the narrative.
		d.narrate(r.Context(), p, req.SessionID, "rag.search", req.Actor, map[string]any{
			"searchId": resp.SearchID, "query": req.Query, "hits": len(resp.Hits), "degraded": resp.Degraded,
		})
	}
	stale := d.watcher.staleScopes(p)
	if stale == nil {
		stale = []string{}
	}
	cfg := d.searcher.Config
	if req.Fusion != "" {
		cfg.Fusion = search.Fusion(req.Fusion)
	}
	notice := ""
	if !resp.Degraded {
		notice = d.firstNotice(r.Context(), cfg)
	}
	writeJSON(w, http.StatusOK, api.SearchResponse{SearchResult: api.FromSearchResult(resp), Project: p.Name, Stale: stale, Notice: notice, Limit: limit})
	return nil
}

// explainRules names, in each file hit's explanation, the rule that read
// the file into its scope. It never fails the search: without the runs'
// reports the explanation goes without.
func (d *Daemon) explainRules(ctx context.Context, p ragd.Project, hits []ragd.Hit) {
	found, err := d.indexer.FoundRules(ctx, p)
	if err != nil {
		d.logger.Debug("explain: the rules of the last reindex", "project", p.Name, "err", err)
		return
	}
	for i := range hits {
		h := &hits[i]
		if h.Explain != nil && h.Origin.Kind == ragd.OriginFile {
			h.Explain.Rule = index.RuleOf(found[h.Scope], h.Origin.SourcePath)
		}
	}
}

// narrate appends a rag.* event to a session's log. It never fails the
// request: the telemetry row is the record, the event only tells the story.
func (d *Daemon) narrate(ctx context.Context, p ragd.Project, sessionID, typ, actor string, payload map[string]any) {
	raw, _ := json.Marshal(payload)
	now := time.Now().UTC()
	ev := ragd.Event{
		ID: fmt.Sprintf("%s-%d-%d", typ, d.narrated.Add(1), now.UnixNano()), SessionID: sessionID, Type: typ,
		Actor: actor, Time: now, Payload: raw,
	}
	if _, err := d.indexer.AppendEvents(ctx, p, []ragd.Event{ev}); err != nil {
		d.logger.Warn("narrate in session log", "session", sessionID, "type", typ, "err", err)
	}
}

// sessionActor is who asked when the request does not say: a search or vote
// that comes with a session is an agent working inside it (SPEC), any other
// a person.
func sessionActor(actor, sessionID string) string {
	switch {
	case actor != "":
		return actor
	case sessionID != "":
		return string(search.ActorAgent)
	default:
		return string(search.ActorPerson)
	}
}

func (d *Daemon) handleFeedback(w http.ResponseWriter, r *http.Request) error {
	var req api.FeedbackRequest
	if err := d.decodeJSON(w, r, &req); err != nil {
		return err
	}
	req.Actor = sessionActor(req.Actor, req.SessionID)
	vote, err := d.searcher.Feedback(r.Context(), search.FeedbackRequest{
		SearchID: req.SearchID, ChunkID: req.ChunkID, Verdict: search.Verdict(req.Verdict),
		Actor: search.Actor(req.Actor), SessionID: req.SessionID,
	})
	if err != nil {
		return err
	}
	if req.SessionID != "" {
		if p, err := d.store.SearchProject(r.Context(), req.SearchID); err == nil {
			d.narrate(r.Context(), p, req.SessionID, "rag.feedback", req.Actor, map[string]any{
				"searchId": req.SearchID, "chunkId": req.ChunkID, "verdict": req.Verdict, "rank": vote.Rank,
			})
		}
	}
	writeJSON(w, http.StatusOK, api.FromVote(*vote))
	return nil
}

// handleMeasure answers GET /v1/measure?project=&since=&until=&k=. since and
// until are RFC 3339 times or durations back from now ("7d", "36h").
func (d *Daemon) handleMeasure(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var req search.MeasureRequest
	if name := q.Get("project"); name != "" {
		p, err := d.store.Project(r.Context(), name)
		if err != nil {
			return notFound("unknown project %q", name)
		}
		req.ProjectID, req.Project = p.ID, p.Name
	}
	now := time.Now()
	var err error
	if req.Since, err = ParseWhen(q.Get("since"), now); err != nil {
		return badRequest("since: %v", err)
	}
	if req.Until, err = ParseWhen(q.Get("until"), now); err != nil {
		return badRequest("until: %v", err)
	}
	if k := q.Get("k"); k != "" {
		if req.K, err = strconv.Atoi(k); err != nil {
			return badRequest("k %q: want a number 1..%d", k, search.MaxLimit)
		}
	}
	rep, err := d.searcher.Measure(r.Context(), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.FromMeasureReport(rep))
	return nil
}

// maxDays is the longest "Nd" window: more days overflow a time.Duration
// (about 292 years).
const maxDays = math.MaxInt64 / int64(24*time.Hour)

// ParseWhen reads a window bound as the measure route and `ragd eval
// --telemetry` take it: "" (zero: the default), an RFC 3339 time, or a
// duration back from now, with a d suffix for days ("7d", "12h"). A
// duration that overflows, or a bound before year 1, is an error.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	want := fmt.Errorf("%q: want an RFC 3339 time or a duration like 7d or 12h", s)
	var t time.Time
	if parsed, err := time.Parse(time.RFC3339, s); err == nil {
		t = parsed
	} else if n := len(s); n > 1 && s[n-1] == 'd' {
		days, err := strconv.ParseInt(s[:n-1], 10, 64)
		if err != nil || days < 0 {
			return time.Time{}, want
		}
		if days > maxDays {
			return time.Time{}, fmt.Errorf("%q: at most %dd back", s, maxDays)
		}
		t = now.Add(-time.Duration(days) * 24 * time.Hour)
	} else {
		dur, err := time.ParseDuration(s)
		if err != nil || dur < 0 {
			return time.Time{}, want
		}
		t = now.Add(-dur)
	}
	if t.Year() < 1 {
		return time.Time{}, fmt.Errorf("%q: before year 1", s)
	}
	return t, nil
}

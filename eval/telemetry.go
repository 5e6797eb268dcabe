package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/engine"
)

// TelemetrySet builds judged queries from the votes recorded in st's
// telemetry on project's searches created in [since, until) (a zero until
// means now). Evaluation searches are never read. Each voted search's
// query (with its scopes) becomes a query; searches repeating a query
// share it, the latest vote on a chunk winning. A chunk voted useful is
// relevant (grade 1), one voted irrelevant is judged not relevant, and
// every other hit is unjudged: the rankings are condensed to judged chunks
// (see Query.Judged), so that settings are compared on what someone looked
// at rather than on hits nobody judged. The unit is the chunk.
func TelemetrySet(ctx context.Context, st engine.TelemetryStore, projectID int64, since, until time.Time) (*Set, error) {
	if until.IsZero() {
		until = time.Now().Add(time.Second)
	}
	w, err := st.SearchTelemetry(ctx, ragd.TelemetryFilter{ProjectID: projectID, Since: since, Until: until})
	if err != nil {
		return nil, fmt.Errorf("judgments from telemetry: %w", err)
	}
	bySearch := map[int64][]ragd.Vote{}
	var searches []int64
	for _, v := range w.Votes {
		if _, ok := bySearch[v.SearchID]; !ok {
			searches = append(searches, v.SearchID)
		}
		bySearch[v.SearchID] = append(bySearch[v.SearchID], v)
	}
	slices.Sort(searches)

	set := &Set{Name: "telemetry"}
	type judged struct {
		verdict string
		at      time.Time
	}
	byKey := map[string]*Query{}
	verdicts := map[*Query]map[string]judged{}
	origins := map[*Query][]string{}
	for _, id := range searches {
		rec, err := st.LoadSearch(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("judgments from telemetry: %w", err)
		}
		key := rec.Query + "\x00" + strings.Join(rec.Scopes, ",")
		q, ok := byKey[key]
		if !ok {
			q = &Query{ID: fmt.Sprintf("search-%d", id), Text: rec.Query, Scopes: rec.Scopes, Unit: UnitChunk, Judged: map[string]bool{}}
			byKey[key] = q
			verdicts[q] = map[string]judged{}
			set.Queries = append(set.Queries, q)
		}
		origins[q] = append(origins[q], fmt.Sprint(id))
		for _, v := range bySearch[id] {
			if old, ok := verdicts[q][v.ChunkID]; !ok || !v.CreatedAt.Before(old.at) {
				verdicts[q][v.ChunkID] = judged{v.Verdict, v.CreatedAt}
			}
		}
	}
	noRelevant := 0
	for _, q := range set.Queries {
		q.Origin = "search " + strings.Join(origins[q], ", ")
		for _, chunk := range slices.Sorted(maps.Keys(verdicts[q])) {
			if verdicts[q][chunk].verdict == "useful" {
				q.Relevant = append(q.Relevant, Citation{ChunkID: chunk, Grade: 1})
			} else {
				q.Judged[chunk] = true
			}
		}
		if len(q.Relevant) == 0 {
			noRelevant++
		}
	}
	if len(set.Queries) > 0 {
		set.Warnings = append(set.Warnings, fmt.Sprintf("telemetry: %d voted searches, %d distinct queries; %d with no useful vote (counted apart); "+
			"rankings are condensed to voted chunks", len(searches), len(set.Queries), noRelevant))
	}
	return set, nil
}

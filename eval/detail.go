package eval

import "math"

// QueryResult is one judged query's nDCG@10 under each mode of a report.
type QueryResult struct {
	ID   string `json:"id"`
	Text string `json:"query"`
	// NDCG10 holds the query's nDCG@10 under each mode, in Report.Modes
	// order; null where it is undefined.
	NDCG10 []*float64 `json:"ndcg10"`
	// NoHit is set when every mode answered nothing at all; Missed when no
	// mode ranked a relevant unit in its top 10.
	NoHit  bool `json:"noHit"`
	Missed bool `json:"missed"`
}

// Detail adds what a report's charts read and its means alone do not say:
// each mode's bootstrap interval of every metric's mean (r.Bootstrap), and
// each query's nDCG@10 under every mode. rs are the retrievals r.Modes were
// evaluated over, in the same order.
func (r *Report) Detail(rs []*Retrieval) {
	for _, m := range r.Modes {
		m.Intervals = map[string]Interval{}
		zero := make([]float64, len(m.Scores))
		for _, metric := range Metrics {
			x := make([]float64, len(m.Scores))
			for i, s := range m.Scores {
				x[i] = s.Get(metric)
			}
			// The mean of x − 0, resampled: the percentile interval of the
			// mean itself.
			if iv := PairedBootstrap(x, zero, r.Bootstrap); !math.IsNaN(iv.Mean) {
				m.Intervals[metric] = iv
			}
		}
	}
	r.Queries = make([]QueryResult, len(rs))
	for i, ret := range rs {
		q := QueryResult{ID: ret.Query.ID, Text: ret.Query.Text, NDCG10: make([]*float64, len(r.Modes)), NoHit: len(r.Modes) > 0}
		missed, defined := true, false
		for j, m := range r.Modes {
			if i >= len(m.Scores) {
				continue
			}
			s := m.Scores[i]
			if v := s.NDCG10; !math.IsNaN(v) {
				q.NDCG10[j] = &v
				missed, defined = missed && v == 0, true
			}
			q.NoHit = q.NoHit && s.NoHit
		}
		q.Missed = missed && defined
		r.Queries[i] = q
	}
}

package daemon

import (
	"context"
	"sync"

	"github.com/ragd/ragd"
	"github.com/ragd/ragd/search"
)

// spaceProfiles keeps the profile of each embedding space the daemon
// measured (ragd.SpaceProfile): measured once enough chunks have a vector,
// then kept for the daemon's life, since random pairs of a model's
// vectors score alike whatever the texts. It also remembers whether the
// first search's notice was said.
type spaceProfiles struct {
	mu       sync.Mutex
	measured map[string]ragd.SpaceProfile
	noticed  map[string]bool
}

// spaceProfile returns the profile of the store's embedding space under
// cfg, nil while too few vectors are stored to measure it.
func (d *Daemon) spaceProfile(ctx context.Context, cfg search.Config) (*ragd.SpaceProfile, error) {
	space := d.store.Space()
	d.spaces.mu.Lock()
	p, ok := d.spaces.measured[space]
	d.spaces.mu.Unlock()
	if !ok {
		mean, n, err := d.store.RandomPairCosine(ctx, search.ProfilePairs)
		if err != nil {
			return nil, err
		}
		if n < search.MinProfilePairs {
			return nil, nil
		}
		p = ragd.SpaceProfile{Space: space, Pairs: n, RandomCosine: mean}
		if n >= search.ProfilePairs {
			// Fewer pairs are measured again when asked: the index grows.
			d.spaces.mu.Lock()
			if d.spaces.measured == nil {
				d.spaces.measured = map[string]ragd.SpaceProfile{}
			}
			d.spaces.measured[space] = p
			d.spaces.mu.Unlock()
		}
	}
	p.WeightedUnreliable = cfg.WeightedUnreliable(p.RandomCosine)
	p.Advice = cfg.FlatSpaceAdvice(p.Space, p.RandomCosine)
	return &p, nil
}

// baseline is search.Searcher.Baseline: the random-pair cosine of the
// store's space, from its profile. A failure to measure reads cosine as
// it is: the search answers.
func (d *Daemon) baseline(ctx context.Context) (float64, bool) {
	p, err := d.spaceProfile(ctx, d.searcher.Config)
	if err != nil {
		d.logger.Debug("search: measure the embedding space", "err", err)
		return 0, false
	}
	if p == nil {
		return 0, false
	}
	return p.RandomCosine, true
}

// firstNotice returns the advice of an unreliable weighted fusion for the
// daemon's first search that ran with it, "" otherwise and afterwards. A
// failure to measure says nothing: the search answered.
func (d *Daemon) firstNotice(ctx context.Context, cfg search.Config) string {
	space := d.store.Space()
	d.spaces.mu.Lock()
	said := d.spaces.noticed[space]
	d.spaces.mu.Unlock()
	if said || !cfg.WeightedUnreliable(1) {
		return "" // said, or no space could make this fusion unreliable
	}
	p, err := d.spaceProfile(ctx, cfg)
	if err != nil || p == nil || !p.WeightedUnreliable {
		return ""
	}
	d.spaces.mu.Lock()
	defer d.spaces.mu.Unlock()
	if d.spaces.noticed[space] {
		return ""
	}
	if d.spaces.noticed == nil {
		d.spaces.noticed = map[string]bool{}
	}
	d.spaces.noticed[space] = true
	return p.Advice
}

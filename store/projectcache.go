package store

import (
	"sync"

	"github.com/ragd/ragd"
)

// projectCache remembers the projects Project found: every request of the
// daemon resolves its project, and under load each lookup queued for a read
// connection behind the searches holding them (docs/adr/0009-scale.md).
// Every write to the projects table forgets it all.
type projectCache struct {
	mu  sync.Mutex
	gen uint64 // bumped by every forget
	m   map[string]ragd.Project
}

// get returns the cached project and the generation to pass to put.
func (c *projectCache) get(key string) (ragd.Project, bool, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[key]
	return p, ok, c.gen
}

// put caches p unless a write forgot the cache since gen was read: the read
// may predate that write.
func (c *projectCache) put(key string, p ragd.Project, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.m == nil {
		c.m = map[string]ragd.Project{}
	}
	c.m[key] = p
}

func (c *projectCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.m = nil
}

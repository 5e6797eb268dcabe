package embedding

import (
	"container/list"
	"slices"
	"sync"
)

// QueryCacheSize is how many recent query vectors a Service keeps in
// memory: a person refining a search and agents repeating one ask again
// within minutes, and a hit answers without the provider (nor its queue
// behind indexing). 256 vectors of 1024 dims are 1 MB.
const QueryCacheSize = 256

// queryCache is a least-recently-used map of the text sent for a query to
// its vector. Safe for concurrent use.
type queryCache struct {
	mu    sync.Mutex
	size  int
	order *list.List // of *queryEntry, most recent first
	byKey map[string]*list.Element
}

type queryEntry struct {
	key string
	vec []float32
}

func newQueryCache(size int) *queryCache {
	return &queryCache{size: size, order: list.New(), byKey: make(map[string]*list.Element, size)}
}

// get returns a copy of key's vector, or nil.
func (c *queryCache) get(key string) []float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return slices.Clone(e.Value.(*queryEntry).vec)
}

// put keeps a copy of vec for key, forgetting the least recent beyond size.
func (c *queryCache) put(key string, vec []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		e.Value.(*queryEntry).vec = slices.Clone(vec)
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&queryEntry{key: key, vec: slices.Clone(vec)})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*queryEntry).key)
	}
}

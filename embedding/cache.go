package embedding

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
)

// Cache keeps vectors by embedding space and content key, so that reindexing
// unchanged text makes no provider call. ragd's SQLite store implements it;
// MemoryCache is an in-memory one.
//
// space is Space.String(); a key is CacheKey of the exact text sent to the
// model, task prefix included, so a change of prefix misses the cache.
// Implementations must be safe for concurrent use. The Service treats a
// Cache error as a miss (lookups) or a lost write (stores): it logs it and
// carries on, because a cache must never be why embedding fails.
type Cache interface {
	// LookupEmbeddings returns the vectors cached for keys; missing keys are
	// absent from the map.
	LookupEmbeddings(ctx context.Context, space string, keys []string) (map[string][]float32, error)
	// StoreEmbeddings caches vecs by key, replacing older entries. It must
	// not keep the slices: the same vectors are handed to the caller.
	StoreEmbeddings(ctx context.Context, space string, vecs map[string][]float32) error
}

// CacheKey returns the cache key of a text exactly as sent to the model: the
// hex SHA-256 of its bytes.
func CacheKey(sent string) string {
	sum := sha256.Sum256([]byte(sent))
	return hex.EncodeToString(sum[:])
}

// MemoryCache is a Cache in memory, for tests and tools. It copies vectors in
// and out, so callers may modify what they pass or get. The zero value is
// ready to use; it is safe for concurrent use.
type MemoryCache struct {
	mu sync.Mutex
	m  map[memoryKey][]float32
}

type memoryKey struct{ space, key string }

var _ Cache = (*MemoryCache)(nil)

// NewMemoryCache returns an empty MemoryCache.
func NewMemoryCache() *MemoryCache {
	return &MemoryCache{}
}

// LookupEmbeddings implements Cache.
func (c *MemoryCache) LookupEmbeddings(ctx context.Context, space string, keys []string) (map[string][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]float32, len(keys))
	for _, k := range keys {
		if v, ok := c.m[memoryKey{space, k}]; ok {
			out[k] = slices.Clone(v)
		}
	}
	return out, nil
}

// StoreEmbeddings implements Cache.
func (c *MemoryCache) StoreEmbeddings(ctx context.Context, space string, vecs map[string][]float32) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[memoryKey][]float32, len(vecs))
	}
	for k, v := range vecs {
		c.m[memoryKey{space, k}] = slices.Clone(v)
	}
	return nil
}

// Len returns the number of cached vectors, over all spaces.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

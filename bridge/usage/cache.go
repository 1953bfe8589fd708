package usage

import (
	"strconv"
	"sync"
)

// Cache keeps what each session's files gave, keyed by their sizes and
// modification times, so that reading the history again (the usage page
// refreshing) parses only the files that changed. It is safe for
// concurrent use; its memory is the turns it holds, not the files.
type Cache struct {
	mu sync.Mutex
	m  map[string]cached
}

type cached struct {
	sig    string
	turns  []Turn
	limits []Limit
	bytes  int64
	err    error
}

// sigOf is what a group's files look like on disk now.
func sigOf(g group) string {
	return strconv.FormatInt(g.size, 10) + "/" + strconv.FormatInt(g.mod.UnixNano(), 10) + "/" + strconv.Itoa(len(g.files))
}

func (c *Cache) get(g group) (cached, bool) {
	if c == nil {
		return cached{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[g.files[0]]
	return v, ok && v.sig == sigOf(g)
}

func (c *Cache) put(g group, v cached) {
	if c == nil {
		return
	}
	v.sig = sigOf(g)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cached{}
	}
	c.m[g.files[0]] = v
}

// keep drops what no longer is on disk.
func (c *Cache) keep(groups []group) {
	if c == nil {
		return
	}
	seen := make(map[string]bool, len(groups))
	for _, g := range groups {
		seen[g.files[0]] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if !seen[k] {
			delete(c.m, k)
		}
	}
}

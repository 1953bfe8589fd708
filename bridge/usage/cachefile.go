package usage

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"

	"conductorbridge/bridge/price"
	"conductorbridge/bridge/regular"
)

// CacheFile is the usage cache's name in the state folder.
const CacheFile = "usage.cache"

// cacheVersion names the cache file's format and the way turns are
// counted: a file of another version is rebuilt. Bump it whenever either
// changes (the parsers counting a turn differently, say an interrupted
// one): what the cache keeps are the turns as they were counted.
// 4: a cut-off turn is ended by the parsers' Interrupt (a Codex turn
// with token counts and no response yet counts).
// 5: two sections: what a warm read needs, then where reads stopped and
// what made the costs; each group's turns a block with its own strings.
// 6: blocks named by an index, appended to (see codec_file.go).
// 7: the agents' formats are drivers (bridge/usage/driver): one list of
// charges per turn whatever its agent, one string for the homes read,
// each reader's own state where a read stopped.
// 8: a database's entry (driver.Rows) keeps where its read stopped, its
// table's mark and each session's place; a reader of 7 would take it for
// a file's and add the rows read since to its turns again.
// 9: Claude Code 2.0's warm-ups count in the turn they were asked for (a
// turn waits for their answers); an empty transcript and the warm-ups
// only it names are no session.
// 10: a mark says how much of its file was read without the lines' times
// (mark.Untimed); a reader of 9 would take that file's times for known.
const cacheVersion = 10

// priceKey identifies a price table: costs in the cache are of it.
func priceKey(t *price.Table) uint64 {
	b, err := json.Marshal(struct {
		Unit                 string
		LongContextThreshold int64
		ServerTools          map[string]float64
		Models               map[string]price.Model
		Aliases              map[string]string
	}{t.Unit, t.LongContextThreshold, t.ServerTools, t.Models, t.Aliases})
	if err != nil {
		return 0 // never: the table came from JSON
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// begin readies the cache for a read with these prices of these folders:
// the file is read the first time, and entries of other prices or folders
// are let go.
func (c *Cache) begin(prices uint64, roots string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.loaded = true
		if c.Path != "" {
			c.load()
		}
	}
	if c.roots != roots {
		if len(c.m) > 0 {
			c.dirty = true
		}
		c.m, c.roots = nil, roots
	}
	// Entries of other prices are repriced as the read meets them.
	c.prices = prices
}

// load reads the cache file's index and warm blocks; one that cannot be
// read or decoded is ignored (and said so once), to be written anew.
func (c *Cache) load() {
	f, err := regular.Open(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err == nil {
		var cc *cacheContent
		if cc, err = readCache(f); err == nil {
			c.m, c.roots, c.file, c.head = cc.entries, cc.roots, f, cc.head
			c.froot, c.fcost, c.live = cc.roots, cc.prices, cc.live
			for _, e := range c.m {
				e.prices = cc.prices
			}
			return
		}
		f.Close()
		if errors.Is(err, errOldCache) {
			c.dirty = true // another version's: rebuilt, nothing to say
			return
		}
	}
	c.complain(fmt.Sprintf("usage cache %s ignored, reading the history again: %v", c.Path, err))
	c.dirty = true
}

// snapOf is where e's read stopped (nil: not known).
func (c *Cache) snapOf(e *entry) *resume { return decodePart(c, e, &e.snap, decodeSnap) }

// pricingsOf is what made each of e's turns cost (nil: not known).
func (c *Cache) pricingsOf(e *entry) []pricing {
	return decodePart(c, e, &e.priced, decodePricing)
}

// decodePart is e's part p decoded; the zero value (nil) where it is not
// known or does not decode.
func decodePart[T any](c *Cache, e *entry, p *part, decode func([]byte) (T, error)) T {
	var none T
	raw := c.part(e, p)
	if raw == nil {
		return none
	}
	v, err := decode(raw)
	if err != nil {
		return none
	}
	return v
}

// part is the block p of e, read from the cache file when it is there
// (nil: none). One whose checksum fails is let go, and said so.
func (c *Cache) part(e *entry, p *part) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.raw != nil || p.at.n == 0 {
		return p.raw
	}
	b := readExtent(c.file, p.at)
	if b == nil {
		p.at = extent{}
		e.at = extent{} // its index entry changes: written again
		c.dirty = true
		c.complain(fmt.Sprintf("usage cache %s: a damaged block let go, reading its files again", c.Path))
	}
	return b
}

// complain says msg, once for the cache's life: a file that cannot be
// read usually cannot be written either.
func (c *Cache) complain(msg string) {
	if c.Log != nil && !c.said {
		c.Log(msg)
	}
	c.said = true
}

// finish writes what changed to the cache file: appended to the file as
// loaded (or last written) when it is still the one in place, else the
// whole file anew (cachewrite.go).
func (c *Cache) finish() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || c.Path == "" {
		return
	}
	c.dirty = false
	for k, e := range c.m {
		if e.prices != c.prices {
			delete(c.m, k) // not met by the read: its costs are of other prices
		}
	}
	if err := c.write(); err != nil {
		c.complain(fmt.Sprintf("usage cache %s not written: %v", c.Path, err))
	}
}

// store keeps what a read of g made (nil: nothing to keep, the entry goes).
func (c *Cache) store(g group, e *entry, err error) {
	if e != nil && err == nil {
		c.put(g, e)
		return
	}
	c.drop(g)
}

package usage

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"

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
// 5: two sections (see codec_file.go): what a warm read needs, then
// where reads stopped and what made the costs; each group's turns a block
// with its own strings.
const cacheVersion = 5

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
func (c *Cache) begin(prices uint64, roots [2]string) {
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

// load reads the cache file's first section (and checks the second);
// one that cannot be read or decoded is ignored (and said so once), to be
// written anew.
func (c *Cache) load() {
	f, err := regular.Open(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err == nil {
		var cc cacheContent
		err = readCache(f, &cc)
		f.Close()
		if err == nil {
			c.m, c.roots, c.head = cc.entries, cc.roots, cc.head
			for _, e := range c.m {
				e.prices = cc.head.prices
			}
			return
		}
		if errors.Is(err, errOldCache) {
			c.dirty = true // another version's: rebuilt, nothing to say
			return
		}
	}
	c.complain(fmt.Sprintf("usage cache %s ignored, reading the history again: %v", c.Path, err))
	c.dirty = true
}

// fill reads the parts of the entries still in the cache file (its
// second section), if that file is still the one loaded: else they are
// let go (the groups are read from the start, and again when prices
// change). c.mu is held.
func (c *Cache) fill() {
	head := c.head
	c.head = header{}
	pending := false
	for _, e := range c.m {
		pending = pending || (e.snap.raw == nil && e.snap.n > 0) || (e.priced.raw == nil && e.priced.n > 0)
	}
	if !pending {
		return
	}
	var more []byte
	if head.lenB > 0 {
		more, _ = readMore(c.Path, head)
	}
	get := func(p *part) {
		if p.raw != nil || p.n == 0 {
			return
		}
		if more != nil && p.off >= 0 && p.n <= int64(len(more)) && p.off <= int64(len(more))-p.n {
			p.raw = more[p.off : p.off+p.n : p.off+p.n]
		}
		p.off, p.n = 0, 0
	}
	for _, e := range c.m {
		get(&e.snap)
		get(&e.priced)
	}
}

// snapOf is where e's read stopped (nil: not known).
func (c *Cache) snapOf(e *entry) *resume {
	raw := c.part(e, func(e *entry) *part { return &e.snap })
	if raw == nil {
		return nil
	}
	r, err := decodeSnap(raw)
	if err != nil {
		return nil
	}
	return r
}

// pricingsOf is what made each of e's turns cost (nil: not known).
func (c *Cache) pricingsOf(e *entry) []pricing {
	raw := c.part(e, func(e *entry) *part { return &e.priced })
	if raw == nil {
		return nil
	}
	ps, err := decodePricing(raw)
	if err != nil {
		return nil
	}
	return ps
}

func (c *Cache) part(e *entry, which func(*entry) *part) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := which(e); p.raw == nil && p.n > 0 {
		c.fill()
	}
	return which(e).raw
}

// complain says msg, once for the cache's life: a file that cannot be
// read usually cannot be written either.
func (c *Cache) complain(msg string) {
	if c.Log != nil && !c.said {
		c.Log(msg)
	}
	c.said = true
}

// finish writes the cache file if it changed: to a new file (0600) put in
// place at once, so a reader beside (another usage run) reads the old or
// the new, never half of one.
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
	c.fill()
	b := encodeCache(&cacheContent{entries: c.m, head: header{prices: c.prices}, roots: c.roots})
	if err := writeFile(c.Path, b); err != nil {
		c.complain(fmt.Sprintf("usage cache %s not written: %v", c.Path, err))
	}
}

func writeFile(path string, pieces [][]byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".usage-cache-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	w := bufio.NewWriterSize(tmp, 256<<10)
	for _, b := range pieces {
		if _, err := w.Write(b); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// store keeps what a read of g made (nil: nothing to keep, the entry goes).
func (c *Cache) store(g group, e *entry, err error) {
	if e != nil && err == nil {
		c.put(g, e)
		return
	}
	c.drop(g)
}

package usage

import (
	"fmt"
	"hash/fnv"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/regular"
)

// Cache keeps what each session's files gave, so that reading the
// history again parses only what changed: a file that only grew is read
// on from where the last read stopped, with the parsers' state there; one
// that shrank, was replaced or changed in place is read again; a session
// whose files are gone drops out.
//
// With a Path it lives in that file between runs (the usage command, the
// bridge's usage page): see cachefile.go. It is safe for concurrent use.
type Cache struct {
	// Path is the cache file ("": kept in memory only).
	Path string
	// Log hears, in one line, why a cache file was ignored (nil: nobody).
	Log func(msg string)

	mu     sync.Mutex
	m      map[string]*entry // by the group's first file
	loaded bool              // Path was read (or tried)
	prices uint64            // the price table the entries' costs are of
	roots  string            // the homes the entries were read from
	// file is the cache file as loaded or last written (nil: none), open
	// for reading the blocks the entries name in it: the bytes an index
	// named are never written over, and a file put in its place leaves
	// this one as it was.
	file  *os.File
	head  header // its header as loaded or written
	froot string // the homes its entries are of
	fcost uint64 // the prices its entries' costs are of
	live  int64  // bytes its index and the blocks it names take
	dirty bool   // differs from the file
	said  bool   // a complaint was logged
	// What the reads did with each group: for the tests that prove each
	// way is taken.
	reused, resumed, reread, repriced atomic.Int64
	share                             int64 // snapShare, unless a test says otherwise
	slack                             int64 // deadFloor, unless a test says otherwise
	appended, rewritten               int   // the file's writes of each kind
}

// Reads says what the reads through c did with the groups so far: how
// many were taken as they were, read on from where they stopped, read
// again from their start.
func (c *Cache) Reads() (reused, resumed, reread int64) {
	return c.reused.Load(), c.resumed.Load(), c.reread.Load()
}

func (c *Cache) snapShare() int64 {
	if c == nil || c.share == 0 {
		return snapShare
	}
	return c.share
}

// entry is what one group (a session's record files) gave when last read.
type entry struct {
	agent string
	files []fileID
	bytes int64
	// turns are its turns as encodeTurns writes them: those complete
	// before the files' end (final) first, then done to n those the
	// files' end completed (read again if they grow). A warm read decodes
	// them straight into the history.
	turns   []byte
	n, done int
	limits  []Limit // the newest plan limits recorded, with their workspace
	// snap is where a later read may go on (encodeSnap; none: from the
	// start); priced what made each turn's cost (encodePricing; none: not
	// known, the files are read again when prices change). Only a read
	// that goes on, or reprices, needs them: they stay in the cache file
	// until then (Cache.part).
	snap, priced part
	prices       uint64 // the table the costs are of
	at           extent // its warm block in Cache.file (none: not written yet)
}

// part is a block of an entry that is read only when needed.
type part struct {
	raw []byte // the block, not written yet (nil: none, or in the file)
	at  extent // where it is in Cache.file
}

// none reports whether p holds nothing, in memory or in the file.
func (p *part) none() bool { return p.raw == nil && p.at.n == 0 }

// fileID is what one file was when read: a later listing that finds the
// same device, inode, size and time, and the same bytes at its start and
// at the end of what was read, takes it as unchanged; the same but longer
// (its old end still there), as grown.
type fileID struct {
	path     string
	dev, ino uint64
	size     int64  // what was read
	mtime    int64  // UnixNano
	sample   uint64 // a hash of the bytes at its start and before size
}

// resume is where a read stopped and what it knew there.
type resume struct {
	Main   []byte // the group's reader's state (driver.Reader.Save)
	Cwd    string
	Files  []mark
	Limits []Limit // the newest plan limits so far
}

// mark is where one file was read to.
type mark struct {
	Path   string
	Off    int64  // read to here, just after a newline
	Parser []byte // its own reader state (a subagent file's parser's), if any
	// Last is the time of its last line with one, Max the latest any of
	// its lines said: a merged read goes on only when the new lines come
	// after them. Not known after a read that did not look at every line.
	Last, Max           time.Time
	LastKnown, MaxKnown bool
	// Untimed: the last this many bytes before Off were read without
	// their lines' times (the file left last in a merge, from its start):
	// Last and Max are of the lines before them, and a merged read going
	// on from here reads their times first (timed).
	Untimed int64
}

// snapShare bounds a saved state: it is kept only for files this many
// times its size, so the cache stays a small part of the history.
const snapShare = 50

// size is about what r takes in the cache file.
func (r *resume) size() int64 {
	n := len(r.Main) + len(r.Cwd)
	for _, m := range r.Files {
		n += len(m.Path) + len(m.Parser) + 40
	}
	return int64(n) + 100*int64(len(r.Limits))
}

func (r *resume) byPath() map[string]*mark {
	m := make(map[string]*mark, len(r.Files))
	for i := range r.Files {
		m[r.Files[i].Path] = &r.Files[i]
	}
	return m
}

// sampleLen is how many bytes at a file's start and at the end of what
// was read identify its content.
const sampleLen = 32

// change is what became of a group's files since its entry was made.
type change int

const (
	changed   change = iota // read it all again
	unchanged               // take the entry as it is
	grown                   // read on from the entry's marks
)

// compare tells what became of g's files since e was made. A file that is
// new to the group counts as grown from nothing.
func compare(g group, e *entry) change {
	if e == nil || e.agent != g.agent || len(e.files) > len(g.Files) {
		return changed
	}
	old := make(map[string]*fileID, len(e.files))
	for i := range e.files {
		old[e.files[i].path] = &e.files[i]
	}
	if len(old) != len(e.files) {
		return changed
	}
	res := unchanged
	seen := 0
	for i, path := range g.Files {
		id := old[path]
		if id == nil {
			if i == 0 {
				return changed
			}
			res = grown // a new subagent file
			continue
		}
		seen++
		st := g.stats[i]
		if st.dev != id.dev || st.ino != id.ino || st.size < id.size {
			return changed
		}
		if st.size == id.size && st.mtime != id.mtime {
			return changed // written in place (or only touched: read it anyway)
		}
		if sum, err := sample(path, id.size); err != nil || sum != id.sample {
			return changed
		}
		if st.size > id.size {
			res = grown
		}
	}
	if seen != len(e.files) {
		return changed // a file of it is gone
	}
	return res
}

// sameDatabase reports whether g's first file (a database) is the one
// e was read from, at least as long: not replaced, not shrunk (a VACUUM
// renumbers the rows it keeps).
func sameDatabase(g group, e *entry) bool {
	if e == nil || e.agent != g.agent || len(e.files) == 0 || e.files[0].path != g.Files[0] {
		return false
	}
	id, st := e.files[0], g.stats[0]
	return st.dev == id.dev && st.ino == id.ino && st.size >= id.size
}

// get returns g's entry (nil when there is none) and whether its costs
// are of the prices of this read.
func (c *Cache) get(g group) (*entry, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[g.Files[0]]
	return e, e != nil && e.prices == c.prices
}

func (c *Cache) put(g group, e *entry) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*entry{}
	}
	e.prices = c.prices
	e.at = extent{} // to be written
	c.m[g.Files[0]] = e
	c.dirty = true
}

// drop forgets g's entry (its read failed: it is tried again next time).
func (c *Cache) drop(g group) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[g.Files[0]]; ok {
		delete(c.m, g.Files[0])
		c.dirty = true
	}
}

// keep drops what no longer is on disk.
func (c *Cache) keep(groups []group) {
	if c == nil {
		return
	}
	seen := make(map[string]bool, len(groups))
	for _, g := range groups {
		seen[g.Files[0]] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if !seen[k] {
			delete(c.m, k)
			c.dirty = true
		}
	}
}

// fileStat is a listed file's identity.
type fileStat struct {
	dev, ino uint64
	size     int64
	mtime    int64 // UnixNano
}

// identify says what the open file f (at path) is, read to size.
func identify(f *os.File, path string, size int64) (fileID, error) {
	info, err := f.Stat()
	if err != nil {
		return fileID{}, err
	}
	st := statOf(info)
	if st.size < size {
		return fileID{}, fmt.Errorf("%s shrank while read", path)
	}
	sum, err := sampleAt(f, size)
	if err != nil {
		return fileID{}, err
	}
	return fileID{path: path, dev: st.dev, ino: st.ino, size: size, mtime: st.mtime, sample: sum}, nil
}

// sample hashes the bytes identifying the first size bytes of path.
func sample(path string, size int64) (uint64, error) {
	f, err := regular.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return sampleAt(f, size)
}

// sampleAt hashes up to sampleLen bytes at f's start and before size.
func sampleAt(f *os.File, size int64) (uint64, error) {
	var b [2 * sampleLen]byte
	n := min(size, sampleLen)
	if _, err := f.ReadAt(b[:n], 0); err != nil {
		return 0, fmt.Errorf("sample %s: %w", f.Name(), err)
	}
	if _, err := f.ReadAt(b[n:2*n], size-n); err != nil {
		return 0, fmt.Errorf("sample %s: %w", f.Name(), err)
	}
	h := fnv.New64a()
	h.Write(b[:2*n])
	return h.Sum64(), nil
}

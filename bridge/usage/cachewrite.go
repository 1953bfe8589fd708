package usage

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"

	"conductorbridge/bridge/regular"
)

// deadFloor is how many bytes of blocks no index names any longer a cache
// file may hold, or half its live bytes if more, before it is written
// whole again.
const deadFloor = 256 << 10

func (c *Cache) deadAllowed(live int64) int64 {
	floor := int64(deadFloor)
	if c.slack != 0 {
		floor = max(c.slack, 0)
	}
	return max(live/2, floor)
}

// errWhole: the file cannot be appended to (another run wrote it since,
// or is writing it; it is gone; too much of it would be dead): it is
// written whole.
var errWhole = errors.New("write the cache file whole")

// write writes the entries to the cache file: only what changed, appended,
// when the file is still the one loaded or last written here; else all of
// it to a new file put in its place. c.mu is held.
func (c *Cache) write() error {
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if c.file != nil && c.froot == c.roots && c.fcost == c.prices {
		err := c.appendTo(keys)
		if !errors.Is(err, errWhole) {
			return err
		}
	}
	return c.rewrite(keys)
}

// layout places the entries' blocks not in the file yet one after
// another from base: warm blocks first, then the others. It returns those
// blocks (to be written at base), the index naming every live block, and
// how many bytes the index and the blocks it names take.
func (c *Cache) layout(keys []string, base int64) ([]byte, *index, int64) {
	ix := &index{roots: c.roots, prices: c.prices,
		warm: make([]extent, len(keys)), priced: make([]extent, len(keys)), snap: make([]extent, len(keys))}
	var live int64
	size := 0
	for _, k := range keys {
		e := c.m[k]
		if e.at.n == 0 {
			size += len(e.turns) + 64*len(e.files) + 64
		}
		size += len(e.priced.raw) + len(e.snap.raw)
	}
	enc := &encoder{b: make([]byte, 0, size)}
	for i, k := range keys {
		e := c.m[k]
		x := e.at
		if x.n == 0 {
			start := len(enc.b)
			enc.warm(e)
			x = extent{off: base + int64(start), n: int64(len(enc.b) - start), crc: crc32.ChecksumIEEE(enc.b[start:])}
		}
		ix.warm[i] = x
		live += x.n
	}
	for i, k := range keys {
		e := c.m[k]
		for _, w := range []struct {
			p  *part
			to []extent
		}{{&e.priced, ix.priced}, {&e.snap, ix.snap}} {
			x := w.p.at
			if w.p.raw != nil {
				x = extent{off: base + int64(len(enc.b)), n: int64(len(w.p.raw)), crc: crc32.ChecksumIEEE(w.p.raw)}
				enc.b = append(enc.b, w.p.raw...)
			}
			w.to[i] = x
			live += x.n
		}
	}
	return enc.b, ix, live
}

// placed takes the blocks of the file just written as where the entries'
// blocks are: those read only when needed leave memory.
func (c *Cache) placed(keys []string, ix *index, h header, live int64) {
	for i, k := range keys {
		e := c.m[k]
		e.at = ix.warm[i]
		e.priced, e.snap = part{at: ix.priced[i]}, part{at: ix.snap[i]}
	}
	c.head, c.live, c.froot, c.fcost = h, live, c.roots, c.prices
}

// appendTo appends what changed to the cache file, c.file, when it is
// still the file in place and no run wrote it since: the new blocks and
// index after its index, then the header naming them. A run killed
// before the header is written leaves the old header, which names only
// blocks that were there before; one killed while writing it leaves a
// header whose checksum fails.
func (c *Cache) appendTo(keys []string) error {
	base := c.head.end()
	blocks, ix, live := c.layout(keys, base)
	idx := encodeIndex(ix)
	live += int64(len(idx))
	end := base + int64(len(blocks)) + int64(len(idx))
	if end-int64(headerLen)-live > c.deadAllowed(live) {
		return errWhole
	}
	w, info, err := regular.OpenFile(c.Path, os.O_RDWR, 0)
	if err != nil {
		return errWhole
	}
	defer w.Close() // and its lock
	was, err := c.file.Stat()
	if err != nil || !os.SameFile(info, was) || !tryLock(w) {
		return errWhole
	}
	if h, err := readHeader(w); err != nil || h != c.head {
		return errWhole
	}
	if info, err = w.Stat(); err != nil || info.Size() < base {
		return errWhole
	}
	if info.Size() > base {
		// A write that never finished: no header names it.
		if err := w.Truncate(base); err != nil {
			return err
		}
	}
	if _, err := w.WriteAt(append(blocks, idx...), base); err != nil {
		return err
	}
	h := header{indexOff: base + int64(len(blocks)), indexLen: int64(len(idx)), indexCRC: crc32.ChecksumIEEE(idx)}
	if _, err := w.WriteAt(h.append(nil), 0); err != nil {
		return err
	}
	c.placed(keys, ix, h, live)
	c.appended++
	return nil
}

// rewrite writes the whole cache to a new file (0600) put in place at
// once, so a reader beside (another usage run) opens the old or the new,
// never half of one, and one that opened the old reads on in it.
func (c *Cache) rewrite(keys []string) error {
	// Every block in memory: those in the file read in as few reads as
	// they allow.
	var xs []extent
	var ps []*part
	for _, k := range keys {
		e := c.m[k]
		for _, p := range []*part{&e.priced, &e.snap} {
			if p.raw == nil && p.at.n > 0 {
				xs, ps = append(xs, p.at), append(ps, p)
			}
		}
	}
	if len(xs) > 0 {
		bs, err := readExtents(c.file, xs)
		if err != nil {
			bs = make([][]byte, len(xs))
		}
		for i, p := range ps {
			if p.raw, p.at = bs[i], (extent{}); p.raw == nil {
				c.complain(fmt.Sprintf("usage cache %s: a damaged block let go", c.Path))
			}
		}
	}
	for _, k := range keys {
		c.m[k].at = extent{}
	}
	blocks, ix, live := c.layout(keys, int64(headerLen))
	idx := encodeIndex(ix)
	live += int64(len(idx))
	h := header{indexOff: int64(headerLen + len(blocks)), indexLen: int64(len(idx)), indexCRC: crc32.ChecksumIEEE(idx)}
	f, err := writeWhole(c.Path, h.append(nil), blocks, idx)
	if err != nil {
		return err
	}
	if c.file != nil {
		c.file.Close()
	}
	c.file = f
	c.placed(keys, ix, h, live)
	c.rewritten++
	return nil
}

// writeWhole writes pieces to a new file beside path and puts it in
// place, returning it open.
func writeWhole(path string, pieces ...[]byte) (*os.File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".usage-cache-*")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	w := bufio.NewWriterSize(tmp, 256<<10)
	for _, b := range pieces {
		if _, err := w.Write(b); err != nil {
			return fail(err)
		}
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return tmp, nil
}

package usage

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"time"
)

// The cache file is written whole once, then appended to:
//
//	header | blocks … | index
//
// The header (fixed size, at the start) says where the index is, with its
// CRC-32. The index names, per group, its blocks, each with its CRC-32:
// the group's warm block (its files' identities, its turns as a block of
// encodeTurns, its plan limits: what a run over unchanged files needs)
// and, where kept, its charges (encodePricing) and where its read stopped
// (encodeSnap), read only to reprice or to go on. Written whole, the warm
// blocks come first, together, then the others, then the index.
//
// A run that changed some groups appends their new blocks and a new index
// after the old index, then writes the header again (cachefile.go): the
// blocks an older index named are never written over, so a reader that
// loaded it reads on unharmed, and a run killed at any moment leaves the
// old header (the old state, whole), the new one, or a file whose
// checksums fail (read again from the history). Numbers in the index and
// blocks are varints.

const cacheMagic = "CBUSAGE\n"

// headerLen is the header's size: magic, version, the index's offset,
// length and CRC-32, and the CRC-32 of all that.
const headerLen = len(cacheMagic) + 4 + 8 + 8 + 4 + 4

// errOldCache: a cache file of another version, rebuilt without a word.
var errOldCache = errors.New("usage cache of another version")

// header is a cache file's header: where its index is.
type header struct {
	indexOff, indexLen int64
	indexCRC           uint32
}

// end is where the file's last index ends: bytes after it are a write
// that never finished.
func (h header) end() int64 { return h.indexOff + h.indexLen }

func (h header) append(b []byte) []byte {
	start := len(b)
	b = append(b, cacheMagic...)
	b = binary.LittleEndian.AppendUint32(b, cacheVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.indexOff))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.indexLen))
	b = binary.LittleEndian.AppendUint32(b, h.indexCRC)
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// parseHeader reads a header; another version's is errOldCache.
func parseHeader(b []byte) (header, error) {
	var h header
	if len(b) < len(cacheMagic)+1 || string(b[:len(cacheMagic)]) != cacheMagic {
		return h, fmt.Errorf("not a usage cache")
	}
	if len(b) < len(cacheMagic)+4 || binary.LittleEndian.Uint32(b[len(cacheMagic):]) != cacheVersion {
		return h, errOldCache
	}
	if len(b) < headerLen || crc32.ChecksumIEEE(b[:headerLen-4]) != binary.LittleEndian.Uint32(b[headerLen-4:]) {
		return h, fmt.Errorf("usage cache: header: %w", errCorrupt)
	}
	b = b[len(cacheMagic)+4:]
	off, n := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if off < uint64(headerLen) || off > 1<<40 || n > 1<<40 {
		return h, fmt.Errorf("usage cache: header: %w", errCorrupt)
	}
	h.indexOff, h.indexLen, h.indexCRC = int64(off), int64(n), binary.LittleEndian.Uint32(b[16:])
	return h, nil
}

// readHeader reads f's header. One whose checksum fails is read again a
// few times: another run may be writing it that moment (it writes it in
// one write, after all it names).
func readHeader(f *os.File) (header, error) {
	var hb [headerLen]byte
	var h header
	var err error
	for range 4 {
		var n int
		n, err = f.ReadAt(hb[:], 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return h, err
		}
		if h, err = parseHeader(hb[:n]); !errors.Is(err, errCorrupt) || n < headerLen {
			return h, err
		}
	}
	return h, err
}

// extent is where a block is in the cache file (n 0: not there).
type extent struct {
	off, n int64
	crc    uint32
}

// cacheContent is what a cache file's index and warm blocks say.
type cacheContent struct {
	entries map[string]*entry // by the group's first file
	roots   string
	prices  uint64
	head    header
	live    int64 // bytes the index and the blocks it names take
}

// index is a cache file's index: the folders and prices its entries are
// of, and each entry's blocks (entries in the order of keys).
type index struct {
	roots  string
	prices uint64
	warm   []extent
	priced []extent
	snap   []extent
}

func encodeIndex(ix *index) []byte {
	e := &encoder{b: make([]byte, 0, 64+40*len(ix.warm))}
	e.b = binary.LittleEndian.AppendUint64(e.b, ix.prices)
	e.str(ix.roots)
	e.uint(uint64(len(ix.warm)))
	for i := range ix.warm {
		e.uint(uint64(ix.warm[i].off))
		e.uint(uint64(ix.warm[i].n))
		e.b = binary.LittleEndian.AppendUint32(e.b, ix.warm[i].crc)
		for _, x := range []extent{ix.priced[i], ix.snap[i]} {
			e.uint(uint64(x.n))
			if x.n > 0 {
				e.uint(uint64(x.off))
				e.b = binary.LittleEndian.AppendUint32(e.b, x.crc)
			}
		}
	}
	return e.b
}

// decodeIndex reads an index whose blocks must lie between the header
// and limit (the index's own offset).
func decodeIndex(b []byte, limit int64) (*index, error) {
	d := &decoder{b: b}
	ix := &index{prices: d.uint64(), roots: d.str()}
	n := d.count()
	ix.warm, ix.priced, ix.snap = make([]extent, n), make([]extent, n), make([]extent, n)
	in := func(x extent) bool {
		return x.off >= int64(headerLen) && x.n <= limit && x.off <= limit-x.n
	}
	for i := 0; i < n && d.err == nil; i++ {
		ix.warm[i] = extent{off: int64(d.uint()), n: int64(d.uint()), crc: d.uint32()}
		if !in(ix.warm[i]) || ix.warm[i].n == 0 {
			d.fail()
		}
		for _, x := range []*extent{&ix.priced[i], &ix.snap[i]} {
			if x.n = int64(d.uint()); x.n > 0 {
				x.off, x.crc = int64(d.uint()), d.uint32()
				if !in(*x) {
					d.fail()
				}
			}
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, fmt.Errorf("usage cache: index: %w", d.err)
	}
	return ix, nil
}

// readCache reads a cache file's header, index and warm blocks (each
// checked against its CRC-32). The other blocks stay in the file, named
// by each entry's parts, until something needs them.
func readCache(f *os.File) (*cacheContent, error) {
	h, err := readHeader(f)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() < h.end() {
		return nil, fmt.Errorf("usage cache: %d bytes, its index ends at %d: %w", info.Size(), h.end(), errCorrupt)
	}
	ib := make([]byte, h.indexLen)
	if _, err := f.ReadAt(ib, h.indexOff); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(ib) != h.indexCRC {
		return nil, fmt.Errorf("usage cache: index: checksum: %w", errCorrupt)
	}
	ix, err := decodeIndex(ib, h.indexOff)
	if err != nil {
		return nil, err
	}
	warm, err := readExtents(f, ix.warm)
	if err != nil {
		return nil, err
	}
	c := &cacheContent{entries: make(map[string]*entry, len(warm)), roots: ix.roots, prices: ix.prices, head: h, live: h.indexLen}
	zones := map[int64]*time.Location{}
	for i, b := range warm {
		if b == nil {
			return nil, fmt.Errorf("usage cache: checksum: %w", errCorrupt)
		}
		d := &decoder{b: b}
		e := d.warm(zones)
		if d.err == nil && (len(d.b) != 0 || len(e.files) == 0 || c.entries[e.files[0].path] != nil) {
			d.fail()
		}
		if d.err != nil {
			return nil, fmt.Errorf("usage cache: %w", d.err)
		}
		e.at = ix.warm[i]
		e.priced.at, e.snap.at = ix.priced[i], ix.snap[i]
		c.live += e.at.n + e.priced.at.n + e.snap.at.n
		c.entries[e.files[0].path] = e
	}
	return c, nil
}

// joinGap is how far apart two blocks may lie and still be read in one
// read, with what lies between.
const joinGap = 64 << 10

// readExtents reads the blocks at xs from f, those that lie near each
// other in one read. A block whose CRC-32 fails is nil.
func readExtents(f *os.File, xs []extent) ([][]byte, error) {
	out := make([][]byte, len(xs))
	order := make([]int, 0, len(xs))
	for i := range xs {
		if xs[i].n > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(xs[a].off, xs[b].off) })
	for len(order) > 0 {
		start, end := xs[order[0]].off, xs[order[0]].off+xs[order[0]].n
		k := 1
		for ; k < len(order); k++ {
			x := xs[order[k]]
			if x.off > end+joinGap {
				break
			}
			end = max(end, x.off+x.n)
		}
		buf := make([]byte, end-start)
		if _, err := f.ReadAt(buf, start); err != nil {
			return nil, fmt.Errorf("usage cache: %w", err)
		}
		for _, i := range order[:k] {
			x := xs[i]
			b := buf[x.off-start : x.off-start+x.n : x.off-start+x.n]
			if crc32.ChecksumIEEE(b) == x.crc {
				out[i] = b
			}
		}
		order = order[k:]
	}
	return out, nil
}

// readExtent reads one block (nil: its CRC-32 fails, or it cannot be read).
func readExtent(f *os.File, x extent) []byte {
	if f == nil || x.n == 0 {
		return nil
	}
	b := make([]byte, x.n)
	if _, err := f.ReadAt(b, x.off); err != nil || crc32.ChecksumIEEE(b) != x.crc {
		return nil
	}
	return b
}

// warm writes en's warm block: what a run over unchanged files needs.
func (e *encoder) warm(en *entry) {
	e.str(en.agent)
	e.int(en.bytes)
	e.uint(uint64(len(en.files)))
	for _, f := range en.files {
		e.str(f.path)
		e.uint(f.dev)
		e.uint(f.ino)
		e.int(f.size)
		e.int(f.mtime)
		e.b = binary.LittleEndian.AppendUint64(e.b, f.sample)
	}
	e.uint(uint64(en.n))
	e.uint(uint64(en.done))
	e.bytes(en.turns)
	e.limits(en.limits)
}

func (d *decoder) warm(zones map[int64]*time.Location) *entry {
	e := &entry{agent: d.str(), bytes: d.int()}
	e.files = make([]fileID, d.count())
	for i := range e.files {
		e.files[i] = fileID{path: d.str(), dev: d.uint(), ino: d.uint(), size: d.int(), mtime: d.int(), sample: d.uint64()}
	}
	e.n, e.done = int(d.uint()), int(d.uint())
	e.turns = d.bytes()
	if n, err := turnCount(e.turns); d.err == nil && (err != nil || n != e.n || e.done > e.n) {
		d.fail()
	}
	e.limits = d.limits(zones)
	return e
}

func (d *decoder) uint32() uint32 {
	b := d.raw(4)
	if len(b) < 4 {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

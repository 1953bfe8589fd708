package usage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"time"

	"conductorbridge/bridge/regular"
)

// The cache file: a fixed header (a magic word, the version, the price
// table's key, each section's length and CRC-32), then two sections.
// The first holds what a warm read needs, read with one read: the folders
// read and, per group, its files' identities, its turns (a block of
// encodeTurns) and plan limits, and where its other parts are in the
// second section. The second holds those parts, where each read stopped
// (encodeSnap) and what made each turn's cost (encodePricing): only a
// read that goes on, reprices or writes the file again reads it. Numbers
// in the sections are varints.

const cacheMagic = "CBUSAGE\n"

// headerLen is the header's size: magic, version, CRC-32 of each
// section, prices, each section's length.
const headerLen = len(cacheMagic) + 4 + 4 + 4 + 4 + 8 + 8 + 8

// errOldCache: a cache file of another version, rebuilt without a word.
var errOldCache = errors.New("usage cache of another version")

// header is a cache file's header.
type header struct {
	crcA, crcB uint32
	prices     uint64
	lenA, lenB int64
}

func (h header) append(b []byte) []byte {
	b = append(b, cacheMagic...)
	b = binary.LittleEndian.AppendUint32(b, cacheVersion)
	b = binary.LittleEndian.AppendUint32(b, h.crcA)
	b = binary.LittleEndian.AppendUint32(b, h.crcB)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, h.prices)
	b = binary.LittleEndian.AppendUint64(b, uint64(h.lenA))
	return binary.LittleEndian.AppendUint64(b, uint64(h.lenB))
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
	if len(b) < headerLen {
		return h, fmt.Errorf("usage cache: header: %w", errCorrupt)
	}
	b = b[len(cacheMagic)+4:]
	h.crcA = binary.LittleEndian.Uint32(b)
	h.crcB = binary.LittleEndian.Uint32(b[4:])
	h.prices = binary.LittleEndian.Uint64(b[12:])
	lenA, lenB := binary.LittleEndian.Uint64(b[20:]), binary.LittleEndian.Uint64(b[28:])
	if lenA > 1<<40 || lenB > 1<<40 {
		return h, fmt.Errorf("usage cache: header: %w", errCorrupt)
	}
	h.lenA, h.lenB = int64(lenA), int64(lenB)
	return h, nil
}

type cacheContent struct {
	entries map[string]*entry
	head    header
	roots   [2]string
}

// encodeCache lays out c as the pieces of a cache file, in order: the
// header, the first section, then each part of the second as it is (not
// copied together).
func encodeCache(c *cacheContent) [][]byte {
	keys := make([]string, 0, len(c.entries))
	size := 64
	for k, e := range c.entries {
		keys = append(keys, k)
		size += len(e.turns) + 64*len(e.files) + 64
	}
	slices.Sort(keys)
	a := &encoder{b: make([]byte, 0, size)}
	a.str(c.roots[0])
	a.str(c.roots[1])
	a.uint(uint64(len(keys)))
	pieces := [][]byte{nil, nil}
	var lenB int64
	var crcB uint32
	for _, k := range keys {
		en := c.entries[k]
		a.entry(en)
		for _, p := range []part{en.priced, en.snap} {
			a.uint(uint64(len(p.raw)))
			if p.raw != nil {
				a.uint(uint64(lenB))
				lenB += int64(len(p.raw))
				crcB = crc32.Update(crcB, crc32.IEEETable, p.raw)
				pieces = append(pieces, p.raw)
			}
		}
	}
	h := c.head
	h.crcA, h.crcB = crc32.ChecksumIEEE(a.b), crcB
	h.lenA, h.lenB = int64(len(a.b)), lenB
	pieces[0], pieces[1] = h.append(nil), a.b
	return pieces
}

// entry writes en to the first section, all but where its parts are.
func (e *encoder) entry(en *entry) {
	e.str(en.agent)
	e.int(en.bytes)
	e.uint(uint64(len(en.files)))
	for _, f := range en.files {
		e.str(f.path)
		e.uint(f.dev)
		e.uint(f.ino)
		e.int(f.size)
		e.int(f.mtime)
		e.b = binaryAppend64(e.b, f.sample)
	}
	e.uint(uint64(en.n))
	e.uint(uint64(en.done))
	e.bytes(en.turns)
	e.limits(en.limits)
}

func binaryAppend64(b []byte, n uint64) []byte { return binary.LittleEndian.AppendUint64(b, n) }

// readCache reads a cache file's header and first section, and checks
// its second (read in pieces, not kept: only what needs it reads it).
func readCache(f *os.File, c *cacheContent) error {
	var hb [headerLen]byte
	n, err := f.ReadAt(hb[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	h, err := parseHeader(hb[:n])
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() != int64(headerLen)+h.lenA+h.lenB {
		return fmt.Errorf("usage cache: %d bytes, its header says %d: %w", info.Size(), int64(headerLen)+h.lenA+h.lenB, errCorrupt)
	}
	buf := make([]byte, h.lenA)
	if _, err := f.ReadAt(buf, int64(headerLen)); err != nil {
		return err
	}
	if crc32.ChecksumIEEE(buf) != h.crcA {
		return fmt.Errorf("usage cache: checksum: %w", errCorrupt)
	}
	if sum, err := crcAt(f, int64(headerLen)+h.lenA, h.lenB); err != nil || sum != h.crcB {
		return fmt.Errorf("usage cache: checksum: %w", errCorrupt)
	}
	c.head = h
	d := &decoder{b: buf}
	c.roots = [2]string{d.str(), d.str()}
	count := d.count()
	c.entries = make(map[string]*entry, count)
	for range count {
		e := d.entry(h.lenB)
		if d.err != nil {
			break
		}
		if len(e.files) == 0 {
			d.fail()
			break
		}
		c.entries[e.files[0].path] = e
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return fmt.Errorf("usage cache: %w", d.err)
	}
	return nil
}

// crcAt is the CRC-32 of n bytes of f at off, read in pieces.
func crcAt(f *os.File, off, n int64) (uint32, error) {
	buf := make([]byte, min(n, 64<<10))
	var sum uint32
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := f.ReadAt(buf[:k], off); err != nil {
			return 0, err
		}
		sum = crc32.Update(sum, crc32.IEEETable, buf[:k])
		off, n = off+k, n-k
	}
	return sum, nil
}

// readMore reads the second section of the cache file at path if it is
// still the one whose header is h.
func readMore(path string, h header) ([]byte, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var hb [headerLen]byte
	if _, err := f.ReadAt(hb[:], 0); err != nil {
		return nil, err
	}
	if now, err := parseHeader(hb[:]); err != nil || now != h {
		return nil, fmt.Errorf("usage cache %s was written again", path)
	}
	more := make([]byte, h.lenB)
	if _, err := f.ReadAt(more, int64(headerLen)+h.lenA); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(more) != h.crcB {
		return nil, fmt.Errorf("usage cache: checksum: %w", errCorrupt)
	}
	return more, nil
}

func (d *decoder) entry(lenB int64) *entry {
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
	e.limits = d.limits(map[int64]*time.Location{})
	for _, p := range []*part{&e.priced, &e.snap} {
		if n := d.uint(); n > 0 {
			off := d.uint()
			if off > uint64(lenB) || n > uint64(lenB)-off {
				d.fail()
				return e
			}
			p.off, p.n = int64(off), int64(n)
		}
	}
	return e
}

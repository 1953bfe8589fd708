package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"conductorbridge/bridge/jsonbytes"
	"conductorbridge/bridge/regular"
)

// Journal is a topic's append-only file: one JSON line per Publish,
//
//	{"e":[<events>],"c":<mark>,"n":<next id>}
//
// so the events and the producer's resume point are written together, in
// one write(2). A producer whose mark is large next to its events (a
// live agent's: one event a batch, a mark of kilobytes) may offer a
// delta with it, what changed since its last line; most lines then carry
// "d":<delta> in place of "c", and a whole mark is written again once
// the lines since the last one outweigh it many times (fullEvery), so
// the file stays within a small constant of the events' own bytes. Load
// hands back the last whole mark and the deltas after it (Resume). A
// torn last line (the bridge killed mid-write, before its events were
// sent to anyone) is dropped on load, which rewinds marks and ids
// together. A whole line that is garbled is dropped with everything after
// it, kept aside in <path>.damaged and reported (Damaged), but ids never
// rewind past it: they were sent. When the file grows past a bound it is
// rewritten as one line holding the kept history. A second producer of the
// topic (the workspace's browser, bridge/browse) keeps its own resume point
// beside the first's, "x":{"<key>":<mark>}, written whole with its
// events; Load hands back each key's last one.
//
// A write that fails (disk full) is cut off again, so the file stays a run
// of whole lines: a garbled line would make Load drop every line after it.
// The failed batch's ids are spent all the same, since subscribers have
// seen them, so every line carries the id watermark "n" and Load never
// hands out an id below it. Until a later append succeeds the watermark is
// only in memory: a bridge stopped before then reuses those ids.
//
// Writes are not fsynced: the journal must survive the bridge being killed,
// which the page cache covers, not the machine losing power.
type Journal struct {
	Path string
	// LastID is the newest id numbered: journaled (even if compacted
	// away), or spent on a batch whose append failed.
	LastID   int64
	MaxBytes int64 // compact beyond this size; 0 means 4 MiB

	fmu    sync.Mutex  // guards f against the budget closing it (see fdBudget)
	f      journalFile // nil while released by the budget: the next write reopens it
	closed bool
	budget *fdBudget // nil: the file stays open until Close
	size   int64     // bytes of whole lines in f
	torn   bool      // f may hold a partial line past size: cut it before writing
	behind bool      // the last append failed: the file lacks its mark
	raw    rawFile   // how f is written

	// log says once in the process that raw writes stopped (nil: no one).
	log func(msg string)

	// Since the last whole mark in the file: its length, and the bytes
	// of the lines after it (0, 0: the file holds none).
	fullLen, sinceFull int64

	// Damaged says what Load found wrong in the file: a whole line that
	// is not a journal line, and what was done about it (nil: nothing).
	Damaged error
	// sides are the side marks as last loaded or appended, by key: a
	// compacted file, or the line after a failed append, carries them all.
	sides map[string]json.RawMessage
}

// Resume is a producer's resume point as journaled: the last whole
// mark, and the deltas journaled after it, oldest first.
type Resume struct {
	Mark   json.RawMessage
	Deltas []json.RawMessage
	// Sides are the other producers' resume points, each key's last.
	Sides map[string]json.RawMessage
}

// side is one producer's resume point, journaled beside the main mark.
type side struct {
	key string
	raw json.RawMessage // nil: none with this line
}

// journalFile is what Journal needs of its file (an *os.File), so tests can
// make writes fail.
type journalFile interface {
	io.ReadWriteSeeker
	io.Closer
	Truncate(size int64) error
}

type journalLine struct {
	Events []json.RawMessage          `json:"e,omitempty"`
	Mark   json.RawMessage            `json:"c,omitempty"`
	Delta  json.RawMessage            `json:"d,omitempty"` // what changed since the line before
	Next   int64                      `json:"n,omitempty"` // no id below this may be handed out again
	Sides  map[string]json.RawMessage `json:"x,omitempty"` // other producers' marks, whole
}

// OpenJournal opens (creating if needed) the journal at path, 0600.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create journal dir: %w", err)
	}
	f, _, err := regular.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j := &Journal{Path: path}
	j.setFile(f)
	return j, nil
}

// Load reads the journal, keeping the newest max events, the last mark
// and the deltas after it, and truncates a torn or garbled tail so
// appends start clean.
func (j *Journal) Load(max int) ([]Item, Resume, error) {
	var (
		items []Item
		res   Resume
		sides map[string]json.RawMessage // each key's last
		good  int64                      // bytes of well-formed lines
	)
	if end, err := j.f.Seek(0, io.SeekEnd); err != nil {
		return nil, res, fmt.Errorf("seek journal: %w", err)
	} else if end == 0 {
		return nil, res, nil // a new journal: nothing to read (a cold start opens a thousand)
	}
	if _, err := j.f.Seek(0, io.SeekStart); err != nil {
		return nil, res, fmt.Errorf("seek journal: %w", err)
	}
	// ReadBytes gathers a long line from several fills: the buffer need
	// not hold the longest line, and a thousand topics load at start.
	r := bufio.NewReaderSize(j.f, 32<<10)
	var garbled []byte // the first whole line that is not a journal line
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a line without its newline is torn: drop it
		}
		if err != nil {
			return nil, Resume{}, fmt.Errorf("read journal: %w", err)
		}
		var jl journalLine
		if json.Unmarshal(bytes.TrimSpace(line), &jl) != nil {
			garbled = line // everything after it is suspect too
			break
		}
		batch := make([]Item, 0, len(jl.Events))
		ok := true
		for _, raw := range jl.Events {
			var e struct { // what an Item keeps of its event: not worth decoding the rest
				ID        int64  `json:"id"`
				Type      string `json:"type"`
				SessionID string `json:"session_id"`
			}
			if json.Unmarshal(raw, &e) != nil || e.ID <= j.LastID {
				ok = false
				break
			}
			batch = append(batch, Item{ID: e.ID, Type: e.Type, SessionID: e.SessionID, Data: raw})
			j.LastID = e.ID
		}
		if !ok {
			garbled = line
			break
		}
		if jl.Next-1 > j.LastID {
			j.LastID = jl.Next - 1
		}
		for k, v := range jl.Sides {
			if sides == nil {
				sides = make(map[string]json.RawMessage)
			}
			sides[k] = v
		}
		items = append(items, batch...)
		if len(items) > 2*max {
			items = append(items[:0:0], items[len(items)-max:]...)
		}
		switch {
		case jl.Mark != nil:
			res = Resume{Mark: jl.Mark}
			j.fullLen, j.sinceFull = int64(len(jl.Mark)), 0
		case jl.Delta != nil && res.Mark != nil:
			res.Deltas = append(res.Deltas, jl.Delta)
			fallthrough
		default:
			j.sinceFull += int64(len(line))
		}
		good += int64(len(line))
	}
	if len(items) > max {
		items = items[len(items)-max:]
	}
	watermark := j.LastID // what the whole lines kept say
	if garbled != nil {
		if err := j.setAside(good, garbled, r); err != nil {
			return nil, Resume{}, err
		}
	}
	if err := j.f.Truncate(good); err != nil {
		return nil, Resume{}, fmt.Errorf("truncate torn journal tail: %w", err)
	}
	if _, err := j.f.Seek(good, io.SeekStart); err != nil {
		return nil, Resume{}, fmt.Errorf("seek journal: %w", err)
	}
	j.size = good
	if j.LastID > watermark {
		// The ids of the lines set aside were issued: the kept part of
		// the file must say so before anything else, or a restart before
		// the next append would hand them out again.
		if err := j.write(encodeLine(nil, nil, nil, nil, nil, j.LastID+1)); err != nil {
			return nil, Resume{}, fmt.Errorf("journal watermark: %w", err)
		}
	}
	res.Sides, j.sides = sides, maps.Clone(sides)
	return items, res, nil
}

// setAside handles a whole line that is not a journal line (a disk's
// damage, an editor): it and everything after it are dropped from the
// journal (a mark after it may depend on it) and copied to
// <path>.damaged, and LastID moves past every id they may hold, so that
// ids never go back below one clients have seen. A later whole line's
// watermark says exactly how far ids went; a line that cannot be read
// holds at most one event per 8 of its bytes, which bounds them.
func (j *Journal) setAside(at int64, garbled []byte, r *bufio.Reader) error {
	rest := append([]byte(nil), garbled...)
	tail, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	rest = append(rest, tail...)
	if err := os.WriteFile(j.Path+".damaged", rest, 0o600); err != nil {
		return fmt.Errorf("set damaged journal lines aside: %w", err)
	}
	before := j.LastID
	for line := range bytes.Lines(rest) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			break // torn: it never reached a client (a batch is journaled before it is sent)
		}
		var jl struct {
			Events []struct {
				ID int64 `json:"id"`
			} `json:"e"`
			Next int64 `json:"n"`
		}
		if json.Unmarshal(line, &jl) != nil {
			j.LastID += int64(len(line)) / 8
			continue
		}
		for _, e := range jl.Events {
			j.LastID = max(j.LastID, e.ID)
		}
		j.LastID = max(j.LastID, jl.Next-1)
	}
	j.Damaged = fmt.Errorf("journal %s: a garbled line at byte %d; it and the %d bytes after it were dropped and kept in %s, and ids go on after %d (%d before)",
		j.Path, at, len(rest)-len(garbled), j.Path+".damaged", j.LastID, before)
	return nil
}

// fullEvery is how many bytes of lines may follow a whole mark before
// the next is written: many times the mark, so whole marks add a
// small fraction to the file, and a floor, so a small one is not
// rewritten every few lines. It also bounds what a restart replays.
func (j *Journal) fullEvery() int64 { return max(64<<10, 16*j.fullLen) }

// Append writes one batch. When the file has outgrown MaxBytes it is
// rewritten from history (the events kept before this batch), the batch and
// the current mark, replacing the old file atomically.
//
// If it fails, the file is left as it was and the batch's ids count as
// spent: the next line to reach the file carries them in its watermark,
// and the current mark rather than mark (which may be nil, meaning
// "unchanged"), so that mark and ids on disk move past the lost batch
// together.
func (j *Journal) Append(items []Item, mark json.RawMessage, history []Item, max int, current json.RawMessage) error {
	return j.appendDelta(items, rawMark(mark), nil, history, max, rawMark(current), side{})
}

// appendDelta is Append where delta, when set with mark, may be written
// in mark's place: when the file holds a whole mark, the last append
// reached the file (the delta is relative to the line before), and not
// too much has been written since the last whole mark. The marks are
// encoded only if written whole. A side mark, if set, goes with the line
// (every side the journal knows when the line must stand for them all).
func (j *Journal) appendDelta(items []Item, lazy *lazyMark, delta json.RawMessage, history []Item, max int, current *lazyMark, sd side) error {
	if j.budget != nil {
		if victim := j.budget.use(j); victim != nil {
			victim.release()
		}
	}
	j.fmu.Lock()
	defer j.fmu.Unlock()
	last := j.LastID
	if n := len(items); n > 0 && items[n-1].ID > last {
		last = items[n-1].ID
	}
	if j.behind {
		lazy, delta = current, nil
	}
	if lazy == nil || j.fullLen == 0 || j.sinceFull >= j.fullEvery() {
		delta = nil
	}
	var mark json.RawMessage
	if delta == nil {
		mark = lazy.get()
	}
	sides := j.sidesFor(sd)
	// The line is written at once and not kept: its buffer goes back to
	// the hub's pool for the next batch (a line a batch, thousands a
	// second when agents work), not kept by each of a thousand journals.
	buf := j.budget.lineBuffer()
	line := encodeLine((*buf)[:0], items, mark, delta, sides, last+1)
	defer j.budget.putLine(buf, line)
	limit := j.MaxBytes
	if limit <= 0 {
		limit = 4 << 20
	}
	var err error
	if j.size+int64(len(line)) > limit && !current.lost() { // a compacted file needs the whole mark: the next batch with one compacts
		kept := append(append([]Item(nil), history...), items...)
		if len(kept) > max {
			kept = kept[len(kept)-max:]
		}
		whole := current.get()
		err = j.rewrite(encodeLine(nil, kept, whole, nil, j.sides, last+1))
		if err == nil {
			j.noteFull(whole)
		}
	} else {
		err = j.write(line)
		if err == nil && delta == nil && mark != nil {
			j.noteFull(mark)
		} else if err == nil {
			j.sinceFull += int64(len(line))
		}
	}
	j.LastID, j.behind = last, err != nil
	return err
}

// sidesFor notes sd and returns the side marks a line must carry: sd's
// alone, or all of them after a failed append, whose line the file lacks.
func (j *Journal) sidesFor(sd side) map[string]json.RawMessage {
	if sd.raw != nil {
		if j.sides == nil {
			j.sides = make(map[string]json.RawMessage)
		}
		j.sides[sd.key] = sd.raw
	}
	switch {
	case j.behind:
		return j.sides
	case sd.raw != nil:
		return map[string]json.RawMessage{sd.key: sd.raw}
	}
	return nil
}

// noteFull records that the file's last line holds the whole mark c.
func (j *Journal) noteFull(c json.RawMessage) {
	if c != nil {
		j.fullLen, j.sinceFull = int64(len(c)), 0
	}
}

// maxKeptLine bounds the line buffer a journal keeps between batches.
const maxKeptLine = 64 << 10

// write appends one line, or on failure none of it.
func (j *Journal) write(line []byte) error {
	if err := j.reopen(); err != nil {
		return fmt.Errorf("append journal: %w", err)
	}
	if j.torn {
		if err := j.cut(); err != nil {
			return fmt.Errorf("append journal: %w", err)
		}
	}
	err := j.writeLine(line)
	j.reportSlow()
	if err != nil {
		// Part of the line may have reached the file.
		j.torn = true
		if cerr := j.cut(); cerr != nil {
			return fmt.Errorf("append journal: %w (%v)", err, cerr)
		}
		return fmt.Errorf("append journal: %w", err)
	}
	j.size += int64(len(line))
	return nil
}

// cut drops whatever follows the last whole line and puts the write offset
// back there (the file is not opened for append, so a write would otherwise
// leave a hole).
func (j *Journal) cut() error {
	if err := j.f.Truncate(j.size); err != nil {
		return fmt.Errorf("cut partial journal line: %w", err)
	}
	if _, err := j.f.Seek(j.size, io.SeekStart); err != nil {
		return fmt.Errorf("cut partial journal line: %w", err)
	}
	j.torn = false
	return nil
}

// rewrite replaces the file with line. The new file's handle is kept rather
// than the path reopened after the rename, which could fail and leave the
// journal writing to the replaced file.
func (j *Journal) rewrite(line []byte) error {
	tmp := j.Path + ".tmp"
	f, _, err := regular.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("compact journal: %w", err)
	}
	fail := func(err error) error {
		// Don't leave a half-written copy taking space on a full disk.
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("compact journal: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, j.Path); err != nil {
		return fail(err)
	}
	if j.f != nil {
		j.f.Close()
	}
	j.setFile(f)
	j.size, j.torn = int64(len(line)), false
	return nil
}

// Close closes the file.
func (j *Journal) Close() error {
	if j.budget != nil {
		j.budget.forget(j)
	}
	j.fmu.Lock()
	defer j.fmu.Unlock()
	j.closed = true
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f, j.raw.ok = nil, false
	return err
}

// encodeLine appends one journal line to dst: with delta, if set, in
// place of mark, and the side marks given.
func encodeLine(dst []byte, items []Item, mark, delta json.RawMessage, sides map[string]json.RawMessage, next int64) []byte {
	dst = append(dst, `{"e":[`...)
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it.Data...)
	}
	dst = append(dst, ']')
	switch {
	case delta != nil:
		dst = append(dst, `,"d":`...)
		dst = append(dst, delta...)
	case mark != nil:
		dst = append(dst, `,"c":`...)
		dst = append(dst, mark...)
	}
	if len(sides) > 0 {
		dst = append(dst, `,"x":{`...)
		for i, k := range slices.Sorted(maps.Keys(sides)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonbytes.String(dst, k, true)
			dst = append(dst, ':')
			dst = append(dst, sides[k]...)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"n":`...)
	dst = strconv.AppendInt(dst, next, 10)
	return append(dst, "}\n"...)
}

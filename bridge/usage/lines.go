package usage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/regular"
)

// maxLine bounds one line as the streams do: a longer one is skipped,
// never buffered whole.
const maxLine = linefile.DefaultMaxLine

// lineReader hands out a file's lines one at a time, streaming: memory is
// one read buffer plus the longest line, not the file.
type lineReader struct {
	f     *os.File
	br    *bufio.Reader
	long  []byte // a line longer than the read buffer, gathered
	bytes int64
	start int64    // where the line next returned last begins (bytes from the reader's start)
	nl    bool     // the last byte read was a newline: a later read may start here
	home  *buffers // where its buffers go back on Close (nil: nowhere)
}

// readBuffer is what most lines, even long tool results, fit in without
// gathering.
const readBuffer = 256 << 10

// keepLong is the largest gathered-line buffer a worker keeps for its
// next file: a rare huge line's buffer is let go.
const keepLong = 4 << 20

func openLines(path string) (*lineReader, error) { return (*buffers)(nil).open(path) }

// buffers are one worker's read buffers, lent to each file it opens and
// taken back when the file is closed: a history of thousands of files
// then allocates a few buffers, not one (and a gathered long line) per
// file. Not safe for concurrent use; nil lends nothing.
type buffers struct {
	free []*lineReader
}

func (b *buffers) open(path string) (*lineReader, error) {
	f, err := regular.Open(path) // a FIFO named *.jsonl must not hang the report
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if b != nil && len(b.free) > 0 {
		r := b.free[len(b.free)-1]
		b.free = b.free[:len(b.free)-1]
		r.f, r.bytes, r.nl = f, 0, false
		r.br.Reset(f)
		return r, nil
	}
	return &lineReader{f: f, br: bufio.NewReaderSize(f, readBuffer), home: b}, nil
}

// Close closes the file; its buffers go back to the worker, so no line it
// returned may be used after.
func (r *lineReader) Close() error {
	err := r.f.Close()
	if b := r.home; b != nil {
		r.f = nil
		r.br.Reset(nil)
		if cap(r.long) > keepLong {
			r.long = nil
		}
		r.long = r.long[:0]
		b.free = append(b.free, r)
	}
	return err
}

// seek starts the reader at off, where an earlier read stopped after a
// newline.
func (r *lineReader) seek(off int64) error {
	if _, err := r.f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("seek %s: %w", r.f.Name(), err)
	}
	r.br.Reset(r.f)
	r.nl = off > 0
	return nil
}

// took counts bytes read.
func (r *lineReader) took(b []byte) {
	if len(b) > 0 {
		r.bytes += int64(len(b))
		r.nl = b[len(b)-1] == '\n'
	}
}

// next returns the next complete, non-empty line (valid until the next
// call), or io.EOF. A last line without its newline counts: the file is
// read as history, not followed.
func (r *lineReader) next() ([]byte, error) {
	for {
		start := r.bytes
		line, err := r.br.ReadSlice('\n')
		r.took(line)
		if errors.Is(err, bufio.ErrBufferFull) {
			r.long = append(r.long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.br.ReadSlice('\n')
				r.took(line)
				if len(r.long) <= maxLine {
					r.long = append(r.long, line...)
				}
			}
			if len(r.long) > maxLine {
				r.long = r.long[:0]
				if err != nil {
					return nil, eofOr(err)
				}
				continue // skipped, as the streams skip it
			}
			line = r.long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", r.f.Name(), err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			r.start = start
			return t, nil
		}
		if err != nil {
			return nil, io.EOF
		}
	}
}

func eofOr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return err
}

// merged reads several files of one session (the session file and its
// subagents' files) as one stream in timestamp order, the order in which
// a live follower would have seen them: a subagent's usage then lands in
// the turn that ran it.
//
// A line's time is read only while it decides the order: once one file
// is left, its lines are taken as they come (lazy, from lazyAt on), and
// the times of those lines are read again only when asked: the time of
// its last line when latest needs it (rarely), their latest when a read
// going on from here needs it (mark.Untimed).
type merged struct {
	srcs  []*source
	eager bool // read every line's time, as a plain merge does (the tests compare)
}

type source struct {
	r    *lineReader
	line []byte // the current line, in r's buffer
	ts   time.Time
	seen bool // ts is read up to the current line
	lazy bool // a line was taken without reading its time: ts is stale
	// lazyAt is where the first line taken without its time begins
	// (bytes from r's start): ts, max and known are those of the lines
	// before it, every one of which was read with its time.
	lazyAt int64
	done   bool
	idx    int // which file: 0 is the session's own
	// max is the latest time a line of it said (lines read eagerly);
	// known is false while ts is a resumed file's time not yet known.
	max   time.Time
	known bool
}

func (m *merged) add(r *lineReader) error {
	_, err := m.addFrom(r, time.Time{}, time.Time{}, true)
	return err
}

// addFrom adds a file read on from where an earlier read left it, whose
// last line's time was ts (known: ts is that time) and latest max.
func (m *merged) addFrom(r *lineReader, ts, max time.Time, known bool) (*source, error) {
	s := &source{r: r, idx: len(m.srcs), ts: ts, max: max, known: known}
	m.srcs = append(m.srcs, s)
	return s, m.advance(s)
}

func (m *merged) advance(s *source) error {
	line, err := s.r.next()
	if errors.Is(err, io.EOF) {
		s.done, s.line = true, nil
		return nil
	}
	if err != nil {
		return err
	}
	// Each file has its own read buffer, so the line stays valid until
	// this file is read again: no copy.
	s.line, s.seen = line, false
	if m.eager {
		s.timeOf()
	}
	return nil
}

// timeOf reads the current line's time into ts, once. A line with no
// time keeps its file's previous one: it stays where it was written.
func (s *source) timeOf() {
	if s.seen || s.done {
		return
	}
	s.seen = true
	if ts, err := time.Parse(time.RFC3339Nano, string(timestampOf(s.line))); err == nil {
		s.ts, s.known = ts, true
		if ts.After(s.max) {
			s.max = ts
		}
	}
}

// ownTime is the current line's own time, if it says one.
func (s *source) ownTime() (time.Time, bool) {
	if s.done {
		return time.Time{}, false
	}
	ts, err := time.Parse(time.RFC3339Nano, string(timestampOf(s.line)))
	return ts, err == nil
}

// latest is the time of the newest line read from any of the files: the
// latest a line with a time says in each, as the merge read them.
func (m *merged) latest() (time.Time, error) {
	var last time.Time
	for _, s := range m.srcs {
		ts := s.ts
		if s.lazy {
			// A lazy source is one read from its start (a read going on
			// from a mark reads every time): lazyAt is its offset in the file.
			t := source{ts: s.ts, max: s.max, known: s.known}
			if _, err := t.timesIn(s.r.f, s.lazyAt, s.r.bytes-s.lazyAt); err != nil {
				return last, err
			}
			ts = t.ts
		}
		if ts.After(last) {
			last = ts
		}
	}
	return last, nil
}

// timesIn reads the n bytes from off of f again (lines a lineReader took
// without their times, from the file still open or opened again) and
// reads each line's time into s, as an eager read would have: s is then
// what it would have been after them. It returns the bytes read.
func (s *source) timesIn(f *os.File, off, n int64) (int64, error) {
	r := &lineReader{f: f, br: bufio.NewReaderSize(io.NewSectionReader(f, off, n), readBuffer)}
	for {
		line, err := r.next()
		if errors.Is(err, io.EOF) {
			return r.bytes, nil
		}
		if err != nil {
			return r.bytes, err
		}
		s.line, s.seen = line, false
		s.timeOf()
	}
}

// timed is mk with the times of its Untimed lines read: the lines a read
// took without their times, which a merged read going on from mk must
// know (the new lines must come after every line before).
func timed(path string, mk mark) (mark, error) {
	f, err := regular.Open(path)
	if err != nil {
		return mk, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	s := source{ts: mk.Last, max: mk.Max, known: mk.LastKnown}
	n, err := s.timesIn(f, mk.Off-mk.Untimed, mk.Untimed)
	if err != nil {
		return mk, err
	}
	if n != mk.Untimed {
		return mk, errNoResume // shorter than it was: not the file read
	}
	mk.Last, mk.LastKnown, mk.Max, mk.Untimed = s.ts, s.known, s.max, 0
	return mk, nil
}

var timestampKey = []byte(`"timestamp":"`)

// timestampOf finds a transcript line's own time. In JSON that pattern
// can only be a key (inside a string its quotes would be escaped), so a
// line holding it once has it there; only a line that also nests one (a
// relayed message) needs the walk that tells the levels apart.
func timestampOf(line []byte) []byte {
	i := indexKey(line, timestampKey)
	if i < 0 {
		return nil
	}
	if indexKey(line[i+len(timestampKey):], timestampKey) >= 0 {
		return topLevelString(line, "timestamp")
	}
	v := line[i+len(timestampKey):]
	if end := bytes.IndexByte(v, '"'); end > 0 {
		return v[:end] // a time has no escapes; a bad one fails to parse
	}
	return nil
}

// indexKey is bytes.Index(line, key) for a key holding a colon, such as
// `"timestamp":"`: it jumps from colon to colon, checking the key around
// each. bytes.Index gives up jumping after the first few misses of a
// line's head and compares at every byte of the rest, a long tool output
// included, which made this search a third of the whole report's time;
// jumping from quote to quote stops three times as often as from colon to
// colon (every string has two quotes, every key one colon), and the
// search runs on every line of a cold run that builds the cache.
func indexKey(line, key []byte) int {
	p := bytes.IndexByte(key, ':')
	if p < 0 {
		return bytes.Index(line, key)
	}
	first, last := key[0], key[len(key)-1]
	for j := p; j < len(line); j++ {
		k := bytes.IndexByte(line[j:], ':')
		if k < 0 {
			return -1
		}
		j += k
		i := j - p
		if i+len(key) > len(line) {
			return -1 // every later colon starts a later match, past the end too
		}
		if line[i] == first && line[i+len(key)-1] == last && string(line[i:i+len(key)]) == string(key) {
			return i
		}
	}
	return -1
}

// topLevelString finds the value of key in a JSON object's top level
// without parsing the rest: the parser reads every line anyway, so the
// merge must not read it twice. Nested keys of the same name (a relayed
// message's own timestamp) are skipped. It returns nil when the key is
// absent, not a plain string, or the line is not an object.
func topLevelString(line []byte, key string) []byte {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(line, i+1)
			if end < 0 {
				return nil
			}
			if depth == 1 && end-i-1 == len(key) && string(line[i+1:end]) == key {
				j := end + 1
				for j < len(line) && (line[j] == ' ' || line[j] == ':') {
					j++
				}
				if j < len(line) && line[j] == '"' {
					if vend := stringEnd(line, j+1); vend > 0 && bytes.IndexByte(line[j+1:vend], '\\') < 0 {
						return line[j+1 : vend]
					}
				}
				return nil
			}
			i = end
		}
	}
	return nil
}

// stringEnd returns the index of the quote closing the JSON string whose
// contents start at i, or -1.
func stringEnd(line []byte, i int) int {
	for {
		k := bytes.IndexByte(line[i:], '"')
		if k < 0 {
			return -1
		}
		q := i + k
		n := 0 // backslashes before it: an odd count escapes it
		for b := q - 1; b >= i && line[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// next calls fn with the earliest pending line and which file it is from;
// false once every file is read. Ties go to the session's own file.
func (m *merged) next(fn func(line []byte, idx int)) (bool, error) {
	var best *source
	alone := true
	for _, s := range m.srcs {
		if s.done {
			continue
		}
		if best == nil {
			best = s
			continue
		}
		if alone {
			alone = false
			best.timeOf()
		}
		s.timeOf()
		if s.ts.Before(best.ts) {
			best = s
		}
	}
	if best == nil {
		return false, nil
	}
	if alone && !best.seen && !best.lazy {
		best.lazy, best.lazyAt = true, best.r.start // no other file's line to order it against
	}
	fn(best.line, best.idx)
	return true, m.advance(best)
}

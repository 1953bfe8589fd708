// Package linefile follows agents' records, files of lines that grow at
// their end (JSONL), by byte offset: Reader hands out complete lines only,
// Files bounds the records kept open between reads. It knows nothing of
// what a line says: each agent's parser does (bridge/agent).
package linefile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"conductorbridge/bridge/regular"
)

// DefaultMaxLine bounds the memory one line may take. Agents write
// multi-megabyte lines for big tool outputs (Claude Code does), so the
// bound is generous; a longer line is skipped and counted, never buffered
// whole.
const DefaultMaxLine = 16 << 20

const chunkSize = 64 << 10

// Reader follows one growing file of lines by byte offset and hands out
// only complete lines. A partial line at the end of the file (the agent is
// still writing it) is kept until its newline arrives. A file that shrinks
// or is replaced is read again from its start.
type Reader struct {
	Path    string
	Offset  int64 // first byte not yet handed out; persist it to resume
	MaxLine int   // 0 means DefaultMaxLine
	// Budget, when set, ends a Read once it has handed out this many
	// bytes (at a line's end), with ReadResult.More set: a large backlog
	// is caught up in bounded batches, each published and released
	// before the next is read.
	Budget int64
	// Files, when set, keeps the file open between reads, within its
	// bound (see Files); Close gives it back. Nil opens it for each read.
	Files *Files
	// Unchanged, set before a Read by a caller that watches the
	// record's folder, says no file was made, moved or deleted in it
	// since the previous Read (inotify's events say so; kqueue's and a
	// polled path's cannot, so leave it false there). A file Files
	// holds open is then read at once, one pread for a line, without
	// looking first at the file or its path; only a read that finds
	// nothing looks at the file (truncated: read again from its start).
	// Read clears it.
	Unchanged bool

	held     *heldFile
	pending  []byte // the start of an incomplete line, read from Offset
	skipping bool   // discarding an oversized line up to its newline
	info     os.FileInfo
}

// chunks are read buffers shared by all readers: hundreds of idle
// workspaces should not each hold one.
var chunks = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// ReadResult says what one Read saw.
type ReadResult struct {
	Lines     int       // complete lines handed out
	Oversized int       // lines skipped for exceeding MaxLine
	Reset     bool      // the file shrank or was replaced: reading restarted at 0
	More      bool      // the Budget ran out before the end of the file: call Read again
	Size      int64     // the file's; with Unchanged, how far it was read
	ModTime   time.Time // the file's, as Read found it (before reading); zero when it was not looked at (Unchanged)
}

// SkipTo starts reading at the first line that begins at or after off, so a
// cold start reads only the tail it needs.
func (r *Reader) SkipTo(off int64) {
	r.pending = r.pending[:0]
	r.Offset = off
	if off == 0 {
		r.skipping = false
		return
	}
	// Unless the byte before off is a newline we are mid-line: skip it.
	f, err := regular.Open(r.Path) // a FIFO must not hang the follower
	if err == nil {
		defer f.Close()
		var b [1]byte
		if _, err := f.ReadAt(b[:], off-1); err == nil && b[0] == '\n' {
			r.skipping = false
			return
		}
	}
	r.skipping = true
}

// Read hands each complete line appended since the last call to fn, with
// the file offset just past it. fn must not keep line after it returns.
func (r *Reader) Read(fn func(line []byte, end int64)) (ReadResult, error) {
	var res ReadResult
	unchanged := r.Unchanged
	r.Unchanged = false
	bp := chunks.Get().(*[]byte)
	defer chunks.Put(bp)
	chunk := *bp
	o, err := r.openHeld(unchanged, chunk)
	if err != nil {
		return res, fmt.Errorf("open record: %w", err)
	}
	defer o.done()
	pos := r.Seen()
	size := int64(-1) // not known: read up to a short read
	if o.info != nil {
		size = o.info.Size()
		res.Size, res.ModTime = size, o.info.ModTime()
		if (r.info != nil && !sameFile(r.info, o.info)) || size < pos {
			r.Offset, r.pending, r.skipping, pos = 0, r.pending[:0], false, 0
			res.Reset = true
		}
		r.info = o.info
		if pos >= size {
			return res, nil
		}
	}
	maxLine := r.MaxLine
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	start := r.Offset
	off := pos
	for !res.More && (size < 0 || off < size) {
		// pread, no seek first, of no more than the file held when it
		// was looked at: a read that fills its buffer is one system
		// call, where reading on to the end would take a second one to
		// find it, for every line a busy agent writes. What is appended
		// meanwhile brings its own file event, and so another Read. A
		// file not looked at (Unchanged) is read up to a short read.
		data, rerr := o.first, error(nil)
		if data == nil {
			var n int
			if size < 0 {
				n, rerr = o.held.readOnce(chunk, off)
			} else {
				n, rerr = r.readAt(o.f, chunk[:min(int64(len(chunk)), size-off)], off)
			}
			data = chunk[:n]
		}
		o.first = nil
		n := len(data)
		off += int64(n)
		// Known to go on past what was read: the file's size, or a
		// full buffer read without it.
		beyond := size > off || (size < 0 && n == len(chunk))
		for len(data) > 0 && !res.More {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				r.keepPartial(data, maxLine, &res)
				break
			}
			end := r.Offset + int64(len(r.pending)) + int64(i) + 1
			switch {
			case r.skipping:
				r.skipping = false
			case len(r.pending)+i > maxLine:
				res.Oversized++
			case len(r.pending) > 0:
				r.pending = append(r.pending, data[:i]...)
				fn(trimCR(r.pending), end)
				res.Lines++
			default:
				fn(trimCR(data[:i]), end)
				res.Lines++
			}
			r.Offset, r.pending = end, r.pending[:0]
			data = data[i+1:]
			if r.Budget > 0 && end-start >= r.Budget && (end < off || beyond) {
				res.More = true // the rest is read by the next call, from Offset
			}
		}
		if rerr == io.EOF || n == 0 || (size < 0 && n < len(chunk)) {
			break
		}
		if rerr != nil {
			return res, fmt.Errorf("read record: %w", rerr)
		}
	}
	if size < 0 {
		res.Size = off // as far as it was read; ModTime stays zero: not looked at
	}
	if cap(r.pending) > 4*chunkSize && len(r.pending) == 0 {
		r.pending = nil // give a big line's buffer back
	}
	return res, nil
}

// Seen is how far into the file the reader has looked: Offset, plus
// the start of a line whose newline has not arrived. A file of this size
// has nothing new to read.
func (r *Reader) Seen() int64 { return r.Offset + int64(len(r.pending)) }

// keepPartial holds the start of a line whose newline has not arrived, or
// turns to skipping once it outgrows maxLine.
func (r *Reader) keepPartial(data []byte, maxLine int, res *ReadResult) {
	if r.skipping {
		r.Offset += int64(len(data))
		return
	}
	if len(r.pending)+len(data) > maxLine {
		res.Oversized++
		r.Offset += int64(len(r.pending) + len(data))
		r.pending, r.skipping = nil, true
		return
	}
	r.pending = append(r.pending, data...)
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

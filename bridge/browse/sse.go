package browse

import (
	"bufio"
	"bytes"
	"io"
)

// maxLine bounds one SSE line, and so one event's data: gstack writes an
// entry as one data line, its result cut at 200 characters but its
// arguments not (a `js` command carries its code). A longer line is
// skipped whole, never held.
const maxLine = 256 << 10

// sseReader reads server-sent events (the WHATWG framing gstack's
// sse-helpers.ts writes: "event:" and "data:" lines, a blank line ends an
// event, ":" starts a comment) in bounded memory, whatever the server
// sends: a line past maxLine is read through and dropped with its event.
type sseReader struct {
	br   *bufio.Reader
	name []byte
	data []byte
	skip bool // the event under way had a line too long: it is dropped

	oversized int // events dropped for a line too long
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, maxLine)}
}

// buffered reports whether more is read already: the caller publishes
// what it has only when the next read would wait.
func (r *sseReader) buffered() bool { return r.br.Buffered() > 0 }

// next returns the next event's name ("message" when it has none) and
// data (its data lines joined by newlines). Both are valid until the next
// call. Comments (gstack's heartbeats) and blank events are passed over.
func (r *sseReader) next() (name string, data []byte, err error) {
	for {
		line, err := r.line()
		if err != nil {
			return "", nil, err
		}
		if line == nil {
			continue // too long: skipped, and its event with it
		}
		if len(line) == 0 {
			name, data, skip := r.name, r.data, r.skip
			r.name, r.data, r.skip = r.name[:0], r.data[:0], false
			if skip {
				r.oversized++
				continue
			}
			if len(data) == 0 {
				continue // no data: nothing to dispatch (WHATWG)
			}
			if len(name) == 0 {
				return "message", data[:len(data)-1], nil
			}
			return string(name), data[:len(data)-1], nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte{':'})
		value, _ = bytes.CutPrefix(value, []byte{' '})
		switch string(field) {
		case "event":
			r.name = append(r.name[:0], value...)
		case "data":
			if len(r.data)+len(value) >= maxLine {
				r.skip = true
				continue
			}
			r.data = append(append(r.data, value...), '\n')
		}
	}
}

// line returns the next line without its end (LF, CRLF), or nil for a
// line past maxLine, which it reads through.
func (r *sseReader) line() ([]byte, error) {
	l, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		for err == bufio.ErrBufferFull {
			_, err = r.br.ReadSlice('\n')
		}
		if err != nil {
			return nil, err
		}
		r.skip = true
		return nil, nil
	}
	if err != nil {
		return nil, err // a line cut off by the end of the stream is not an event
	}
	l = l[:len(l)-1]
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l, nil
}

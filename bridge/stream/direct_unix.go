//go:build unix

package stream

import (
	"syscall"

	"conductorbridge/bridge/rawsys"
)

// A socket's write is raw (see rawsys): the descriptor is non-blocking,
// so write(2) takes what fits and says EAGAIN rather than wait.

// tryWriter makes one connection's non-blocking writes. Its func is
// made once: a closure made for each write, and the results it set,
// were three allocations an event a subscriber. Its user holds the
// direct's mu.
type tryWriter struct {
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool // w.write
}

func (w *tryWriter) write(fd uintptr) bool {
	w.n, w.err = rawsys.Write(int(fd), w.b)
	return true // done, whatever it took
}

// try makes one non-blocking write(2) of b to c, never waiting for the
// socket to drain.
func (w *tryWriter) try(c syscall.RawConn, b []byte) (int, error) {
	if w.fn == nil {
		w.fn = w.write
	}
	w.b, w.n, w.err = b, 0, nil
	err := c.Write(w.fn)
	n, werr := max(w.n, 0), w.err
	w.b, w.err = nil, nil
	if err != nil {
		return n, err
	}
	return n, werr
}

// finishWrite writes all of b to c, waiting for the socket as a write
// does (until the connection's write deadline).
func finishWrite(c syscall.RawConn, b []byte) error {
	var werr error
	err := c.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			n, e := rawsys.Write(int(fd), b)
			if e == syscall.EAGAIN {
				return false // wait until writable
			}
			if e != nil {
				werr = e
				return true
			}
			b = b[n:]
		}
		return true
	})
	if err != nil {
		return err
	}
	return werr
}

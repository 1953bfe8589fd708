package stream

import (
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
)

// Writing on the publisher's goroutine. Each event handed to a
// subscriber's goroutine readied it, and a goroutine readied while a
// processor is idle wakes a second thread that finds nothing to do and
// sleeps again: with the engine reading on the watcher's goroutine, it
// was the last hand-off of a line. So while a subscriber's goroutine has
// nothing queued, the publisher writes the event to its connection
// itself, in one non-blocking write(2) of an HTTP/1.1 chunk: a socket
// that cannot take it whole at once is never waited on. Nothing written,
// the event goes to the subscriber's buffer as before; part of it
// written, the rest is the subscriber goroutine's to finish (it waits, up
// to its write timeout, as for any write) before anything else.

// direct is a subscriber's state for writing on the publisher's goroutine.
type direct struct {
	mu sync.Mutex // held by whoever writes to the connection
	// raw is the connection, set while its stream goroutine pumps (nil:
	// every event goes through C).
	raw   syscall.RawConn
	sw    *sseWriter
	frame []byte
	// pending counts the events in C or being written by the subscriber's
	// goroutine: while there are any, a later event must follow them.
	pending atomic.Int64
	// owe is the rest of a chunk written in part; kick tells the
	// subscriber's goroutine to write it.
	owe  []byte
	kick chan struct{}
	tw   tryWriter // the publisher's writes, under mu
}

// start lets the publisher write sw's events to raw from now on.
func (d *direct) start(raw syscall.RawConn, sw *sseWriter) {
	d.mu.Lock()
	d.raw, d.sw, d.kick = raw, sw, make(chan struct{}, 1)
	d.mu.Unlock()
}

// settle writes what a partial write left owed; the caller holds mu.
func (d *direct) settle() error {
	if d.owe == nil || d.raw == nil {
		return nil
	}
	err := finishWrite(d.raw, d.owe)
	d.owe = nil
	return err
}

// offer writes it on the caller's goroutine if the subscriber's
// connection takes it now, and reports whether it is delivered (or its
// delivery owed to the subscriber's goroutine). false: send it to C.
func (d *direct) offer(it *Item) bool {
	if !d.mu.TryLock() {
		d.pending.Add(1) // the stream goroutine is writing: queue behind it
		return false
	}
	defer d.mu.Unlock()
	if d.raw == nil || d.owe != nil || d.pending.Load() > 0 {
		d.pending.Add(1)
		return false
	}
	sw := d.sw
	mark, last := len(sw.buf), sw.last // empty: the goroutine flushes before it lets go
	sw.event(it)
	if len(sw.buf) == mark {
		return true // filtered out (keep): nothing to write
	}
	d.frame = chunk(d.frame[:0], sw.buf[mark:])
	sw.buf = sw.buf[:mark]
	sw.moveDeadline()
	n, err := d.tw.try(d.raw, d.frame)
	switch {
	case n == len(d.frame):
		return true
	case n > 0:
		d.owe = append([]byte(nil), d.frame[n:]...)
		select {
		case d.kick <- struct{}{}:
		default:
		}
		return true
	default:
		_ = err // would block, or failed: the goroutine's own write tells
		sw.last = last
		d.pending.Add(1)
		return false
	}
}

// chunk appends payload framed as one HTTP/1.1 chunk.
func chunk(dst, payload []byte) []byte {
	dst = strconv.AppendInt(dst, int64(len(payload)), 16)
	dst = append(dst, "\r\n"...)
	dst = append(dst, payload...)
	return append(dst, "\r\n"...)
}

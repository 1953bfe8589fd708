package stream

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"conductorbridge/bridge/event"
)

// SSE writes topics to clients as Server-Sent Events.
type SSE struct {
	// Heartbeat is how often an idle stream sends a comment line, so
	// proxies and the client's own timeout see a live connection
	// (default 15 s).
	Heartbeat time.Duration
	// WriteTimeout bounds one write (a write gets at least seven eighths
	// of it); a client that stops reading is disconnected instead of
	// holding a goroutine forever (default 30 s).
	WriteTimeout time.Duration
	// Raw, when set, is the connection under a request, for writing its
	// stream's events on the publisher's goroutine (direct.go); nil, or
	// nil for a request, writes them on the stream's own.
	Raw func(*http.Request) syscall.RawConn
}

// Cursor returns the id a client has seen up to: the larger of its
// Last-Event-ID header (sent by EventSource on reconnect) and ?after=N (set
// by a client on its first connect, and still in the URL on reconnect).
func Cursor(r *http.Request) int64 {
	var after int64
	if v, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64); err == nil && v > after {
		after = v
	}
	if v, err := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64); err == nil && v > after {
		after = v
	}
	return after
}

func (o *SSE) defaults() {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
}

// start writes the stream's headers.
func (o SSE) start(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: o.WriteTimeout}
	sw.raw("retry: 2000\n\n")
	return sw
}

// Serve streams t to w from the request's cursor until the client leaves,
// the subscriber is cut loose for being slow, or ctx ends. When ctx ends,
// events already handed to the stream are written before it closes, so
// whatever ended it (an unpairing) can announce itself first.
func (o SSE) Serve(ctx context.Context, w http.ResponseWriter, r *http.Request, t *Topic) {
	o.ServeFiltered(ctx, w, r, t, nil)
}

// ServeFiltered is Serve writing only the events keep accepts (nil keeps
// every one); a gap is always written. Ids stay the topic's, so a client
// resumes a filtered stream with Last-Event-ID like any other.
func (o SSE) ServeFiltered(ctx context.Context, w http.ResponseWriter, r *http.Request, t *Topic, keep func(*Item) bool) {
	o.defaults()
	replay, gap, sub := t.Subscribe(Cursor(r))
	defer t.Unsubscribe(sub)
	sw := o.start(w)
	sw.keep = keep
	sw.replay(gap, replay)
	if sw.flush() != nil {
		return
	}
	// An HTTP/1.1 response without a length is sent in chunks, which the
	// publisher writes whole (direct.go).
	if o.Raw != nil && r.ProtoAtLeast(1, 1) && r.Method == http.MethodGet {
		if raw := o.Raw(r); raw != nil {
			sub.direct.start(raw, sw) // pump takes it back before it returns
		}
	}
	o.pump(ctx, r, sw, sub, nil)
}

// pump writes sub's events until the client leaves, sub is closed, ctx
// ends or wake fires; it reports whether wake fired.
func (o SSE) pump(ctx context.Context, r *http.Request, sw *sseWriter, sub *Subscriber, wake <-chan struct{}) bool {
	tick := time.NewTicker(o.Heartbeat)
	defer tick.Stop()
	d := &sub.direct
	// write runs fn with the connection to itself, after what a partial
	// write of the publisher's left owed; end does too, and takes the
	// connection back from the publisher for good: net/http writes the
	// response's end once the stream returns.
	write := func(fn func(), end bool) error {
		d.mu.Lock()
		defer d.mu.Unlock()
		err := d.settle()
		if end {
			d.raw = nil
		}
		if err != nil {
			return err
		}
		fn()
		return sw.flush()
	}
	nothing := func() {}
	for {
		var err error
		select {
		case <-ctx.Done():
			write(func() { sw.drain(sub) }, true)
			return false
		case <-r.Context().Done():
			write(nothing, true)
			return false
		case <-wake:
			return write(func() { sw.drain(sub) }, true) == nil
		case <-tick.C:
			err = write(func() { sw.raw(": ping\n\n") }, false)
		case <-d.kick:
			err = write(nothing, false)
		case it, ok := <-sub.C:
			if !ok {
				write(nothing, true)
				return false // cut loose or closed: the client reconnects and replays
			}
			// Drain what is already queued before flushing: one syscall
			// for a burst instead of one per event.
			n := int64(1)
			err = write(func() {
				sw.event(it)
				n += int64(sw.drain(sub))
			}, false)
			d.pending.Add(-n)
		}
		if err != nil {
			write(nothing, true)
			return false
		}
	}
}

type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	// deadlineSet is when the write deadline was last moved on.
	deadlineSet time.Time
	buf         []byte
	// prefix, when set, goes before each id ("<workspace>:<n>"): a follow
	// stream's ids say which topic they count in.
	prefix string
	last   int64 // id of the last event written
	// keep, when set, drops the events it refuses (a stream narrowed to
	// one session); gaps always pass.
	keep func(*Item) bool
}

func (s *sseWriter) replay(gap *event.Event, items []Item) {
	if gap != nil {
		data, _ := json.Marshal(*gap)
		it := NewItem(*gap, data)
		s.event(&it)
	}
	for i := range items {
		s.event(&items[i])
	}
}

// drain writes what is already queued on sub, without waiting, and
// returns how many it took.
func (s *sseWriter) drain(sub *Subscriber) int {
	n := 0
	for ; len(sub.C) > 0; n++ {
		it, ok := <-sub.C
		if !ok {
			return n
		}
		s.event(it)
	}
	return n
}

func (s *sseWriter) event(it *Item) {
	if s.keep != nil && it.Type != event.Gap && !s.keep(it) {
		return
	}
	s.buf = append(s.buf, "id: "...)
	if s.prefix != "" {
		s.buf = append(s.buf, s.prefix...)
		s.buf = append(s.buf, ':')
	}
	s.buf = strconv.AppendInt(s.buf, it.ID, 10)
	s.last = it.ID
	s.buf = append(s.buf, "\nevent: "...)
	s.buf = append(s.buf, it.Type...)
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, it.Data...) // encoding/json never emits a raw newline
	s.buf = append(s.buf, "\n\n"...)
}

func (s *sseWriter) raw(str string) { s.buf = append(s.buf, str...) }

// moveDeadline moves the write deadline on, at most every eighth of the
// timeout.
func (s *sseWriter) moveDeadline() {
	if now := time.Now(); now.Sub(s.deadlineSet) >= min(time.Second, s.timeout/8) {
		_ = s.rc.SetWriteDeadline(now.Add(s.timeout))
		s.deadlineSet = now
	}
}

func (s *sseWriter) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	// The deadline is moved on at most every eighth of the timeout (and
	// at least once a second) rather than before every write: a write
	// still has seven eighths of it, and a stream to 500 subscribers is
	// spared a timer reset per event each.
	s.moveDeadline()
	_, err := s.w.Write(s.buf)
	s.buf = s.buf[:0]
	if err != nil {
		return err
	}
	return s.rc.Flush()
}

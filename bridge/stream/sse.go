package stream

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// SSE writes topics to clients as Server-Sent Events.
type SSE struct {
	// Heartbeat is how often an idle stream sends a comment line, so
	// proxies and the client's own timeout see a live connection
	// (default 15 s).
	Heartbeat time.Duration
	// WriteTimeout bounds one write; a client that stops reading is
	// disconnected instead of holding a goroutine forever (default 30 s).
	WriteTimeout time.Duration
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

// Serve streams t to w from the request's cursor until the client leaves,
// the subscriber is cut loose for being slow, or ctx ends.
func (o SSE) Serve(ctx context.Context, w http.ResponseWriter, r *http.Request, t *Topic) {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	replay, gap, sub := t.Subscribe(Cursor(r))
	defer t.Unsubscribe(sub)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	sw := &sseWriter{w: w, rc: rc, timeout: o.WriteTimeout}

	sw.raw("retry: 2000\n\n")
	if gap != nil {
		data, _ := json.Marshal(*gap)
		sw.event(Item{Event: *gap, Data: data})
	}
	for _, it := range replay {
		sw.event(it)
	}
	if sw.flush() != nil {
		return
	}
	tick := time.NewTicker(o.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.Context().Done():
			return
		case <-tick.C:
			sw.raw(": ping\n\n")
		case it, ok := <-sub.C:
			if !ok {
				return // cut loose or closed: the client reconnects and replays
			}
			sw.event(it)
			// Drain what is already queued before flushing: one syscall
			// for a burst instead of one per event.
			for n := len(sub.C); n > 0; n-- {
				it, ok := <-sub.C
				if !ok {
					break
				}
				sw.event(it)
			}
		}
		if sw.flush() != nil {
			return
		}
	}
}

type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
}

func (s *sseWriter) event(it Item) {
	s.buf = append(s.buf, "id: "...)
	s.buf = strconv.AppendInt(s.buf, it.ID, 10)
	s.buf = append(s.buf, "\nevent: "...)
	s.buf = append(s.buf, it.Type...)
	s.buf = append(s.buf, "\ndata: "...)
	s.buf = append(s.buf, it.Data...) // encoding/json never emits a raw newline
	s.buf = append(s.buf, "\n\n"...)
}

func (s *sseWriter) raw(str string) { s.buf = append(s.buf, str...) }

func (s *sseWriter) flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	_, err := s.w.Write(s.buf)
	s.buf = s.buf[:0]
	if err != nil {
		return err
	}
	return s.rc.Flush()
}

package browseserver

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// sub is one open stream. Like gstack's ReadableStream its queue has no
// bound: the emitter never waits for a reader.
type sub struct {
	mu     sync.Mutex
	queue  [][]byte
	ended  bool
	notify chan struct{}
}

func newSub() *sub { return &sub{notify: make(chan struct{}, 1)} }

// push frames one event as sse-helpers.ts send() does.
func (sb *sub) push(name string, v any) {
	data, _ := json.Marshal(v)
	msg := append(append(append(append([]byte("event: "), name...), "\ndata: "...), data...), "\n\n"...)
	sb.mu.Lock()
	sb.queue = append(sb.queue, msg)
	sb.mu.Unlock()
	sb.wake()
}

func (sb *sub) end() {
	sb.mu.Lock()
	sb.ended = true
	sb.mu.Unlock()
	sb.wake()
}

func (sb *sub) wake() {
	select {
	case sb.notify <- struct{}{}:
	default:
	}
}

func (sb *sub) take() ([][]byte, bool) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	q := sb.queue
	sb.queue = nil
	return q, sb.ended
}

// stream is GET /activity/stream: the replay of getActivityAfter, then
// each new entry, and a heartbeat comment every Heartbeat.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	after, isNum := parseAfter(r.URL.Query().Get("after"))
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)

	sb := newSub()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	entries, gap := s.after(after, isNum)
	if gap != nil {
		sb.push("gap", gap)
	}
	for _, e := range entries {
		sb.push("activity", e)
	}
	s.subs[sb] = struct{}{}
	s.mu.Unlock()
	if flusher != nil {
		flusher.Flush() // the headers now, as a streaming Response sends them
	}
	defer func() {
		s.mu.Lock()
		delete(s.subs, sb)
		s.mu.Unlock()
	}()

	beat := time.NewTicker(s.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-beat.C:
			if _, err := w.Write([]byte(": heartbeat\n\n")); err != nil {
				return
			}
		case <-sb.notify:
			msgs, ended := sb.take()
			for _, m := range msgs {
				if _, err := w.Write(m); err != nil {
					return
				}
			}
			if ended {
				if flusher != nil {
					flusher.Flush()
				}
				return
			}
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// gap is the gap event's body.
type gap struct {
	GapFrom       int64 `json:"gapFrom"`
	AvailableFrom int64 `json:"availableFrom"`
}

// after is getActivityAfter (activity.ts); call it with s.mu held.
func (s *Server) after(afterID int64, isNum bool) ([]Entry, *gap) {
	all := append([]Entry(nil), s.ring...)
	if !isNum {
		return nil, nil // parseInt gave NaN: no entry is after it, and no gap
	}
	if afterID == 0 {
		return all, nil
	}
	oldest := s.next
	if len(all) > 0 {
		oldest = all[0].ID
	}
	if afterID < oldest {
		return all, &gap{GapFrom: afterID + 1, AvailableFrom: oldest}
	}
	for i, e := range all {
		if e.ID > afterID {
			return all[i:], nil
		}
	}
	return nil, nil
}

// parseAfter is parseInt(after || '0', 10): an optional sign and leading
// digits; false for NaN.
func parseAfter(s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg, s = s[0] == '-', s[1:]
	}
	n, i := int64(0), 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<50; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// pick is a Follower over a fixed hub whose choice the test moves.
type pick struct {
	hub     *Hub
	mu      sync.Mutex
	current string
	changed chan struct{}
}

func (p *pick) set(id string) {
	p.mu.Lock()
	p.current = id
	p.mu.Unlock()
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *pick) Pick() *Topic {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == "" {
		return nil
	}
	t, _ := p.hub.Lookup(p.current)
	return t
}
func (p *pick) Changed() <-chan struct{} { return p.changed }
func (p *pick) Announce(id string) event.Event {
	return event.Event{Type: event.Session, Workspace: id, Paired: id != "", Reason: event.FollowReason}
}

// follow connects to a follow stream and returns its messages as they come.
func follow(t *testing.T, url, lastID string) (<-chan Message, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan Message, 100)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		Read(bufio.NewReader(resp.Body), func(m Message) error { out <- m; return nil })
	}()
	return out, cancel
}

func next(t *testing.T, c <-chan Message) Message {
	t.Helper()
	select {
	case m, ok := <-c:
		if !ok {
			t.Fatal("stream ended")
		}
		return m
	case <-time.After(3 * time.Second):
		t.Fatal("no event")
	}
	return Message{}
}

func TestFollowSwitchesAndResumes(t *testing.T) {
	hub := NewHub("", 0)
	a, _ := hub.Topic("a")
	b, _ := hub.Topic("b")
	a.Publish(texts(3, "a"), nil)
	b.Publish(texts(2, "b"), nil)
	p := &pick{hub: hub, changed: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SSE{Heartbeat: time.Hour}.Follow(r.Context(), w, r, p)
	}))
	defer srv.Close()

	c, cancel := follow(t, srv.URL, "")
	// Nothing picked: a session event with no workspace.
	if m := next(t, c); m.Event != "session" || m.LastID != "0" {
		t.Fatalf("first: %+v", m)
	}
	p.set("a")
	m := next(t, c)
	var e event.Event
	json.Unmarshal(m.Data, &e)
	if m.Event != "session" || e.Workspace != "a" || !e.Paired || m.LastID != "a:0" {
		t.Fatalf("switch to a: %+v %s", m, m.Data)
	}
	for want := int64(1); want <= 3; want++ {
		if m := next(t, c); m.ID != want || m.LastID != "a:"+itoa(int(want)) {
			t.Fatalf("replay of a: %+v", m)
		}
	}
	a.Publish(texts(1, "live"), nil)
	if m := next(t, c); m.LastID != "a:4" {
		t.Fatalf("live: %+v", m)
	}
	p.set("b")
	if m := next(t, c); m.Event != "session" || m.LastID != "b:0" {
		t.Fatalf("switch to b: %+v", m)
	}
	next(t, c)
	if m := next(t, c); m.LastID != "b:2" {
		t.Fatalf("replay of b: %+v", m)
	}
	// A wake-up that leaves the pick unchanged neither repeats nor loses.
	p.set("b")
	b.Publish(texts(1, "b-live"), nil)
	if m := next(t, c); m.LastID != "b:3" || m.Event != "assistant" {
		t.Fatalf("after a spurious wake: %+v", m)
	}
	cancel()

	// Reconnect with the last id: resumes in b after 3.
	c, cancel = follow(t, srv.URL, "b:3")
	defer cancel()
	if m := next(t, c); m.Event != "session" || m.LastID != "b:3" {
		t.Fatalf("resume announce: %+v", m)
	}
	b.Publish(texts(1, "x"), nil)
	if m := next(t, c); m.LastID != "b:4" {
		t.Fatalf("resume: %+v", m)
	}
	// A cursor for a topic no longer picked replays the picked one whole.
	c2, cancel2 := follow(t, srv.URL, "a:4")
	defer cancel2()
	if m := next(t, c2); m.LastID != "b:0" {
		t.Fatalf("other topic's cursor: %+v", m)
	}
}

func TestFollowCursor(t *testing.T) {
	tests := []struct {
		header, after string
		topic         string
		n             int64
	}{
		{"", "", "", 0},
		{"ws-1:42", "", "ws-1", 42},
		{"", "7", "", 7},
		{"", "w:9", "w", 9},
		{"w:10", "w:3", "w", 10},
		{"garbage:x", "", "", 0},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(http.MethodGet, "/?after="+tt.after, nil)
		if tt.header != "" {
			r.Header.Set("Last-Event-ID", tt.header)
		}
		if topic, n := FollowCursor(r); topic != tt.topic || n != tt.n {
			t.Errorf("%q/%q: %q %d", tt.header, tt.after, topic, n)
		}
	}
}

// An event published just before the stream's context ends is still
// written: an unpairing announces itself before the stream closes.
func TestServeWritesQueuedEventsBeforeEnding(t *testing.T) {
	hub := NewHub("", 0)
	topic, _ := hub.Topic("a")
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		go func() { <-stop; cancel() }()
		SSE{Heartbeat: time.Hour}.Serve(ctx, w, r, topic)
	}))
	defer srv.Close()
	c, cancel := follow(t, srv.URL, "")
	defer cancel()
	time.Sleep(50 * time.Millisecond)
	for i := 0; i < 20; i++ {
		topic.Publish([]event.Event{{Type: event.Pairing, Workspace: "a"}}, nil)
		if i == 19 {
			close(stop)
		}
	}
	n := 0
	for m := range c {
		if m.Event == "pairing" {
			n++
		}
	}
	if n != 20 {
		t.Errorf("%d of 20 events written before the stream ended", n)
	}
}

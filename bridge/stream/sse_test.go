package stream

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// serveSSE serves tp's stream as o has it, keeping each request's
// connection where rawOf finds it; the server closes when the test ends
// (after the test's deferred calls: its clients close first).
func serveSSE(t *testing.T, o SSE, tp *Topic) *httptest.Server {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.Serve(r.Context(), w, r, tp)
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// rawOf is the connection under r, as the test server's ConnContext
// keeps it.
func rawOf(r *http.Request) syscall.RawConn {
	c, _ := r.Context().Value(connKey{}).(syscall.Conn)
	if c == nil {
		return nil
	}
	raw, err := c.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// subscribers is how many subscribers tp has.
func subscribers(tp *Topic) int {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return len(tp.subs)
}

// A client that stops reading its stream (a laptop asleep, a tab
// frozen) holds up nothing: the workspace's publisher never waits on its
// socket, so a client reading along gets every event, in order, while
// the stopped one's socket is full, and the stopped one is cut loose to
// replay from its last id when it reads again. The stopped client's
// write timeout is an hour: a publisher that wrote to its socket itself
// would wait that long.
func TestAStoppedStreamHoldsUpNothing(t *testing.T) {
	for _, tt := range []struct {
		name   string
		direct bool // the publisher writes to idle connections (direct.go)
	}{{"written by the stream", false}, {"written by the publisher", true}} {
		t.Run(tt.name, func(t *testing.T) { stoppedStream(t, tt.direct) })
	}
}

type connKey struct{}

func stoppedStream(t *testing.T, direct bool) {
	tp, err := NewHub(t.TempDir(), 100).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	o := SSE{WriteTimeout: time.Hour}
	if direct {
		o.Raw = rawOf
	}
	srv := serveSSE(t, o, tp)

	// The stopped client asks for the stream and never reads a byte.
	stopped, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stopped.Close() // before srv.Close: its handler ends with it
	fmt.Fprintf(stopped, "GET / HTTP/1.1\r\nHost: bridge\r\n\r\n")
	for subscribers(tp) < 1 {
		time.Sleep(time.Millisecond) // until its handler has subscribed
	}

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan int64, 64)
	go func() {
		defer close(got)
		Read(bufio.NewReader(resp.Body), func(m Message) error { got <- m.ID; return nil })
	}()
	for subscribers(tp) < 2 {
		time.Sleep(time.Millisecond)
	}

	// Each event is as large as Bound lets it be (2.5 KB of text): 10,000
	// are 25 MB, more than the stopped client's socket buffers on both
	// sides and its subscriber's buffer hold. A batch is published once
	// the reading client has the one before: it keeps up.
	const n, batch = 10000, 10
	text := strings.Repeat("x", event.MaxText)
	read := make(chan struct{}, 1) // a publisher held up leaves the next batch's word here
	go func() {
		for range n / batch {
			if _, ok := <-read; !ok {
				return
			}
			evs := make([]event.Event, batch)
			for i := range evs {
				evs[i] = event.Event{Type: event.Assistant, Content: text, Input: text, Output: text, Args: text, Result: text}
			}
			if _, err := tp.Publish(evs, nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer close(read)
	for want := int64(1); want <= n; want++ {
		if want%batch == 1 {
			read <- struct{}{}
		}
		select {
		case id, ok := <-got:
			if !ok {
				t.Fatalf("the reading client's stream ended after %d of %d events", want-1, n)
			}
			if id != want {
				t.Fatalf("the reading client got event %d where %d was next", id, want)
			}
		case <-time.After(30 * time.Second): // a hang, not a measure: the events are in memory
			t.Fatalf("the reading client got %d of %d events and no more: the publisher waits on the stopped client", want-1, n)
		}
	}
	if k := subscribers(tp); k != 1 {
		t.Errorf("%d subscribers after the burst, want 1: the stopped client is not cut loose", k)
	}
}

// TestWritingToAnIdleStreamAllocatesNothing: the publisher writes each
// event to an idle subscriber's socket itself, for every line an agent
// writes; doing so allocates nothing beyond what publishing to a topic
// nobody follows does.
func TestWritingToAnIdleStreamAllocatesNothing(t *testing.T) {
	h := NewHub("", 100)
	tp, err := h.Topic("followed")
	if err != nil {
		t.Fatal(err)
	}
	alone, err := h.Topic("alone")
	if err != nil {
		t.Fatal(err)
	}
	o := SSE{Heartbeat: time.Hour, WriteTimeout: time.Hour, Raw: rawOf}
	srv := serveSSE(t, o, tp)
	client, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	fmt.Fprintf(client, "GET / HTTP/1.1\r\nHost: bridge\r\n\r\n")
	first := make(chan struct{})
	go func() { // reads along, into one buffer
		buf := make([]byte, 64<<10)
		for once := false; ; {
			if _, err := client.Read(buf); err != nil {
				return
			}
			if !once && strings.Contains(string(buf), "id: 1\n") {
				once = true
				close(first)
			}
		}
	}()
	var sub *Subscriber
	for sub == nil {
		time.Sleep(time.Millisecond) // until its handler has subscribed
		tp.mu.Lock()
		for s := range tp.subs {
			sub = s
		}
		tp.mu.Unlock()
	}
	for started := false; !started; {
		sub.direct.mu.Lock()
		started = sub.direct.raw != nil
		sub.direct.mu.Unlock()
		time.Sleep(time.Millisecond) // until the publisher may write to it
	}
	evs := []event.Event{{Type: event.User, SessionID: "s", Content: "a prompt of a few words"}}
	publish := func(tp *Topic) func() {
		return func() {
			if _, err := tp.Publish(evs, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	publish(tp)() // its buffers grow to an event's size
	<-first
	followed, base := testing.AllocsPerRun(200, publish(tp)), testing.AllocsPerRun(200, publish(alone))
	if followed != base {
		t.Errorf("publishing to a followed topic allocates %v times, to one nobody follows %v", followed, base)
	}
	if n := len(sub.C); n > 0 {
		t.Errorf("%d events went through the subscriber's channel: the test measured no direct write", n)
	}
}

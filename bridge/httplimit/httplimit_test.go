package httplimit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// generous bounds every wait: things that must happen do so long before.
const generous = 10 * time.Second

// short are test limits: a fraction of a second each.
func short(maxConns int) Limits {
	return Limits{ReadHeader: 200 * time.Millisecond, Read: 300 * time.Millisecond, Write: 300 * time.Millisecond,
		Idle: 300 * time.Millisecond, MaxConns: maxConns,
		Long: func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/hook/") }}
}

// start serves h with l on a real loopback listener.
func start(t *testing.T, l Limits, h http.Handler) (addr string, ln net.Listener) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln = Listen(raw, l.MaxConns)
	srv := l.Server(h)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return raw.Addr().String(), ln
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// endsWithin reads c until the server closes it (or answers), failing if
// neither happens within the generous bound.
func endsWithin(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(generous))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server neither answered nor closed the connection (read %q)", b)
	}
	return string(b)
}

var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "slow body: "+err.Error(), http.StatusRequestTimeout)
		return
	}
	fmt.Fprintf(w, "got %d bytes", len(b))
})

func TestSlowBodyIsCutOff(t *testing.T) {
	addr, _ := start(t, short(0), echo)
	c := dial(t, addr)
	// Headers promptly, then 10 of the 100 bytes promised, then nothing.
	fmt.Fprintf(c, "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n0123456789")
	if got := endsWithin(t, c); strings.Contains(got, "got 100 bytes") {
		t.Fatalf("a body never sent was read: %q", got)
	}
}

func TestSlowHeadersAreCutOff(t *testing.T) {
	addr, _ := start(t, short(0), echo)
	c := dial(t, addr)
	fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: x\r\n") // and never the blank line
	endsWithin(t, c)
}

func TestIdleConnectionIsClosed(t *testing.T) {
	addr, _ := start(t, short(0), echo)
	c := dial(t, addr)
	fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	// Kept alive, then left idle: the server hangs up.
	c.SetReadDeadline(time.Now().Add(generous))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: %v, want the server to close it", err)
	}
}

// A stream and a waiting hook live far longer than Read and Write: the
// deadlines only bound reading a request and writing a plain answer.
func TestStreamsAndWaitingHooksOutliveTheDeadlines(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stream", func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 20 { // 1 s, three times Read and Write
			rc.SetWriteDeadline(time.Now().Add(time.Second)) // as stream.SSE does
			if _, err := fmt.Fprintf(w, "data: %d\n\n", i); err != nil || rc.Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return // what a Read deadline passing in the background does
			case <-time.After(50 * time.Millisecond):
			}
		}
		fmt.Fprint(w, "data: end\n\n")
	})
	mux.HandleFunc("POST /hook/rewake", func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second): // waiting for a message
		}
		fmt.Fprint(w, "message")
	})
	addr, _ := start(t, short(0), mux)
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	get := func(method, path, body string) string {
		req, _ := http.NewRequestWithContext(ctx, method, "http://"+addr+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get("GET", "/stream", ""); !strings.HasSuffix(got, "data: end\n\n") {
		t.Errorf("stream cut short: %q", got)
	}
	if got := get("POST", "/hook/rewake", `{"a":1}`); got != "message" {
		t.Errorf("waiting hook: %q", got)
	}
}

func TestConnectionCap(t *testing.T) {
	addr, ln := start(t, Limits{MaxConns: 2}, echo)
	held := []net.Conn{dial(t, addr), dial(t, addr)}
	lim := ln.(*Listener)
	deadline := time.Now().Add(generous)
	for lim.Open() != 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if lim.Open() != 2 {
		t.Fatalf("%d connections open, want 2", lim.Open())
	}
	// A third waits: the kernel queues it, the server does not take it.
	answered := make(chan string, 1)
	go func() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(generous))
		b, _ := io.ReadAll(c)
		answered <- string(b)
	}()
	select {
	case got := <-answered:
		t.Fatalf("a connection over the cap was served: %q", got)
	case <-time.After(200 * time.Millisecond):
	}
	if n := lim.Open(); n != 2 {
		t.Fatalf("%d open over a cap of 2", n)
	}
	// Once one closes, the waiting one is served.
	held[0].Close()
	select {
	case got := <-answered:
		if !strings.Contains(got, "200 OK") {
			t.Fatalf("after a slot freed: %q", got)
		}
	case <-time.After(generous):
		t.Fatal("the queued connection was never served")
	}
}

func TestListenerCloseFreesWaitingAccept(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Listen(raw, 1)
	dial(t, raw.Addr().String())
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ln.Accept(); done <- err }()
	ln.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Accept on a closed listener succeeded")
		}
	case <-time.After(generous):
		t.Fatal("Accept still waits after Close")
	}
	c.Close() // and freeing the slot afterwards does not block
}

func TestCapFor(t *testing.T) {
	for _, tt := range []struct {
		limit uint64
		want  int
	}{
		{256, 64},     // macOS's default soft limit: 192 kept in reserve
		{100, 16},     // tiny: still a browser or two
		{1024, 768},   // a quarter in reserve
		{20000, 4096}, // capped
		{1 << 62, 4096},
	} {
		if got := capFor(tt.limit); got != tt.want {
			t.Errorf("capFor(%d) = %d, want %d", tt.limit, got, tt.want)
		}
	}
	if n := MaxConns(); n < 16 || n > 4096 {
		t.Errorf("MaxConns() = %d", n)
	}
}

// With an owner, another user's connections have a pool of their own
// (Others): over it they are closed as soon as accepted, and they never
// take one of the user's slots. Whose each connection is, in the order
// they come, is told to owner by the test.
func TestOthersHaveACapOfTheirOwn(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	whose := make(chan int, 1)
	owner := func(net.Conn) (int, error) { return <-whose, nil }
	ln := Limits{MaxConns: 1, Others: 1}.ListenOwn(raw, owner)
	defer ln.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	addr := raw.Addr().String()
	me, other := os.Getuid(), os.Getuid()+1
	// Another user's first connection takes the others' one slot.
	whose <- other
	first := dial(t, addr)
	c := <-accepted
	if f, ok := c.(interface{ Foreign() bool }); !ok || !f.Foreign() {
		t.Fatalf("another user's connection not marked foreign: %T", c)
	}
	if uid, err := c.(interface{ PeerUID() (int, error) }).PeerUID(); err != nil || uid != other {
		t.Errorf("PeerUID = %d, %v", uid, err)
	}
	// Its second is closed at once: the client reads EOF.
	whose <- other
	if got := endsWithin(t, dial(t, addr)); got != "" {
		t.Errorf("over the others' cap: read %q", got)
	}
	// The user's own connection still gets the user's one slot.
	whose <- me
	dial(t, addr)
	select {
	case c := <-accepted:
		if c.(interface{ Foreign() bool }).Foreign() {
			t.Error("the user's connection marked foreign")
		}
	case <-time.After(generous): // a hang guard
		t.Fatal("the user's connection waited behind another user's")
	}
	first.Close()
}

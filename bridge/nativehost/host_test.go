package nativehost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"

	"conductorbridge/bridge/peer"
)

const own = "chrome-extension://bnajdpidefmalpkmnjimpcbokiocknjp"

// fakeBridge answers /health as a bridge does (or as something else).
func fakeBridge(t *testing.T, service string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" || r.Header.Get("Authorization") != "" {
			t.Errorf("the host sent %s %s (auth %q): it only asks /health, with no credential", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"healthy","service":%q}`, service)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// host is a Host for the bridge at addr, as the user running the test.
func host(addr string) *Host {
	return &Host{
		Origin: own + "/", Allowed: []string{own},
		Bridge:     func() (string, error) { return addr, nil },
		Credential: func() (string, error) { return "ext.credential", nil },
		UID:        os.Getuid(),
	}
}

func connect(t *testing.T, h *Host) Reply {
	t.Helper()
	return h.Handle(context.Background(), []byte(`{"type":"connect"}`))
}

func TestConnectHandsOverPortAndCredential(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no socket table to check the listener with on " + runtime.GOOS)
	}
	addr := fakeBridge(t, "conductor-bridge")
	// The real owner lookup: this test's own listener is the test's user's.
	r := connect(t, host(addr))
	_, port, _ := net.SplitHostPort(addr)
	if r.Error != "" || fmt.Sprint(r.Port) != port || r.Token != "ext.credential" {
		t.Fatalf("connect = %+v, want port %s and the credential", r, port)
	}
}

func TestConnectRefuses(t *testing.T) {
	startIt := "Run: conductor-bridge" // no Applications folder to open it from
	if runtime.GOOS == "darwin" {
		startIt = "Open it from Applications"
	}
	bridge := fakeBridge(t, "conductor-bridge")
	other := fakeBridge(t, "something-else")
	closed := "127.0.0.1:1" // nothing listens on port 1 (tcpmux)
	me := os.Getuid()
	tests := []struct {
		name     string
		change   func(*Host)
		code     string
		mentions string
	}{
		{"bridge not running (no bridge.json)", func(h *Host) {
			h.Bridge = func() (string, error) { return "", fmt.Errorf("read bridge.json: %w", fs.ErrNotExist) }
		}, CodeNotRunning, startIt},
		{"bridge gone, its address left behind", func(h *Host) {
			h.Bridge = func() (string, error) { return closed, nil }
		}, CodeNotRunning, "not running"},
		{"state unreadable", func(h *Host) {
			h.Bridge = func() (string, error) { return "", fs.ErrPermission }
		}, CodeState, "doctor"},
		{"address not on loopback", func(h *Host) {
			h.Bridge = func() (string, error) { return "192.0.2.1:34568", nil }
		}, CodeState, "loopback"},
		{"garbage address", func(h *Host) {
			h.Bridge = func() (string, error) { return "34568", nil }
		}, CodeState, "loopback"},
		{"another user holds the port", func(h *Host) {
			h.Owner = func(net.Conn) (int, error) { return me + 1, nil }
		}, CodeNotYours, "Another user"},
		{"owner unknown", func(h *Host) {
			h.Owner = func(net.Conn) (int, error) { return -1, errors.New("peer uid unknown") }
		}, CodeUnverified, "Cannot tell"},
		{"the user's own program, not a bridge", func(h *Host) {
			h.Bridge = func() (string, error) { return other, nil }
			h.Owner = func(net.Conn) (int, error) { return me, nil }
		}, CodeNotBridge, "not Conductor Bridge"},
		{"token unreadable", func(h *Host) {
			h.Owner = func(net.Conn) (int, error) { return me, nil }
			h.Credential = func() (string, error) { return "", fs.ErrNotExist }
		}, CodeState, "credentials"},
		{"origin not allowed", func(h *Host) { h.Origin = "chrome-extension://evil/" }, CodeNotAllowed, "--allow-origin chrome-extension://evil"},
		{"no origin", func(h *Host) { h.Origin = "" }, CodeNotAllowed, "no extension origin"},
		{"a web origin", func(h *Host) { h.Origin = "https://example.com"; h.Allowed = append(h.Allowed, "https://example.com") }, CodeNotAllowed, "may not use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := host(bridge)
			h.Owner = func(net.Conn) (int, error) { return me, nil }
			tt.change(h)
			r := connect(t, h)
			if r.Code != tt.code || !strings.Contains(r.Error, tt.mentions) {
				t.Errorf("reply %+v, want code %s mentioning %q", r, tt.code, tt.mentions)
			}
			if r.Token != "" || r.Port != 0 {
				t.Errorf("handed over %+v despite the refusal", r)
			}
		})
	}
}

// TestNoCredentialReachesAnotherUsersListener: when the port is another
// user's, the host sends it nothing at all: not /health, not a token.
func TestNoCredentialReachesAnotherUsersListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c) // until the host hangs up
		got <- b
	}()
	h := host(ln.Addr().String())
	h.Owner = func(net.Conn) (int, error) { return os.Getuid() + 1, nil }
	if r := connect(t, h); r.Code != CodeNotYours {
		t.Fatalf("reply %+v", r)
	}
	if b := <-got; len(b) != 0 {
		t.Errorf("another user's listener received %q", b)
	}
}

// TestServeSpeaksTheFraming runs the host loop over a stream: requests in,
// one reply each, garbage answered with an error and the loop going on.
func TestServeSpeaksTheFraming(t *testing.T) {
	addr := fakeBridge(t, "conductor-bridge")
	h := host(addr)
	h.Owner = func(net.Conn) (int, error) { return os.Getuid(), nil }
	var in bytes.Buffer
	for _, m := range []string{`{"type":"connect"}`, `not json`, `{"type":"reboot"}`, `{"type":"connect"}`} {
		in.Write(le(len(m)))
		in.WriteString(m)
	}
	var out bytes.Buffer
	if err := h.Serve(context.Background(), &in, &out); err != nil {
		t.Fatalf("serve: %v", err)
	}
	replies := readReplies(t, &out)
	if len(replies) != 4 {
		t.Fatalf("%d replies: %+v", len(replies), replies)
	}
	if replies[0].Token == "" || replies[3].Token == "" {
		t.Errorf("connects: %+v / %+v", replies[0], replies[3])
	}
	if replies[1].Code != CodeBadRequest || !strings.Contains(replies[1].Error, "not JSON") {
		t.Errorf("garbage: %+v", replies[1])
	}
	if replies[2].Code != CodeBadRequest || !strings.Contains(replies[2].Error, `"reboot"`) {
		t.Errorf("unknown type: %+v", replies[2])
	}
}

func TestServeStopsOnAStreamItCannotTrust(t *testing.T) {
	h := host("127.0.0.1:1")
	// A length of 4 GiB - 1: answered once, then the host stops.
	var out bytes.Buffer
	err := h.Serve(context.Background(), bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, '{'}), &out)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge length: %v", err)
	}
	if r := readReplies(t, &out); len(r) != 1 || r[0].Code != CodeBadRequest || !strings.Contains(r[0].Error, "too large") {
		t.Errorf("huge length answered %+v", r)
	}
	// Cut inside a message: nothing to answer, an error that says so.
	out.Reset()
	err = h.Serve(context.Background(), bytes.NewReader(append(le(18), `{"type":`...)), &out)
	if !errors.Is(err, io.ErrUnexpectedEOF) || out.Len() != 0 {
		t.Errorf("cut message: %v, %d bytes out", err, out.Len())
	}
	// Nothing at all: a clean end.
	if err := h.Serve(context.Background(), bytes.NewReader(nil), &out); err != nil {
		t.Errorf("empty stream: %v", err)
	}
}

func readReplies(t *testing.T, r io.Reader) []Reply {
	t.Helper()
	var out []Reply
	for {
		b, err := ReadMessage(r, MaxFromHost)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("read reply: %v", err)
		}
		var rep Reply
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("reply %q: %v", b, err)
		}
		out = append(out, rep)
	}
}

// BenchmarkConnect is the host's whole answer to connect, with the real
// look-up of the listener's owner: dial, socket table, /health.
func BenchmarkConnect(b *testing.B) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		b.Skip("no socket table on " + runtime.GOOS)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"service":"conductor-bridge"}`)
	}))
	defer srv.Close()
	h := host(srv.Listener.Addr().String())
	for b.Loop() {
		if r := h.Handle(context.Background(), []byte(`{"type":"connect"}`)); r.Token == "" {
			b.Fatalf("connect: %+v", r)
		}
	}
}

// TestConnectLooksAgainForASocketNotListedYet: a server end not in the
// socket table yet is looked for again; one never found is refused.
func TestConnectLooksAgainForASocketNotListedYet(t *testing.T) {
	addr := fakeBridge(t, "conductor-bridge")
	h := host(addr)
	calls := 0
	h.Owner = func(net.Conn) (int, error) {
		if calls++; calls < 3 {
			return -1, fmt.Errorf("%w: not listed yet", peer.ErrUnknown)
		}
		return os.Getuid(), nil
	}
	if r := connect(t, h); r.Token == "" || calls != 3 {
		t.Errorf("after %d look-ups: %+v", calls, r)
	}
	calls = 0
	h.Owner = func(net.Conn) (int, error) { calls++; return -1, fmt.Errorf("%w: never listed", peer.ErrUnknown) }
	if r := connect(t, h); r.Code != CodeUnverified || r.Token != "" || calls < 2 || calls > 10 {
		t.Errorf("after %d look-ups: %+v", calls, r)
	}
}

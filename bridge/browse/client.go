package browse

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"time"

	"conductorbridge/bridge/peer"
)

// Why a browse server is not followed (besides the state file's reasons).
var (
	// errForeign: the port is held by another OS user's program, or its
	// owner cannot be told. The token is not sent.
	errForeign = errors.New("the browse server's port is not the user's")
	// errNotGstack: the port answers, but not as gstack's browse server.
	errNotGstack = errors.New("not gstack's browse server")
	// errUnhealthy: the port answers /health as gstack's browse server
	// does while its active page does not evaluate within 2 s (a JS
	// dialog open, a page hung; browser-manager.ts isHealthy). Not
	// followed now, and looked at again later (see Finder.Sweep).
	errUnhealthy = errors.New("browse server unhealthy (its page does not answer: a dialog open, or the page hung)")
	// errStalled: the stream sent nothing, not even a heartbeat, for too long.
	errStalled = errors.New("browse server stalled")
	// errStale: the state file's process is gone.
	errStale = errors.New("browse server gone (its process is not running)")
)

// maxHealth bounds /health's answer: gstack's is a hundred bytes.
const maxHealth = 64 << 10

// peerCheck finds the OS user at a loopback connection's other end.
type peerCheck func(local, remote net.Addr) (int, error)

// open connects to the browse server of st and opens its activity stream
// after id `after`, all on one connection, in this order:
//
//  1. GET /health, which carries no secret, and wants gstack's answer
//     ({"status":"healthy"}, cli.ts isServerHealthy; "unhealthy" is
//     gstack's too, but its page is stuck: errUnhealthy);
//  2. now that the server has accepted the connection and answered on
//     it, the kernel is asked who holds its other end (asked sooner, a
//     socket not yet accepted has no owner to tell), and it must be uid;
//  3. only then GET /activity/stream with the token.
//
// (A server that closes the connection after /health, which gstack's does
// not, is asked on a second one, once the kernel can tell its owner.)
//
// So the token goes to that port on 127.0.0.1 only, and only to a program
// of the user: never through a proxy or a redirect, never to a port
// another account grabbed after the browse server died.
func open(ctx context.Context, st State, after int64, uid int, owner peerCheck, stall time.Duration) (io.ReadCloser, error) {
	host := "127.0.0.1:" + strconv.Itoa(st.Port)
	c, err := dial(ctx, host, stall)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.close()
		}
	}()
	closing, err := health(c.conn, c.br, host)
	if err != nil {
		return nil, err
	}
	who, err := owner(c.raw.LocalAddr(), c.raw.RemoteAddr())
	if closing {
		// The server ends each connection after one answer (gstack's keeps
		// it alive): a second one, whose owner can be told once the
		// server has accepted it.
		c.close()
		if c, err = dial(ctx, host, stall); err != nil {
			return nil, err
		}
		who, err = ownerOnceAccepted(ctx, owner, c.raw)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errForeign, err)
	}
	if who != uid {
		return nil, fmt.Errorf("%w: held by uid %d", errForeign, who)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/activity/stream?after="+strconv.FormatInt(after, 10), nil)
	req.Header.Set("Authorization", "Bearer "+string(st.Token))
	req.Header.Set("Accept", "text/event-stream")
	if err := req.Write(c.conn); err != nil {
		return nil, fmt.Errorf("ask for the activity stream: %w", err)
	}
	resp, err := http.ReadResponse(c.br, req)
	if err != nil {
		return nil, fmt.Errorf("activity stream: %w", err)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: /activity/stream answered %d %.64q", errNotGstack, resp.StatusCode, mt)
	}
	ok = true
	return &streamBody{ReadCloser: resp.Body, c: c}, nil
}

// conn is one connection to the browse server, closed when ctx ends.
type conn struct {
	raw  net.Conn
	conn *stallConn
	br   *bufio.Reader
	stop func() bool
}

func dial(ctx context.Context, host string, stall time.Duration) (*conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	raw, err := d.DialContext(ctx, "tcp4", host)
	if err != nil {
		return nil, err
	}
	sc := &stallConn{Conn: raw, stall: stall}
	return &conn{raw: raw, conn: sc, br: bufio.NewReaderSize(sc, 4<<10), stop: context.AfterFunc(ctx, func() { raw.Close() })}, nil
}

func (c *conn) close() {
	c.stop()
	c.raw.Close()
}

// ownerOnceAccepted asks who holds raw's other end until the kernel can
// say, for at most a second: a socket the server has not accepted yet has
// no owner in its tables.
func ownerOnceAccepted(ctx context.Context, owner peerCheck, raw net.Conn) (int, error) {
	for range 50 {
		who, err := owner(raw.LocalAddr(), raw.RemoteAddr())
		if err == nil || !errors.Is(err, peer.ErrUnknown) {
			return who, err
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return owner(raw.LocalAddr(), raw.RemoteAddr())
}

// health asks /health on conn and reads the whole answer, so the same
// connection can carry the next request; closing says the server will
// close it instead.
func health(conn net.Conn, br *bufio.Reader, host string) (closing bool, err error) {
	req, _ := http.NewRequest(http.MethodGet, "http://"+host+"/health", nil)
	req.Header.Set("Accept", "application/json")
	if err := req.Write(conn); err != nil {
		return false, fmt.Errorf("ask /health: %w", err)
	}
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return false, fmt.Errorf("%w: /health: %v", errNotGstack, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxHealth+1))
	if err != nil {
		return false, fmt.Errorf("read /health: %w", err)
	}
	var h struct {
		Status string `json:"status"`
	}
	switch {
	case len(body) > maxHealth:
		return false, fmt.Errorf("%w: /health answered over %d bytes", errNotGstack, maxHealth)
	case resp.StatusCode != http.StatusOK || json.Unmarshal(body, &h) != nil:
		return false, fmt.Errorf("%w: /health answered %d", errNotGstack, resp.StatusCode)
	case h.Status == "unhealthy":
		return false, fmt.Errorf("%w: /health says so", errUnhealthy)
	case h.Status != "healthy":
		return false, fmt.Errorf("%w: /health says %.64q", errNotGstack, h.Status)
	}
	return resp.Close, nil
}

// streamBody is the stream's body; closing it closes the connection.
type streamBody struct {
	io.ReadCloser
	c *conn
}

func (b *streamBody) Close() error {
	b.c.close()
	return b.ReadCloser.Close()
}

// stallConn fails a read that waits longer than stall: gstack sends a
// heartbeat every 15 s, so a server silent for longer is stuck.
type stallConn struct {
	net.Conn
	stall time.Duration
}

func (c *stallConn) Read(b []byte) (int, error) {
	if c.stall > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(c.stall))
	}
	n, err := c.Conn.Read(b)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = fmt.Errorf("%w: nothing for %v", errStalled, c.stall)
	}
	return n, err
}

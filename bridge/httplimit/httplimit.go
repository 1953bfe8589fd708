// Package httplimit keeps the bridge's HTTP server answering under abuse
// or a leak of connections: a cap on open connections, sized so that the
// rest of the bridge (transcripts, journals, scans, hook calls) always has
// file descriptors left, and deadlines that end a slow or idle client
// without ever cutting a live SSE stream or a hook that waits for a
// message.
package httplimit

import (
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Limits are the server's timeouts and connection cap.
type Limits struct {
	// ReadHeader bounds reading a request's headers; Read its headers and
	// body together. Neither applies once the request has been read, so a
	// stream or a waiting hook call lives on.
	ReadHeader, Read time.Duration
	// Write bounds writing an answer, from the end of reading its request;
	// SSE streams set their own deadline per write, and requests Long
	// reports (a hook waiting for a message) have none.
	Write time.Duration
	// Idle is how long a kept-alive connection may wait for its next
	// request.
	Idle time.Duration
	// MaxConns caps open connections; more wait in the kernel's accept
	// queue until one closes (0: no cap).
	MaxConns int
	// Others caps, apart, the connections of other OS users, where the
	// listener can tell them (ListenOwn): they never take one of MaxConns,
	// and one over Others is closed as soon as it is accepted.
	Others int
	// Long reports requests that may legitimately take longer than Write.
	Long func(*http.Request) bool
}

// Defaults are the bridge's limits, given the connection cap.
func Defaults(maxConns int) Limits {
	return Limits{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 60 * time.Second,
		Idle: 90 * time.Second, MaxConns: maxConns, Others: 32}
}

// Server returns an http.Server for h with l's timeouts; serve it on
// Listen's listener to have the cap too.
func (l Limits) Server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           l.deadlines(h),
		ReadHeaderTimeout: l.ReadHeader,
		ReadTimeout:       l.Read,
		WriteTimeout:      l.Write,
		IdleTimeout:       l.Idle,
	}
}

// deadlines lifts the server's read deadline once a request has been read
// (net/http keeps reading in the background while a handler runs, and a
// read deadline passing there would cancel the request: an SSE stream or
// a waiting hook would die at Read), and lifts the write deadline for
// Long requests.
func (l Limits) deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if l.Long != nil && l.Long(r) {
			_ = rc.SetWriteDeadline(time.Time{})
		}
		lift := func() { _ = rc.SetReadDeadline(time.Time{}) }
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			lift()
		} else {
			r.Body = &liftAtEOF{ReadCloser: r.Body, lift: lift}
		}
		next.ServeHTTP(w, r)
	})
}

// liftAtEOF calls lift once the body has been read to its end.
type liftAtEOF struct {
	io.ReadCloser
	lift func()
	once sync.Once
}

func (b *liftAtEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.lift)
	}
	return n, err
}

// Listener caps the connections open at once. Accept waits for a free
// slot before accepting, so the excess waits in the kernel's queue rather
// than holding a descriptor.
//
// With an owner (ListenOwn) the slots are the user's own: each accepted
// connection's peer is looked up at once, and another OS user's
// connection (or one whose owner cannot be told) gives its slot back and
// takes one of a small pool of its own, or is closed there and then when
// that is full. Another account can open thousands of connections to
// 127.0.0.1, each after one open request (/health) and kept alive, or
// none at all; it never fills the cap the user's browser, CLI and hooks
// need.
type Listener struct {
	net.Listener
	slots  chan struct{}
	others chan struct{} // another user's connections; nil: not told apart
	owner  Owner
	self   int
	open   atomic.Int64
	closed chan struct{}
	once   sync.Once
}

// Owner finds the uid at the other end of an accepted connection.
type Owner func(net.Conn) (uid int, err error)

// Listen wraps ln with a cap of max connections (max <= 0: no cap).
func Listen(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &Listener{Listener: ln, slots: make(chan struct{}, max), closed: make(chan struct{})}
}

// ListenOwn wraps ln with l's cap kept for the user running this process
// (MaxConns) and a cap of l.Others for everyone else, telling them apart
// by owner. Each connection it accepts says whose it is (PeerUID,
// Foreign), so the server need not look it up again.
func (l Limits) ListenOwn(ln net.Listener, owner Owner) net.Listener {
	if l.MaxConns <= 0 || owner == nil {
		return Listen(ln, l.MaxConns)
	}
	return &Listener{Listener: ln, slots: make(chan struct{}, l.MaxConns),
		others: make(chan struct{}, max(l.Others, 1)), owner: owner, self: os.Getuid(),
		closed: make(chan struct{})}
}

// Open is the number of connections accepted and not yet closed.
func (l *Listener) Open() int { return int(l.open.Load()) }

func (l *Listener) Accept() (net.Conn, error) {
	for {
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.slots
			return nil, err
		}
		if l.owner == nil {
			l.open.Add(1)
			return &conn{Conn: c, l: l, slots: l.slots}, nil
		}
		uid, err := l.owner(c)
		if err == nil && uid == l.self {
			l.open.Add(1)
			return &ownedConn{conn: conn{Conn: c, l: l, slots: l.slots}, uid: uid}, nil
		}
		<-l.slots
		select {
		case l.others <- struct{}{}:
			l.open.Add(1)
			return &ownedConn{conn: conn{Conn: c, l: l, slots: l.others}, uid: uid, err: err, foreign: true}, nil
		default:
			c.Close() // another user's, over its cap: not served at all
		}
	}
}

// Close also frees a goroutine waiting in Accept for a slot: it gets the
// listener's error.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

type conn struct {
	net.Conn
	l     *Listener
	slots chan struct{} // the pool its slot came from
	once  sync.Once
}

// ownedConn is a connection whose peer was looked up when it was accepted.
type ownedConn struct {
	conn
	uid     int
	err     error
	foreign bool
}

// PeerUID is the uid at the other end, as looked up when the connection
// was accepted (an error: it could not be told).
func (c *ownedConn) PeerUID() (int, error) { return c.uid, c.err }

// Foreign reports whether the connection is another user's, or one whose
// user could not be told.
func (c *ownedConn) Foreign() bool { return c.foreign }

// Unlimited is the accepted connection itself, for a raw write to it
// (bridge/stream's direct writes).
func (c *conn) Unlimited() net.Conn { return c.Conn }

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.open.Add(-1)
		<-c.slots
	})
	return err
}

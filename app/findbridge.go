package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"conductorbridge/bridge/localsock"
	"conductorbridge/bridge/peer"
)

// stateDirEnv names the state folder for every command when --state-dir
// is not given: a demo prints it, so the CLI reaches the demo's bridge.
const stateDirEnv = "CONDUCTOR_BRIDGE_STATE_DIR"

// errNotRunning: no bridge listens on this state folder's socket, and none
// answers on the port either.
type errNotRunning struct {
	sock    string
	foreign string // the port, when another user holds it (and was sent nothing)
}

func (e *errNotRunning) Error() string {
	if e.foreign != "" {
		return fmt.Sprintf("Conductor Bridge is not running (no one listens on %s; its port %s is held by another user of this machine, who was sent nothing): start it with conductor-bridge", e.sock, e.foreign)
	}
	return fmt.Sprintf("Conductor Bridge is not running (no one listens on %s): start it with conductor-bridge", e.sock)
}

func (e *errNotRunning) Unwrap() error { return localsock.ErrNotRunning }

// errOtherBridge: nothing listens on this state folder's socket, but a
// bridge answers on the port — one with another state folder (a demo, a
// --home or --state-dir run), or another user's. Its credential is not
// this folder's, so nothing this command asks would be answered.
type errOtherBridge struct {
	addr     string
	stateDir string // the bridge's own folder, when it told (it tells its own user only)
	sock     string // the socket this command looked for
}

func (e *errOtherBridge) Error() string {
	switch {
	case e.stateDir != "":
		return fmt.Sprintf("a bridge is running on %s with another state folder (%s); pass --state-dir %s (or set %s=%s)",
			e.addr, e.stateDir, shellWord(e.stateDir), stateDirEnv, shellWord(e.stateDir))
	}
	return fmt.Sprintf("a bridge answers on %s, but not on this state folder's socket (%s): it runs with another state folder; pass that folder with --state-dir", e.addr, e.sock)
}

func (e *errOtherBridge) Unwrap() error { return localsock.ErrNotRunning }

// couldScan reports whether err leaves a command free to read the files
// itself: no bridge runs at all. A bridge of another state folder, or one
// that refuses, must be named instead.
func couldScan(err error) bool {
	var nr *errNotRunning
	return errors.As(err, &nr)
}

// notRunning is what a command hears when this state folder's socket is
// silent: a bridge of another folder on the port (errOtherBridge), or none
// (errNotRunning). Nothing secret is sent to the port: a GET /health. The
// answer is believed only from a listener of this user's (where the OS
// tells), and the bridge names its state folder only to its own user's
// programs, never to a browser.
func (b *bridgeClient) notRunning() error {
	if b.addr == "" {
		return &errNotRunning{sock: b.sock}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	none := &errNotRunning{sock: b.sock}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", b.addr)
	if err != nil {
		return none // nothing there either
	}
	defer conn.Close()
	if peer.Supported {
		uid, err := peer.ListenerUID(ctx, conn, nil)
		if err == nil && uid != os.Getuid() {
			none.foreign = b.addr
			return none
		}
		if err != nil {
			return none // cannot tell whose: ask it nothing
		}
	}
	h, err := healthOver(ctx, conn)
	if err != nil || h.Service != "conductor-bridge" {
		return none // not a bridge
	}
	return &errOtherBridge{addr: b.addr, stateDir: h.StateDir, sock: b.sock}
}

// portHealth asks what listens on addr for GET /health?state_dir: a bridge
// of this user's names its state folder. Ask it only once the listener is
// known to be this user's.
func portHealth(ctx context.Context, addr string) (health, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return health{}, err
	}
	defer conn.Close()
	h, err := healthOver(ctx, conn)
	if err == nil && h.Service != "conductor-bridge" {
		err = fmt.Errorf("%s is not a Conductor Bridge", addr)
	}
	return h, err
}

// healthOver reads GET /health over an open connection.
func healthOver(ctx context.Context, conn net.Conn) (health, error) {
	var h health
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+conn.RemoteAddr().String()+"/health?state_dir", nil)
	req.Header.Set("Connection", "close")
	if err := req.Write(conn); err != nil {
		return h, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("health: %s", resp.Status)
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&h)
	return h, err
}

// shellWord quotes a path for a command line when it needs it.
func shellWord(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == ',' || r == '@' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

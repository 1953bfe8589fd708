package opencode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"time"

	"conductorbridge/bridge/peer"
)

// Servers finds where a busy session takes a message: the loopback
// servers of the OpenCode processes that may run it, each one asked only
// once the kernel says its listening socket is this user's.
type Servers struct {
	// Listening lists a process's listening ends (default
	// peer.Listening).
	Listening func(pid int) ([]netip.AddrPort, error)
	// Owner is the uid owning the listening end c is connected to
	// (default: the kernel's socket table, peer.ListenerUID).
	Owner func(ctx context.Context, c net.Conn) (int, error)
	// UID is the user a server must belong to (default os.Getuid()).
	UID int
}

func (s Servers) withDefaults() Servers {
	if s.Listening == nil {
		s.Listening = peer.Listening
	}
	if s.Owner == nil {
		s.Owner = patientOwner
	}
	if s.UID == 0 && os.Getuid() != 0 {
		s.UID = os.Getuid()
	}
	return s
}

// Find returns the server of the process, among pids, that runs session
// now: the one whose /session/status says it is busy. None gives a
// *DeliverError saying why.
func (s Servers) Find(ctx context.Context, session string, pids []int) (netip.AddrPort, error) {
	s = s.withDefaults()
	var notMine, listed int
	var lastErr error
	for _, pid := range pids {
		ends, err := s.Listening(pid)
		if err != nil {
			lastErr = err
			continue
		}
		for _, end := range ends {
			if !end.Addr().IsLoopback() && !end.Addr().IsUnspecified() {
				continue // OpenCode's server is loopback unless told otherwise
			}
			end = netip.AddrPortFrom(loopback(end.Addr()), end.Port())
			listed++
			var status map[string]struct {
				Type string `json:"type"`
			}
			err := s.do(ctx, end, http.MethodGet, "/session/status", nil, &status)
			if errors.Is(err, errNotMine) {
				notMine++
				continue
			}
			if err != nil {
				lastErr = err
				continue
			}
			if st, ok := status[session]; ok && st.Type != "idle" {
				return end, nil
			}
		}
	}
	switch {
	case notMine > 0:
		return netip.AddrPort{}, &DeliverError{Reason: "the OpenCode server running this session belongs to another user"}
	case listed == 0 && lastErr != nil:
		return netip.AddrPort{}, &DeliverError{Reason: fmt.Sprintf("cannot find the server of the OpenCode process running this session (%v); send it once the session is idle", lastErr)}
	}
	reason := "no OpenCode server runs this session's turn (an `opencode run` serves none); send it once the session is idle"
	if lastErr != nil {
		reason += fmt.Sprintf(" (%v)", lastErr)
	}
	return netip.AddrPort{}, &DeliverError{Reason: reason}
}

func loopback(a netip.Addr) netip.Addr {
	switch {
	case a.Is4() && a.IsUnspecified():
		return netip.AddrFrom4([4]byte{127, 0, 0, 1})
	case a.IsUnspecified():
		return netip.IPv6Loopback()
	}
	return a
}

// PromptAsync posts message to session on the server at end, once the
// kernel says the server is this user's: OpenCode answers 204 and runs it
// after the turn under way.
func (s Servers) PromptAsync(ctx context.Context, end netip.AddrPort, session, message string) error {
	s = s.withDefaults()
	body, err := json.Marshal(map[string]any{"parts": []map[string]string{{"type": "text", "text": message}}})
	if err != nil {
		return err
	}
	err = s.do(ctx, end, http.MethodPost, "/session/"+url.PathEscape(session)+"/prompt_async", body, nil)
	if errors.Is(err, errNotMine) {
		return &DeliverError{Reason: "the OpenCode server running this session belongs to another user"}
	}
	return err
}

var errNotMine = errors.New("the server belongs to another user")

// do makes one request to the server at end on a connection whose other
// end the kernel says is this user's, and decodes a JSON answer into out.
// The request goes on that very connection, so no one can take the port
// between the check and the request.
func (s Servers) do(ctx context.Context, end netip.AddrPort, method, path string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", end.String())
	if err != nil {
		return fmt.Errorf("opencode server %s: %w", end, err)
	}
	defer c.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(deadline)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+end.String()+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Close = true
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	var wire bytes.Buffer
	if err := req.Write(&wire); err != nil {
		return err
	}
	// The method alone goes first, the path and the message only once
	// the owner is known: a server that takes a connection only once data
	// comes (TCP_DEFER_ACCEPT) has no socket of its end before.
	first := len(method) + 1
	if _, err := c.Write(wire.Bytes()[:first]); err != nil {
		return fmt.Errorf("opencode server %s: %w", end, err)
	}
	uid, err := s.Owner(ctx, c)
	if err != nil {
		return fmt.Errorf("opencode server %s: its owner: %w", end, err)
	}
	if uid != s.UID {
		return fmt.Errorf("opencode server %s: %w (uid %d)", end, errNotMine, uid)
	}
	if _, err := c.Write(wire.Bytes()[first:]); err != nil {
		return fmt.Errorf("opencode server %s: %w", end, err)
	}
	rsp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		return fmt.Errorf("opencode server %s: %w", end, err)
	}
	defer rsp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(rsp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("opencode server %s: %w", end, err)
	}
	if rsp.StatusCode/100 != 2 {
		return fmt.Errorf("opencode server %s: %s %s: %s", end, method, path, rsp.Status)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("opencode server %s: %s: %w", end, path, err)
	}
	return nil
}

// ownerPatience bounds the wait for the kernel to list the server's end.
const ownerPatience = 3 * time.Second

// patientOwner is peer.ListenerUID asked again until the server's end is
// there: OpenCode's server (Bun) accepts a connection when its event loop
// gets to it, and until then its end has no inode, which the look-up does
// not trust. A busy OpenCode took 362 ms here (load 20 on 2 cores), past
// ListenerUID's own quarter second.
func patientOwner(ctx context.Context, c net.Conn) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, ownerPatience)
	defer cancel()
	for {
		uid, err := peer.ListenerUID(ctx, c, nil)
		if err == nil || !errors.Is(err, peer.ErrUnknown) || ctx.Err() != nil {
			return uid, err
		}
	}
}

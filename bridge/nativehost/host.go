package nativehost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"strings"
	"time"

	"conductorbridge/bridge/peer"
)

// Host answers one extension's requests. Chrome starts it with the caller's
// origin as its first argument and talks to it over stdin and stdout.
type Host struct {
	// Origin is the calling extension's origin, as Chrome passes it
	// ("chrome-extension://<id>/").
	Origin string
	// Allowed are the extension origins the host serves.
	Allowed []string
	// Bridge returns where the user's bridge listens ("127.0.0.1:<port>",
	// from bridge.json). An error wrapping fs.ErrNotExist: none runs.
	Bridge func() (string, error)
	// Credential returns the browser credential the bridge accepts.
	Credential func() (string, error)
	// UsageLink returns a one-time link that signs a browser tab in to
	// the bridge's usage page (nil: the host has none to give).
	UsageLink func(ctx context.Context) (string, error)
	// Owner returns the uid owning the far end of a connection the host
	// opened: the listener's (nil: peer.UID, from the client's side).
	Owner func(c net.Conn) (int, error)
	// UID is the user whose bridge this host may vouch for.
	UID int
	// Timeout bounds the look at the listener (0: 5 s).
	Timeout time.Duration
	// Errors, when set, gets a line for each refusal (Chrome keeps a
	// host's stderr in its log).
	Errors io.Writer
}

// Request is what the extension sends.
type Request struct {
	Type string `json:"type"` // "connect", or "usage" for a link to the usage page
}

// Reply is what the host answers: the port and credential, or an error in
// words a person can act on, with a code the extension can branch on.
type Reply struct {
	Port  int    `json:"port,omitempty"`
	Token string `json:"token,omitempty"`
	URL   string `json:"url,omitempty"` // "usage": the one-time link
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
}

// The codes of a Reply's error.
const (
	CodeNotRunning = "not_running" // no bridge: start it (the panel asks again later)
	CodeNotYours   = "not_yours"   // another user's program holds the port
	CodeUnverified = "unverified"  // who holds the port cannot be told
	CodeNotBridge  = "not_bridge"  // the user's own program, but not a bridge
	CodeState      = "state"       // the bridge's state cannot be read
	CodeNotAllowed = "not_allowed" // the calling extension is not on the allow-list
	CodeBadRequest = "bad_request" // not a request the host knows
)

// Serve answers every message on r until Chrome closes it. A message too
// large to read, or a stream cut inside a message, ends it with an error
// (after an answer, where one can still be framed).
func (h *Host) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	for {
		msg, err := ReadMessage(r, MaxToHost)
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, ErrTooLarge) {
			if werr := WriteMessage(w, Reply{Error: "The request is too large (" + err.Error() + ").", Code: CodeBadRequest}); werr != nil {
				return errors.Join(err, werr)
			}
			return err
		}
		if err != nil {
			return fmt.Errorf("read from Chrome: %w", err)
		}
		reply := h.Handle(ctx, msg)
		if reply.Error != "" && h.Errors != nil {
			fmt.Fprintf(h.Errors, "conductor-bridge native-host: %s (%s)\n", reply.Error, reply.Code)
		}
		if err := WriteMessage(w, reply); err != nil {
			return err
		}
	}
}

// Handle answers one message.
func (h *Host) Handle(ctx context.Context, msg []byte) Reply {
	if !h.allowed() {
		who := strings.TrimSuffix(h.Origin, "/")
		if who == "" {
			return Reply{Code: CodeNotAllowed, Error: "The native host answers only the extension Chrome starts it for; it got no extension origin."}
		}
		return Reply{Code: CodeNotAllowed, Error: fmt.Sprintf(
			"The extension %s may not use Conductor Bridge. Allow it with: conductor-bridge extension install --allow-origin %s", who, who)}
	}
	var req Request
	if err := json.Unmarshal(msg, &req); err != nil {
		return Reply{Code: CodeBadRequest, Error: "The request is not JSON: " + err.Error()}
	}
	switch req.Type {
	case "connect":
		return h.connect(ctx)
	case "usage":
		return h.usage(ctx)
	default:
		return Reply{Code: CodeBadRequest, Error: fmt.Sprintf("Unknown request type %q: the host knows \"connect\" and \"usage\".", req.Type)}
	}
}

// usage hands over a one-time link to the usage page, which the panel
// opens in a tab: the bridge mints it for this user's own program (the
// host, through the bridge's socket), never for a page.
func (h *Host) usage(ctx context.Context) Reply {
	if h.UsageLink == nil {
		return Reply{Code: CodeBadRequest, Error: "This host cannot open the usage page; run: conductor-bridge open --usage"}
	}
	u, err := h.UsageLink(ctx)
	if err != nil {
		return Reply{Code: CodeNotRunning, Error: "Cannot open the usage page (" + err.Error() + "). Run: conductor-bridge open --usage"}
	}
	return Reply{URL: u}
}

func (h *Host) allowed() bool {
	o := strings.TrimSuffix(h.Origin, "/")
	return strings.HasPrefix(o, "chrome-extension://") && len(o) > len("chrome-extension://") &&
		slices.ContainsFunc(h.Allowed, func(a string) bool { return strings.TrimSuffix(a, "/") == o })
}

// notRunning says how to start the bridge on this system: the app on a
// Mac, the command (or its login item) elsewhere.
var notRunning = map[bool]string{
	true:  "Conductor Bridge is not running. Open it from Applications, or run: conductor-bridge",
	false: "Conductor Bridge is not running. Run: conductor-bridge (or start its login item: conductor-bridge service start)",
}[runtime.GOOS == "darwin"]

// connect finds the user's bridge, makes sure the socket listening where it
// should be is the user's own, and only then hands over its port and a
// credential. While the bridge is down another account may hold the port:
// it gets nothing, not even a request with a secret in it.
func (h *Host) connect(ctx context.Context) Reply {
	addr, err := h.Bridge()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Reply{Code: CodeNotRunning, Error: notRunning}
	case err != nil:
		return Reply{Code: CodeState, Error: "Cannot read where Conductor Bridge listens (" + err.Error() + "). Run: conductor-bridge doctor"}
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() || ap.Port() == 0 {
		return Reply{Code: CodeState, Error: fmt.Sprintf("Conductor Bridge recorded an address that is not on this computer's loopback (%q). Quit it and open it again.", addr)}
	}
	timeout := h.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", ap.String())
	if err != nil {
		// It left its address behind: it crashed, or is starting again.
		return Reply{Code: CodeNotRunning, Error: notRunning}
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	uid, err := h.owner(ctx, conn)
	switch {
	case err != nil:
		return Reply{Code: CodeUnverified, Error: fmt.Sprintf(
			"Cannot tell which user's program listens on %s (%v), so nothing was handed over. Quit Conductor Bridge and open it again.", ap, err)}
	case uid != h.UID:
		return Reply{Code: CodeNotYours, Error: fmt.Sprintf(
			"Another user of this computer has a program listening on %s, where your Conductor Bridge should be. Nothing was sent to it. "+
				"Open Conductor Bridge again, or start it on another port: conductor-bridge serve --addr 127.0.0.1:<port>", ap)}
	}
	if err := isBridge(conn, ap); err != nil {
		return Reply{Code: CodeNotBridge, Error: fmt.Sprintf(
			"A program of yours that is not Conductor Bridge listens on %s (%v). Quit it, or start the bridge on another port: conductor-bridge serve --addr 127.0.0.1:<port>", ap, err)}
	}
	token, err := h.Credential()
	if err != nil {
		return Reply{Code: CodeState, Error: "Cannot read Conductor Bridge's credentials (" + err.Error() + "). Run: conductor-bridge doctor"}
	}
	return Reply{Port: int(ap.Port()), Token: token}
}

// owner looks up who holds the far end of conn (h.Owner, else the
// kernel's socket table; a socket not listed yet is looked for again).
func (h *Host) owner(ctx context.Context, conn net.Conn) (int, error) {
	return peer.ListenerUID(ctx, conn, h.Owner)
}

// isBridge asks the listener, over the connection already checked, whether
// it is a Conductor Bridge. /health carries no secret either way.
func isBridge(c net.Conn, ap netip.AddrPort) error {
	req, _ := http.NewRequest(http.MethodGet, "http://"+ap.String()+"/health", nil)
	req.Close = true
	if err := req.Write(c); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var h struct {
		Service string `json:"service"`
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/health answered %s", resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&h); err != nil || h.Service != "conductor-bridge" {
		return errors.New("/health does not say conductor-bridge")
	}
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"conductorbridge/bridge/api"
	"conductorbridge/bridge/localsock"
)

// A bridgeClient reaches the bridge of one state dir through its socket
// file (bridge/localsock), which is checked on every connection: folder
// and file the user's alone, and the process at the other end the user.
// The CLI and the hooks never go through TCP: while the bridge is down,
// anyone on the machine may be listening on its port, and would get the
// API token or the hook secret, and answer in the bridge's name.
type bridgeClient struct {
	sock string
	// addr is the port asked, when nothing listens on sock, whether a
	// bridge of another state folder runs ("": not asked).
	addr string
	tr   *http.Transport
}

// socketURL prefixes every request's path; its host is never looked up.
const socketURL = "http://conductor-bridge"

func newClient(stateDir string) *bridgeClient {
	path, _ := localsock.Path(stateDir)
	return &bridgeClient{sock: path, tr: &http.Transport{
		Proxy: nil, // never: the bridge is the socket file, whatever the environment says
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return localsock.Dial(ctx, path)
		},
		MaxIdleConnsPerHost: 4,
	}}
}

// client is this state dir's bridge, for a command: the one way every
// command finds the bridge (the state folder from --state-dir, else
// $CONDUCTOR_BRIDGE_STATE_DIR, else the home's; see config.resolve), and
// the port it asks when that folder's bridge is not running.
func (c *config) client() *bridgeClient {
	b := newClient(c.StateDir)
	b.addr = c.Addr
	return b
}

// http returns a client of the socket whose calls take at most timeout
// (0: no bound, for streams).
func (b *bridgeClient) http(timeout time.Duration) *http.Client {
	return &http.Client{Transport: b.tr, Timeout: timeout}
}

// url is the request URL for path on the bridge.
func (b *bridgeClient) url(path string) string { return socketURL + path }

// noBridge turns a failure to reach the bridge into what a person reads:
// nothing runs (errNotRunning, the only case where a command may fall back
// on reading the files itself), or a bridge of another state folder does
// (errOtherBridge), or the socket is not safe to use.
func (b *bridgeClient) noBridge(err error) error {
	switch {
	case errors.Is(err, localsock.ErrNotRunning):
		return b.notRunning()
	case errors.Is(err, localsock.ErrUnsafe):
		return fmt.Errorf("refusing to talk to the bridge: %w", err)
	}
	return err
}

// health is the part of GET /health the CLI uses.
type health struct {
	Status  string `json:"status"`
	Service string `json:"service"`
	Version string `json:"version"`
	// StateDir is the bridge's state folder, told to its own user's
	// programs only (never to a browser).
	StateDir string `json:"state_dir,omitempty"`
}

func probeHealth(ctx context.Context, cl *bridgeClient) (health, error) {
	var h health
	err := getJSON(ctx, cl, "/health", "", &h)
	return h, err
}

// getJSON reads path with the API token (every read but /health needs it).
func getJSON(ctx context.Context, cl *bridgeClient, path, token string, v any) error {
	return getJSONWithin(ctx, cl, path, token, v, 5*time.Second)
}

// getJSONWithin is getJSON for a read that may take up to timeout.
func getJSONWithin(ctx context.Context, cl *bridgeClient, path, token string, v any, timeout time.Duration) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cl.url(path), nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := cl.http(timeout).Do(req)
	if err != nil {
		return cl.noBridge(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, e.Error)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: decode: %w", path, err)
	}
	return nil
}

// apiWorkspace and apiSession are a workspace and one of its agent
// sessions as GET /api/workspaces lists them: the API's own wire types.
type (
	apiWorkspace = api.Workspace
	apiSession   = api.Session
)

func listWorkspaces(ctx context.Context, cl *bridgeClient, token string) ([]apiWorkspace, error) {
	var out struct {
		Workspaces []apiWorkspace `json:"workspaces"`
	}
	err := getJSON(ctx, cl, "/api/workspaces", token, &out)
	return out.Workspaces, err
}

// streamPath is a workspace's stream, from after on.
func streamPath(id string, after int64) string {
	u := "/workspace/" + url.PathEscape(id) + "/session/stream"
	if after > 0 {
		u += fmt.Sprintf("?after=%d", after)
	}
	return u
}

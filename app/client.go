package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// health is the part of GET /health the CLI uses.
type health struct {
	Status  string `json:"status"`
	Service string `json:"service"`
	Version string `json:"version"`
}

func probeHealth(ctx context.Context, base string) (health, error) {
	var h health
	if err := getJSON(ctx, base+"/health", "", &h); err != nil {
		return h, err
	}
	if h.Service != "conductor-bridge" {
		return h, fmt.Errorf("%s is not a Conductor Bridge", base)
	}
	return h, nil
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

// getJSON reads u with the API token (every read but /health needs it).
func getJSON(ctx context.Context, u, token string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, e.Error)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("GET %s: decode: %w", u, err)
	}
	return nil
}

// apiWorkspace is a workspace as GET /api/workspaces lists it.
type apiWorkspace struct {
	ID            string       `json:"id"`
	Name          string       `json:"name"`
	Branch        string       `json:"branch"`
	Directory     string       `json:"directory"`
	PID           int          `json:"pid"`
	Active        bool         `json:"active"`
	Repo          string       `json:"repo"`
	Status        string       `json:"status"`
	Reason        string       `json:"reason,omitempty"`
	StatusSince   time.Time    `json:"status_since"`
	SessionID     string       `json:"session_id"`
	Source        string       `json:"source"`
	LastEventID   int64        `json:"last_event_id"`
	Paired        bool         `json:"paired"`
	LastHookAt    time.Time    `json:"last_hook_at"`
	LastHookEvent string       `json:"last_hook_event"`
	DisplayName   string       `json:"display_name,omitempty"`
	Browser       bool         `json:"browser,omitempty"` // its gstack browse server is followed
	Sessions      []apiSession `json:"sessions,omitempty"`
}

func listWorkspaces(ctx context.Context, base, token string) ([]apiWorkspace, error) {
	var out struct {
		Workspaces []apiWorkspace `json:"workspaces"`
	}
	err := getJSON(ctx, base+"/api/workspaces", token, &out)
	return out.Workspaces, err
}

func streamURL(base, id string, after int64) string {
	u := base + "/workspace/" + url.PathEscape(id) + "/session/stream"
	if after > 0 {
		u += fmt.Sprintf("?after=%d", after)
	}
	return u
}

// useRunning points c at the bridge that runs on c's state dir, as its
// bridge.json says, unless --addr was given: a bridge started on another
// port is found by every client command, as hooks and doctor find it.
func (c *config) useRunning(fs *flag.FlagSet) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "addr" })
	if given {
		return
	}
	if ri, err := readRunFile(c.StateDir); err == nil && ri.Addr != "" && checkLoopback(ri.Addr) == nil {
		c.Addr = ri.Addr
	}
}

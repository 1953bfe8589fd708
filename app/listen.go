package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/activation"
	"conductorbridge/bridge/localsock"
	"conductorbridge/bridge/peer"
)

// takeOrListen returns the bridge's TCP listener: the one the login item's
// manager (launchd, systemd) holds for it and hands over, else one bound
// to addr. manager names the one that handed it over ("" if none).
func takeOrListen(ctx context.Context, addr string) (ln net.Listener, manager string, err error) {
	ln, manager, err = activation.Listener()
	switch {
	case errors.Is(err, activation.ErrNone):
		ln, err = listen(ctx, addr)
		return ln, "", err
	case err != nil:
		return nil, "", fmt.Errorf("the login item's socket: %w (reinstall it: conductor-bridge service uninstall, then install)", err)
	}
	if tcp, _ := ln.Addr().(*net.TCPAddr); tcp == nil || !tcp.IP.IsLoopback() {
		ln.Close()
		return nil, "", fmt.Errorf("the socket %s handed over listens on %v, not on loopback: refusing to serve there (reinstall the login item: conductor-bridge service uninstall, then install)", manager, ln.Addr())
	}
	return ln, manager, nil
}

// listenerUID returns the uid that owns the socket listening on addr: it
// connects, and asks the kernel's socket table who holds the other end of
// that connection (bridge/peer), which is the listener's owner.
func listenerUID(ctx context.Context, addr string) (int, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return -1, err
	}
	defer c.Close()
	return peer.ListenerUID(ctx, c, nil)
}

// tcpHealth asks what answers on addr, with no credential: only to name
// it in a message, once listenerUID said the listener is the user's.
func tcpHealth(ctx context.Context, addr string) (health, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return askHealth(ctx, addr)
}

// askHealth asks for /health on addr, waiting as long as ctx allows.
func askHealth(ctx context.Context, addr string) (health, error) {
	var h health
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/health", nil)
	if err != nil {
		return h, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&h); err != nil {
		return h, err
	}
	if h.Service != "conductor-bridge" {
		return h, fmt.Errorf("%s is not a Conductor Bridge", addr)
	}
	return h, nil
}

// listenLocal makes the bridge's socket file, for the CLI and the hooks.
// Without it the bridge still serves browsers, and says why the CLI and
// the hooks cannot reach it.
func listenLocal(stateDir string, log zerolog.Logger) *localsock.Listener {
	path, short := localsock.Path(stateDir)
	sock, err := localsock.Listen(path)
	if err != nil {
		log.Error().Err(err).Msg("no local socket: the CLI and hooks cannot reach this bridge")
		return nil
	}
	if short {
		log.Info().Str("socket", path).Int("max", localsock.MaxPath()).
			Msg("the state folder's path is too long for a socket; the local socket is in a per-user folder instead")
	}
	return sock
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/api"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/stream"
)

// gstackOrigin is gstack's pinned Chrome extension, allowed by default.
const gstackOrigin = "chrome-extension://dgbkdbjebeiblbajiilljmhjdpmiglep"

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	headless := fs.Bool("headless", false, "run without the menu-bar icon")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	_ = headless // the tray lands in a later release: every run is headless for now
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	log, logFile, err := newLogger(c.LogDir, c.LogLevel, stderr)
	if err != nil {
		return err
	}
	defer logFile.Close()

	ln, err := listen(ctx, c.Addr)
	if err != nil {
		log.Error().Err(err).Msg("cannot listen")
		return err
	}
	b, err := startBridge(ctx, c, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer b.close()

	srv := &http.Server{
		Handler:           b.api.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	b.api.Port = ln.Addr().(*net.TCPAddr).Port
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info().Str("addr", ln.Addr().String()).Str("version", version()).
		Str("projects", c.ClaudeProjects).Str("state", c.StateDir).Msg("Conductor Bridge listening (headless)")
	fmt.Fprintf(stderr, "Conductor Bridge %s listening on http://%s (headless)\n", version(), ln.Addr())

	select {
	case <-ctx.Done():
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	}
	shut, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	log.Info().Msg("Conductor Bridge stopped")
	return nil
}

// bridge is the running engine and the API in front of it.
type bridge struct {
	engine *engine.Engine
	hub    *stream.Hub
	api    *api.Server
	done   chan struct{}
}

func startBridge(ctx context.Context, c config, log zerolog.Logger) (*bridge, error) {
	reg := discover.NewRegistry(filepath.Join(c.StateDir, "registered.json"))
	if err := reg.Load(); err != nil {
		// Keep running without registrations rather than refuse to start;
		// the file is left as it is for the user to look at.
		log.Error().Err(err).Msg("registered workspaces unreadable; ignoring them")
	}
	scanner := &discover.Scanner{
		ConductorDB:    c.ConductorDB,
		ConductorRoot:  c.ConductorRoot,
		ClaudeProjects: c.ClaudeProjects,
		Registry:       reg,
		Log:            func(msg string) { log.Warn().Msg(msg) },
	}
	hub := stream.NewHub(filepath.Join(c.StateDir, "streams"), 0)
	eng := engine.New(engine.Config{Scanner: scanner, Hub: hub, Log: log, ClaudeProjects: c.ClaudeProjects})
	b := &bridge{engine: eng, hub: hub, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		if err := eng.Run(ctx); err != nil {
			log.Error().Err(err).Msg("engine stopped")
		}
	}()
	b.api = &api.Server{
		Engine: eng, Version: version(), Started: time.Now(),
		Origins: []string{gstackOrigin}, Done: ctx,
	}
	return b, nil
}

func (b *bridge) close() {
	<-b.done
	b.hub.Close()
}

// listen binds addr, and when the port is taken says by whom.
func listen(ctx context.Context, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if h, herr := probeHealth(ctx, "http://"+addr); herr == nil {
		return nil, fmt.Errorf("port in use: Conductor Bridge %s is already running on %s (stop it, or pass --addr 127.0.0.1:<other port>)", h.Version, addr)
	}
	return nil, fmt.Errorf("port in use: another program is listening on %s; pass --addr 127.0.0.1:<other port>", addr)
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/assets"
	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/api"
	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/browse"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/gcidle"
	"conductorbridge/bridge/hooks"
	"conductorbridge/bridge/httplimit"
	"conductorbridge/bridge/inject"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/peer"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/registrar"
	"conductorbridge/bridge/regular"
	"conductorbridge/bridge/stream"
	usagerep "conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// gstackOrigin is gstack's pinned Chrome extension, allowed by default.
const gstackOrigin = "chrome-extension://dgbkdbjebeiblbajiilljmhjdpmiglep"

// ownExtension is the bridge's own side panel (assets/extension).
const ownExtension = "chrome-extension://" + assets.ExtensionID

// origins lists the extension origins allowed to use the API: gstack's,
// our own side panel and those extension install allowed to use the native
// host, and those --allow-origin adds.
func (c *config) origins() []string {
	out := append([]string{gstackOrigin}, nativeOrigins(c.StateDir)...)
	for _, o := range c.Origins {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	headless := fs.Bool("headless", false, "run without the menu-bar icon")
	ifNotRunning := fs.Bool("if-not-running", false, "exit quietly (and successfully) when a bridge already runs on this state dir: what the login item starts")
	fs.Var(&c.Origins, "allow-origin", "another browser extension origin allowed to use the API, besides gstack's and the bridge's own side panel (repeatable)")
	autoHooks := fs.Bool("auto-hooks", false, "install the message hooks into every Conductor or registered workspace as it is found (writes <workspace>/.claude/settings.local.json)")
	fs.DurationVar(&c.NotifyWindow, "notify-window", 3*time.Second, "notifications that come within this long of the last one shown fold into one summary when it ends")
	cpuProfile := fs.String("cpu-profile", "", "write a Go CPU profile of the whole run to this file when it ends (for `go tool pprof`; bench -cpu-profile uses it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	if err := c.resolve(); err != nil {
		return err
	}
	// Quit in the menu ends ctx like a signal does.
	ctx, quit := context.WithCancel(ctx)
	defer quit()
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	log, logFile, err := newLogger(c.LogDir, c.LogLevel, stderr)
	if err != nil {
		return err
	}
	trouble := &troubleHook{}
	log = log.Hook(trouble)
	defer logFile.Close()
	lock, err := lockState(c.StateDir)
	if errors.Is(err, errRunning) && *ifNotRunning {
		fmt.Fprintln(stderr, "Conductor Bridge is already running; nothing to do")
		return nil // a success: the login item's manager leaves it at that
	}
	if err != nil {
		log.Error().Err(err).Msg("cannot start")
		return err
	}
	defer lock.Close()

	// Before the listener and the engine: the connection cap is sized
	// from the limit, and every watch may take a descriptor.
	if before, after, err := raiseFileLimit(); err != nil {
		log.Warn().Err(err).Msg("descriptor limit not raised")
	} else if after > before {
		log.Debug().Uint64("from", before).Uint64("to", after).Msg("descriptor limit raised")
	}
	ln, manager, err := takeOrListen(ctx, c.Addr)
	if err != nil {
		if *ifNotRunning && errors.Is(err, errBridgeOnPort) {
			// Another bridge (another state dir, or the demo) has the
			// port: still a success, or the login item's manager would
			// start this one again every few seconds.
			fmt.Fprintln(stderr, err)
			return nil
		}
		log.Error().Err(err).Msg("cannot listen")
		return err
	}
	// From here on, c.Addr is where the bridge really listens (--addr may
	// have asked for port 0): the links the menu makes point there.
	c.Addr = ln.Addr().String()
	var spec hooks.Spec
	if *autoHooks {
		if spec, err = hookSpec(c); err != nil {
			ln.Close()
			return fmt.Errorf("auto hooks: %w", err)
		}
	}
	b, err := startBridge(ctx, c, log)
	if err != nil {
		ln.Close()
		return err
	}
	if *autoHooks {
		go installHooksAsFound(ctx, b.engine, c.agents, spec, log)
	}

	limits := serverLimits()
	srv := limits.Server(b.api.Handler())
	srv.BaseContext = func(net.Listener) context.Context { return ctx }
	srv.ConnContext = b.api.ConnContext // who is at the other end, once per connection
	b.api.Port = ln.Addr().(*net.TCPAddr).Port
	if err := writeRunFile(c.StateDir, ln.Addr().String()); err != nil {
		log.Warn().Err(err).Msg("cannot record where the bridge listens; hooks fall back to the default address")
	}
	stop := startShutdown(ctx, quit, func() { b.stop(srv, c.StateDir, log) })
	defer stop.wait()
	defer quit()
	var serveErr error
	go func() {
		// The cap is the user's own: another account's connections are
		// told apart as they are accepted (where the OS says who they are).
		var owner httplimit.Owner
		if peer.Supported {
			owner = b.api.ConnOwner
		}
		if err := srv.Serve(limits.ListenOwn(ln, owner)); !errors.Is(err, http.ErrServerClosed) {
			serveErr = fmt.Errorf("serve: %w", err)
			quit()
		}
	}()
	// The CLI and the hooks come in through the socket file: it has a
	// connection cap of its own, so no one filling the port's locks them out.
	sock := listenLocal(c.StateDir, log)
	if sock != nil {
		go func() {
			if err := srv.Serve(httplimit.Listen(sock, limits.MaxConns)); !errors.Is(err, http.ErrServerClosed) {
				log.Error().Err(err).Msg("local socket stopped: the CLI and hooks cannot reach this bridge")
			}
		}()
	}
	mode := "headless"
	why := trayUnavailable(*headless)
	if why == nil {
		mode = "menu bar"
	}
	log.Info().Str("addr", ln.Addr().String()).Str("socket_from", manager).Int("max_conns", limits.MaxConns).Str("version", version()).Str("mode", mode).
		Str("projects", c.ClaudeProjects).Str("state", c.StateDir).Msg("Conductor Bridge listening")
	from := ""
	if manager != "" {
		from = ", on the socket " + manager + " holds for it"
	}
	fmt.Fprintf(stderr, "Conductor Bridge %s listening on http://%s (%s%s)\n", version(), ln.Addr(), mode, from)

	// The menu bar owns the main goroutine until ctx ends (macOS draws its
	// UI on the main thread); headless, this goroutine just waits.
	runMenu(ctx, c, b, quit, stop.onExit, why, trouble, log)
	<-ctx.Done()
	stop.wait()
	return serveErr
}

// serverLimits are the API server's timeouts and connection cap, the cap
// sized from the descriptor limit as it is now (raise it first). A hook
// call may wait for a message for as long as the agent is idle, and
// creating a worktree runs git on a repository of any size: neither has a
// write deadline.
func serverLimits() httplimit.Limits {
	l := httplimit.Defaults(httplimit.MaxConns())
	l.Long = func(r *http.Request) bool {
		return strings.HasPrefix(r.URL.Path, "/hook/") || (r.Method == http.MethodPost && r.URL.Path == "/api/workspaces")
	}
	return l
}

// bridge is the running engine and the API in front of it.
type bridge struct {
	engine  *engine.Engine
	hub     *stream.Hub
	queue   *inject.Queue
	pairing *pairing.Store
	seen    *inject.Seen
	api     *api.Server
	done    chan struct{}
}

// State files under the state dir.
const (
	tokenFile      = "token"           // the API's Bearer token
	hookSecretFile = "hook-secret"     // what hooks present
	runFile        = "bridge.json"     // where the running bridge listens, for hooks and the CLI
	pairingFile    = "pairing.json"    // which workspaces are paired with Chrome
	hooksSeenFile  = "hooks-seen.json" // when each workspace's hooks last called in
)

func startBridge(ctx context.Context, c config, log zerolog.Logger) (*bridge, error) {
	token, err := auth.LoadOrCreate(filepath.Join(c.StateDir, tokenFile))
	if err != nil {
		return nil, fmt.Errorf("api token: %w", err)
	}
	hookSecret, err := auth.LoadOrCreate(filepath.Join(c.StateDir, hookSecretFile))
	if err != nil {
		return nil, fmt.Errorf("hook secret: %w", err)
	}
	queue, err := inject.Open(filepath.Join(c.StateDir, "queue"))
	if err != nil {
		return nil, err
	}
	for _, f := range queue.SetAside {
		log.Error().Str("file", f).Msg("a message queue file was damaged; set aside for you to look at, its workspace starts with an empty queue")
	}
	reg := discover.NewRegistry(filepath.Join(c.StateDir, "registered.json"))
	if err := reg.Load(); err != nil {
		// Keep running without registrations rather than refuse to start;
		// the file is left as it is for the user to look at.
		log.Error().Err(err).Msg("registered workspaces unreadable; ignoring them")
	}
	drivers := c.agents
	scanner := &discover.Scanner{
		ConductorDB:   c.ConductorDB,
		ConductorRoot: c.ConductorRoot,
		Agents:        listAs[discover.Agent](drivers),
		Registry:      reg,
		Log:           func(msg string) { log.Warn().Msg(msg) },
	}
	hub := stream.NewHub(filepath.Join(c.StateDir, "streams"), 0)
	hub.Log = func(msg string) { log.Error().Msg(msg) }
	records := linefile.NewFiles(linefile.DefaultOpenFiles) // session records kept open between reads
	if limit, ok := httplimit.FileLimit(); ok {
		hub.SetOpenJournals(stream.OpenJournalsFor(limit))
		records = linefile.NewFiles(linefile.OpenFilesFor(limit))
	}
	prices, err := price.Load(c.StateDir)
	if err != nil {
		// A broken prices.json must not stop the bridge: the built-in table stands.
		log.Error().Err(err).Msg("your prices.json is unreadable; pricing with the built-in table")
	}
	prices.OnUnknown = func(model string) {
		log.Warn().Str("model", model).Msg("no price for this model: its turns show an unknown cost (add it to prices.json in the state folder)")
	}
	// Each workspace's gstack browse server: its actions join the
	// workspace's stream (bridge/browse). It stops with the bridge.
	browser := &browse.Finder{Log: log}
	context.AfterFunc(ctx, browser.Close)
	// While no agent is at work the runtime's forced collection, every
	// two minutes, is held off (bridge/gcidle); from the catch-up on.
	gov := gcidle.New(os.Getenv)
	eng := engine.New(engine.Config{
		OnIdle:  gov.SetIdle,
		Browse:  browser,
		Prices:  prices,
		Files:   records,
		Scanner: newAgentScanner(scanner, drivers), Hub: hub, Log: log,
		Agents: drivers,
		// A change to Conductor's database (its -wal takes every commit)
		// or a new worktree folder asks for a scan at once.
		RescanOn: []string{c.ConductorDB, c.ConductorDB + "-wal", filepath.Join(c.ConductorRoot, "workspaces")},
		OnUser:   func(ws string, e *event.Event) { confirmInjected(queue, log, ws, e) },
	})
	browser.OnChange = eng.BrowseChanged
	pairs, err := pairing.Open(filepath.Join(c.StateDir, pairingFile))
	if err != nil {
		return nil, err
	}
	if pairs.SetAside != "" {
		log.Error().Str("file", pairs.SetAside).Msg("the pairing state was damaged; set aside for you to look at, nothing is paired now")
	}
	seen := inject.OpenSeen(filepath.Join(c.StateDir, hooksSeenFile))
	b := &bridge{engine: eng, hub: hub, queue: queue, pairing: pairs, seen: seen, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		defer scanner.Close() // its connection to Conductor's database
		if err := eng.Run(ctx); err != nil {
			log.Error().Err(err).Msg("engine stopped")
		}
	}()
	go requeueLost(ctx, eng, queue, log)
	// Each agent whose idle sessions take a message pushed into them
	// (agent.Pushing) has its queued messages delivered, and its route
	// asked before a message is queued.
	var routes []api.Router
	for _, a := range listAs[agent.Pushing](drivers) {
		d := &inject.Delivery{Queue: queue, Engine: eng, Log: log, Pusher: a.NewPusher()}
		go d.Run(ctx)
		routes = append(routes, d)
	}
	b.api = &api.Server{
		Engine: eng, Version: version(), Started: time.Now(),
		Origins: c.origins(), NativeOrigins: nativeOrigins(c.StateDir), Done: ctx,
		Token: token, HookSecret: hookSecret, Queue: queue,
		Hooks:     &inject.Hooks{Queue: queue, Engine: eng, Log: log, Seen: seen, Agents: listAs[inject.HookAgent](drivers)},
		Routes:    routes,
		HooksSeen: seen,
		Registrar: &registrar.Registrar{Registry: reg, Engine: eng, Worktrees: filepath.Join(c.StateDir, "worktrees")},
		Pairing:   pairs, Sessions: &auth.Sessions{Token: token}, Links: &auth.Links{},
		Viewer: assets.Viewer, Favicon: assets.AppIcon, Log: log, StateDir: c.StateDir,
		// The usage page reads the same files the streams do, with the
		// same prices; the cache (the usage command's, in the state
		// folder) parses only what changed between views.
		Usage: usagerep.Source{Formats: listAs[driver.Format](drivers), Prices: prices,
			Cache: usageCache(c.StateDir, func(msg string) { log.Warn().Msg(msg) })},
		// A report may allocate far past what an idle bridge holds: it is
		// made at the collector's default pacing.
		Busy: gov.Busy,
	}
	pairs.Announce = b.api.AnnouncePairing
	lift := limitCatchUpMemory()
	go func() {
		select {
		case <-ctx.Done():
			lift()
		case <-eng.CaughtUp():
			// The first list call must not pay for encoding a thousand
			// workspaces; then the cold start's reading left its buffers
			// as garbage: collect it now, and let the runtime's
			// background scavenger hand the pages back at its own pace.
			// Not debug.FreeOSMemory: returning every free page at once
			// cost about 115 context switches in one second, most of the
			// idle bridge's first minute on a real home (bench: 2.97 →
			// about 1 wake-up/s), and held back 2 MB at most.
			b.api.WarmList()
			runtime.GC()
			lift()
			gov.Start()
		}
	}()
	return b, nil
}

// catchUpMemory is the Go heap's soft limit during the cold start.
const catchUpMemory = 60 << 20

// limitCatchUpMemory sets the soft memory limit for the cold start and
// returns what lifts it. A cold start reads the tails of every workspace
// at once: with the collector's default pacing the heap doubles between
// collections, and that passing peak (78–81 MB at a thousand workspaces,
// 70 with the limit) is what Activity Monitor shows. The limit makes the
// collector work harder for those seconds only; it is lifted once caught
// up, so a large install never pays for it all day. A tighter limit the
// person set (GOMEMLIMIT) is left alone.
func limitCatchUpMemory() (lift func()) {
	prev := debug.SetMemoryLimit(-1)
	if prev <= catchUpMemory {
		return func() {}
	}
	debug.SetMemoryLimit(catchUpMemory)
	return func() { debug.SetMemoryLimit(prev) }
}

// confirmInjected recognises a message the bridge injected when Claude's
// transcript shows it, marks it confirmed, and shows the person's own
// words in the stream instead of the framing around them.
func confirmInjected(q *inject.Queue, log zerolog.Logger, ws string, e *event.Event) {
	id, text, ok := inject.Unframe(e.Content)
	if !ok {
		return
	}
	m, fresh := q.Confirm(ws, id)
	if m.ID == "" {
		// Not a message the bridge handed out here: the record's own
		// words (a forged frame), shown as they are, never as the
		// person's message from Chrome.
		return
	}
	if fresh {
		log.Info().Str("workspace", ws).Str("msg_id", id).Msg("message confirmed in the transcript")
	}
	if m.Text != "" {
		text = m.Text
	}
	e.MessageID = id
	e.Content, e.Truncated = event.Cut(text, event.MaxText)
}

// requeueLost puts back the messages that were handed to a hook before
// this start and never reached the transcript: the bridge (or the hook)
// died in between. It waits until the engine has caught up with what was
// written while the bridge was down, so a message that did arrive is
// confirmed rather than sent twice.
func requeueLost(ctx context.Context, eng *engine.Engine, q *inject.Queue, log zerolog.Logger) {
	start := time.Now()
	select {
	case <-ctx.Done():
		return
	case <-eng.Ready():
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(5 * time.Second): // the followers read what was written while we were down
	}
	for _, ws := range q.Workspaces() {
		if n, err := q.Requeue(ws, start); err != nil || n > 0 {
			log.Info().Err(err).Str("workspace", ws).Int("messages", n).Msg("messages handed out before the restart and never seen: queued again")
		}
	}
}

// stop is the shutdown's steps (shutdown.go), once ctx has ended: the
// server stops taking requests (3 s for those under way), the engine
// stops, the hub closes, the hook record is flushed, and bridge.json goes,
// so that hooks and the CLI stop looking for this bridge.
func (b *bridge) stop(srv *http.Server, stateDir string, log zerolog.Logger) {
	shut, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	<-b.done
	if err := b.hub.Close(); err != nil {
		log.Warn().Err(err).Msg("closing the journals")
	}
	if err := b.seen.Flush(); err != nil {
		log.Warn().Err(err).Msg("saving the hook record")
	}
	os.Remove(filepath.Join(stateDir, runFile))
	log.Info().Msg("Conductor Bridge stopped")
}

// errBridgeOnPort: the port is taken by a Conductor Bridge.
var errBridgeOnPort = errors.New("port in use")

// listen binds addr, and when the port is taken says by whom. Only a
// listener of the user's own that answers as a bridge counts as "a bridge
// already running": anyone may listen on a free port and say so.
func listen(ctx context.Context, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	uid, uerr := listenerUID(ctx, addr)
	if uerr == nil && uid != os.Getuid() {
		return nil, fmt.Errorf("port in use: another user of this machine (uid %d) is listening on %s; pass --addr 127.0.0.1:<other port>, "+
			"and install the login item (conductor-bridge service install) so the port is held for you", uid, addr)
	}
	if uerr != nil {
		return nil, fmt.Errorf("port in use: another program is listening on %s; pass --addr 127.0.0.1:<other port>", addr)
	}
	if h, herr := tcpHealth(ctx, addr); herr == nil {
		return nil, fmt.Errorf("%w: Conductor Bridge %s is already running on %s (stop it, or pass --addr 127.0.0.1:<other port>)", errBridgeOnPort, h.Version, addr)
	}
	return nil, fmt.Errorf("port in use: another program is listening on %s; pass --addr 127.0.0.1:<other port>", addr)
}

// runInfo says where a running bridge listens; hooks and the CLI read it.
type runInfo struct {
	Addr    string `json:"addr"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
}

func writeRunFile(stateDir, addr string) error {
	b, _ := json.Marshal(runInfo{Addr: addr, PID: os.Getpid(), Version: version()})
	tmp := filepath.Join(stateDir, runFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(stateDir, runFile))
}

// readRunFile returns the address of the bridge running on stateDir, if any.
func readRunFile(stateDir string) (runInfo, error) {
	var ri runInfo
	b, err := regular.ReadFile(filepath.Join(stateDir, runFile))
	if err != nil {
		return ri, err
	}
	return ri, json.Unmarshal(b, &ri)
}

// installHooksAsFound installs the message hooks into each Conductor or
// registered workspace the first time the engine lists it (the
// --auto-hooks setting). An agent's plain project folders (agentFolder:
// any folder claude ever ran in, the home folder included) are left to
// `hooks install`.
func installHooksAsFound(ctx context.Context, eng *engine.Engine, drivers []agent.Agent, spec hooks.Spec, log zerolog.Logger) {
	changes := eng.Changes()
	done := map[string]bool{}
	select {
	case <-ctx.Done():
		return
	case <-eng.Ready():
	}
	for {
		for _, ws := range eng.Workspaces() {
			if done[ws.Directory] || agentFolder(drivers, ws.Source) {
				continue
			}
			done[ws.Directory] = true
			changed, err := hooks.Install(settingsFile(ws.Directory), spec)
			switch {
			case err != nil:
				log.Warn().Err(err).Str("workspace", ws.ID).Msg("auto hooks: not installed")
			case changed:
				log.Info().Str("workspace", ws.ID).Str("dir", ws.Directory).Msg("auto hooks: installed")
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-changes:
		}
	}
}

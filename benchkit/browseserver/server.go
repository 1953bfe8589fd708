// Package browseserver is a stand-in for gstack's browse server (`$B`,
// the daemon that drives Chrome for an agent): the browse source
// `conductor-bridge bench` drives, so it ships with the bench, and the
// tests' double, as gstack is not published where this project's CI can
// install it. (Not to be mixed up with testkit/browsertest, which starts a
// real Chromium; testkit/browsecli is the `$B` CLI that talks to it.)
//
// It is written from gstack's source, github.com/garrytan/gstack at
// commit 85fd9db554ae4aaaa6d356d2daf873121ee85bdd, and speaks its wire:
//   - browse/src/server.ts start(): binds 127.0.0.1 on a free port, then
//     writes <root>/.gstack/browse.json (0600, JSON.stringify(state, null,
//     2), through a per-process temporary file renamed into place) with
//     pid, port, token (a random UUID), startedAt, serverPath, mode; the
//     folder is made 0700 (file-permissions.ts mkdirSecure). Shutting
//     down removes the file.
//   - validateAuth: the Authorization header compared, in constant time,
//     with "Bearer <token>"; 401 {"error":"Unauthorized"} otherwise.
//   - GET /health: open, 200 {"status":"healthy","mode","uptime","tabs",
//     "terminalPort"}, never a token; "unhealthy" in place of "healthy"
//     (still 200) while the active page does not evaluate within 2 s
//     (browser-manager.ts isHealthy: a JS dialog open, a page hung),
//     which SetHealthy(false) stands in for.
//   - GET /activity/stream?after=N (auth): activity.ts getActivityAfter —
//     after 0 replays every kept entry; an N older than the oldest kept
//     sends "gap" {gapFrom: N+1, availableFrom: oldest} and then every kept
//     entry; otherwise the entries after N — then each new entry, as
//     sse-helpers.ts frames it: "event: <name>\ndata: <JSON>\n\n", with
//     ": heartbeat\n\n" every 15 s; Content-Type text/event-stream.
//   - GET /activity/history?limit=N (auth, default 50): {"entries",
//     "totalAdded","subscribers"}.
//   - emitActivity: ids from 1 in each run, a ring of 1000 entries
//     (buffers.ts CircularBuffer), args redacted by filterArgs, result cut
//     at 200 characters and "..." added.
//   - POST /command (auth) {"command","args"}: command_start, then
//     command_end with status ok and the result, or status error and the
//     error, as handleCommandInternal emits them. Its commands are
//     stand-ins: goto, click, text, fill, type, wait, fail.
//
// What it leaves out: the SSE session cookie (EventSource's way in; the
// bridge sends the header), scoped tokens, tunnels and the browser itself.
package browseserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Capacity is how many entries the server keeps (activity.ts BUFFER_CAPACITY).
const Capacity = 1000

// Entry is gstack's ActivityEntry, fields in the order its JSON has them.
type Entry struct {
	Type      string   `json:"type"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	Duration  *int64   `json:"duration,omitempty"`
	Status    string   `json:"status,omitempty"`
	Error     string   `json:"error,omitempty"`
	Result    string   `json:"result,omitempty"`
	Tabs      int      `json:"tabs,omitempty"`
	Mode      string   `json:"mode,omitempty"`
	ClientID  string   `json:"clientId,omitempty"`
	ID        int64    `json:"id"`
	Timestamp int64    `json:"timestamp"`
}

// Server is one run of the stand-in browse server for the workspace at Root.
type Server struct {
	Root      string
	Port      int
	PID       int
	Token     string
	StartedAt string
	// Heartbeat is the stream's heartbeat period (gstack: 15 s).
	Heartbeat time.Duration

	srv         *http.Server
	ln          net.Listener
	started     time.Time
	closeHealth bool

	mu      sync.Mutex
	sick    bool  // /health says "unhealthy" (SetHealthy)
	healths int64 // /health requests answered
	ring    []Entry
	next    int64
	total   int64
	subs    map[*sub]struct{}
	page    string
	closed  bool
}

// Options change how a stand-in starts.
type Options struct {
	Port      int           // 0: a free one
	Token     string        // "": a random UUID, as gstack's
	Heartbeat time.Duration // 0: 15 s
	NoState   bool          // don't write the state file (a test writes its own)
	// CloseAfterHealth closes the connection after answering /health
	// (gstack's Bun server keeps it alive): for clients that must not
	// count on keep-alive.
	CloseAfterHealth bool
}

// New starts a run of the browse server for root and writes its state file.
func New(root string, o Options) (*Server, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(o.Port))
	if err != nil {
		return nil, err
	}
	s := &Server{
		Root: root, Port: ln.Addr().(*net.TCPAddr).Port, PID: os.Getpid(), Token: o.Token,
		StartedAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z"), Heartbeat: o.Heartbeat,
		ln: ln, started: time.Now(), next: 1, subs: map[*sub]struct{}{}, page: "about:blank", closeHealth: o.CloseAfterHealth,
	}
	if s.Token == "" {
		s.Token = uuid()
	}
	if s.Heartbeat <= 0 {
		s.Heartbeat = 15 * time.Second
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("GET /activity/stream", s.auth(s.stream))
	mux.HandleFunc("GET /activity/history", s.auth(s.history))
	mux.HandleFunc("POST /command", s.auth(s.command))
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(ln)
	if !o.NoState {
		if err := s.WriteState(); err != nil {
			s.Kill()
			return nil, err
		}
	}
	return s, nil
}

// StatePath is where gstack keeps the state of root's browse server.
func StatePath(root string) string { return filepath.Join(root, ".gstack", "browse.json") }

// WriteState writes the state file as gstack does: the folder 0700, the
// file 0600 through a temporary file of this process renamed into place.
func (s *Server) WriteState() error {
	state := map[string]any{ // JSON.stringify keeps insertion order; Go sorts keys: the order is not part of the wire
		"pid": s.PID, "port": s.Port, "token": s.Token, "startedAt": s.StartedAt,
		"serverPath": "/stand-in/browse/src/server.ts", "mode": "launched",
	}
	b, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	return WriteStateFile(s.Root, b)
}

// WriteStateFile writes b as root's state file, the way gstack does.
func WriteStateFile(root string, b []byte) error {
	dir := filepath.Join(root, ".gstack")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var rnd [4]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, "browse.json.tmp."+strconv.Itoa(os.Getpid())+"."+hex.EncodeToString(rnd[:]))
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, StatePath(root))
}

// Close shuts the server down as gstack's shutdown does: its streams end
// and its state file is removed.
func (s *Server) Close() {
	if s.Kill() {
		os.Remove(StatePath(s.Root))
	}
}

// Kill stops serving at once and leaves the state file behind, as a
// crashed or killed server does. It reports whether it was running.
func (s *Server) Kill() bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.closed = true
	for sb := range s.subs {
		sb.end()
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx) // the streams have ended: nothing to wait for
	s.srv.Close()
	return true
}

// Emit adds an entry as emitActivity does (id, timestamp, redacted args,
// result cut) and hands it to every stream. It returns the entry kept.
func (s *Server) Emit(e Entry) Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.ID, e.Timestamp = s.next, time.Now().UnixMilli()
	s.next++
	if e.Args != nil {
		e.Args = filterArgs(e.Command, e.Args)
	}
	e.Result = truncateResult(e.Result)
	if len(s.ring) == Capacity {
		copy(s.ring, s.ring[1:])
		s.ring = s.ring[:Capacity-1]
	}
	s.ring = append(s.ring, e)
	s.total++
	for sb := range s.subs {
		sb.push("activity", e)
	}
	return e
}

// Command runs a command the way POST /command does, for tests that
// drive the browser without HTTP: command_start, then command_end.
func (s *Server) Command(command string, args ...string) (string, error) {
	s.mu.Lock()
	page := s.page
	s.mu.Unlock()
	s.Emit(Entry{Type: "command_start", Command: command, Args: args, URL: page, Tabs: 1, Mode: "launched"})
	began := time.Now()
	result, err := s.run(command, args)
	d := time.Since(began).Milliseconds()
	s.mu.Lock()
	page = s.page
	s.mu.Unlock()
	end := Entry{Type: "command_end", Command: command, Args: args, URL: page, Duration: &d, Tabs: 1, Mode: "launched"}
	if err != nil {
		end.Status, end.Error = "error", err.Error()
	} else {
		end.Status, end.Result = "ok", result
	}
	s.Emit(end)
	return result, err
}

// run is the stand-in's browser: a page URL and canned answers.
func (s *Server) run(command string, args []string) (string, error) {
	arg := ""
	if len(args) > 0 {
		arg = args[0]
	}
	switch command {
	case "goto":
		if arg == "" {
			return "", fmt.Errorf("Usage: browse goto <url>")
		}
		s.mu.Lock()
		s.page = arg
		s.mu.Unlock()
		return "Navigated to " + arg + " (200)", nil // write-commands.ts
	case "click":
		return "Clicked " + arg, nil
	case "fill", "type":
		return "Filled " + arg, nil
	case "text":
		return "Example Domain\nThis domain is for use in illustrative examples in documents.", nil
	case "wait":
		return "Waited for " + arg, nil
	case "fail":
		return "", fmt.Errorf("Element not found: %s", arg)
	}
	return "", fmt.Errorf("Unknown command: %s", command)
}

// Entries returns the kept entries, oldest first.
func (s *Server) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.ring...)
}

// Subscribers is how many streams are open (history's "subscribers").
func (s *Server) Subscribers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

// uuid is crypto.randomUUID's form: version 4, variant 10.
func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (s *Server) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got, want := []byte(r.Header.Get("Authorization")), []byte("Bearer "+s.Token)
		if len(got) != len(want) || subtle.ConstantTimeCompare(got, want) != 1 {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			return
		}
		next(w, r)
	}
}

// SetHealthy sets what /health says: "healthy", or as gstack does while
// its active page does not answer (a JS dialog is open), "unhealthy".
func (s *Server) SetHealthy(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sick = !ok
}

// HealthChecks is how many /health requests the server has answered.
func (s *Server) HealthChecks() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.healths
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if s.closeHealth {
		w.Header().Set("Connection", "close")
	}
	s.mu.Lock()
	s.healths++
	status := "healthy"
	if s.sick {
		status = "unhealthy"
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"status": status, "mode": "launched", "uptime": int64(time.Since(s.started).Seconds()),
		"tabs": 1, "terminalPort": nil,
	})
}

func (s *Server) history(w http.ResponseWriter, r *http.Request) {
	limit := parseInt(r.URL.Query().Get("limit"), 50)
	s.mu.Lock()
	entries := s.ring
	if limit >= 0 && limit < int64(len(entries)) {
		entries = entries[int64(len(entries))-limit:]
	}
	body := map[string]any{"entries": append([]Entry{}, entries...), "totalAdded": s.total, "subscribers": len(s.subs)}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) command(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad JSON"})
		return
	}
	result, err := s.Command(body.Command, body.Args...)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprint(w, result)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// parseInt reads a number as JavaScript's parseInt does enough for these
// parameters: leading digits, else def.
func parseInt(s string, def int64) int64 {
	n, i := int64(0), 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int64(s[i]-'0')
	}
	if i == 0 {
		return def
	}
	return n
}

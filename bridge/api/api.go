// Package api is the bridge's HTTP surface on loopback: health, the
// workspace list and each workspace's session stream (DESIGN.md, "The API").
package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/inject"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/stream"
)

// Engine is what the API needs from the engine.
type Engine interface {
	Workspaces() []engine.Info
	Workspace(id string) (engine.Info, bool)
	Topic(id string) (*stream.Topic, bool)
	// Ready is closed once the first scan has found every workspace.
	Ready() <-chan struct{}
	// CaughtUp is closed once every workspace the first scan found has
	// read its sessions once: everything is served.
	CaughtUp() <-chan struct{}
}

// Server serves the API.
type Server struct {
	Engine  Engine
	Version string
	Started time.Time
	// Port is the port the bridge listens on; the Host check accepts only
	// 127.0.0.1:Port and localhost:Port.
	Port int
	// Origins are the browser origins allowed to call the API (extension
	// origins); any other Origin is refused.
	Origins []string
	// NativeOrigins are those of Origins whose extension signs in through
	// Chrome native messaging (the bridge's own side panel): its credential
	// comes from the native host, which checks who listens on the port, so
	// /extension-token refuses them rather than trust an Origin header.
	NativeOrigins []string
	// Done ends open streams when the bridge shuts down.
	Done context.Context
	// SSE tunes the streams (heartbeat, write timeout).
	SSE stream.SSE
	// PeerUID finds the uid at a connection's other end (nil: peer.UID).
	PeerUID func(local, remote net.Addr) (uid int, err error)

	Token      *auth.Secret  // Bearer token for every read and state change
	HookSecret *auth.Secret  // what hook calls present instead
	Queue      *inject.Queue // messages for agents
	Hooks      Hooks
	// Routes say, for each agent whose idle sessions take messages
	// pushed (inject.Delivery), why a message cannot reach a session now;
	// an agent with none takes them by its hooks in every state.
	Routes    []Router
	Registrar Registrar
	HooksSeen *inject.Seen   // when each workspace's hooks last called in
	Pairing   *pairing.Store // which workspaces a browser sees
	Sessions  *auth.Sessions // browser session cookies and page keys
	Links     *auth.Links    // one-time viewer links
	// Viewer holds the built-in viewer's files (index.html at its root,
	// usage.html the usage page).
	Viewer fs.FS
	// Usage reads the usage history for GET /api/usage (nil: none).
	Usage UsageHistory
	// Busy, if set, is told of a usage report while it is made (the
	// returned func ends it): work that may allocate much on a bridge
	// that is otherwise idle (bridge/gcidle's Governor.Busy).
	Busy func() (done func())
	// Favicon is the icon a browser asks for at /favicon.ico (PNG; nil: 404).
	Favicon []byte
	// StateDir is the bridge's state folder, which GET /health tells the
	// user's own programs (the CLI of another folder says to pass it).
	StateDir string
	Log      zerolog.Logger

	viewers viewers   // open browser streams, for Viewing
	list    listCache // GET /api/workspaces, encoded workspace by workspace
}

// Handler returns the routed, guarded handler. Each route names who may
// call it (see access.go): open, read, write, local, or the hook secret.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	// Open: nothing here reveals a workspace or a secret.
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("GET /{$}", s.viewerFile)
	mux.HandleFunc("GET /viewer/{file...}", s.viewerFile)
	mux.HandleFunc("GET /usage", s.usagePage)
	mux.HandleFunc("GET /favicon.ico", s.favicon)
	mux.HandleFunc("GET /open/{code}", s.openLink)
	mux.HandleFunc("POST /extension-token", s.extensionToken)

	// Reads.
	mux.HandleFunc("GET /api/workspaces", s.read(s.workspaces))
	mux.HandleFunc("GET /api/workspaces/{id}", s.read(s.workspace))
	mux.HandleFunc("GET /api/settings", s.read(s.settings))
	mux.HandleFunc("GET /api/session", s.pageSession) // its own checks: it answers the page signed out too
	mux.HandleFunc("GET /workspace/{id}/session/stream", s.read(s.stream))
	mux.HandleFunc("GET /workspace/{id}/session/messages", s.read(s.listMessages))
	mux.HandleFunc("GET /session/stream", s.read(s.followStream))
	mux.HandleFunc("GET /api/usage", s.read(s.usageReport))
	mux.HandleFunc("GET /api/browser-pairing", s.read(s.browserPairing))

	// State changes: the token or a page key, JSON bodies only.
	mux.HandleFunc("POST /sse-session", s.sseSession)
	mux.HandleFunc("POST /api/session", s.resumeSession)
	mux.HandleFunc("POST /workspace/{id}/session/messages", s.write(s.postMessage))
	mux.HandleFunc("DELETE /workspace/{id}/session/messages/{mid}", s.write(s.deleteMessage))
	if s.Pairing != nil {
		// The extension's token, the one workspace driving the browser,
		// and only while nothing is paired: see browse.go.
		mux.HandleFunc("POST /api/browser-pairing", s.pairBrowser)
	}

	// Local control: the token, never from a browser.
	if s.Pairing != nil {
		mux.HandleFunc("POST /api/workspaces/{id}/pair", s.local(s.setPaired(true)))
		mux.HandleFunc("POST /api/workspaces/{id}/unpair", s.local(s.setPaired(false)))
	}
	mux.HandleFunc("PUT /api/settings", s.local(s.putSettings))
	mux.HandleFunc("POST /api/workspaces", s.local(s.registerWorkspace))
	mux.HandleFunc("DELETE /api/workspaces/{id}", s.local(s.unregisterWorkspace))
	mux.HandleFunc("POST /api/viewer-link", s.local(s.viewerLink))
	mux.HandleFunc("POST /api/token/rotate", s.local(s.rotateToken))
	mux.HandleFunc("GET /api/memory", s.local(s.memory))

	mux.HandleFunc("POST /hook/{event}", authorized(s.HookSecret, s.hook))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return s.guard(s.afterFirstScan(mux))
}

// afterFirstScan holds requests until the engine has done its first scan,
// so a client reconnecting the instant the bridge restarts is answered
// from the full workspace list rather than told its workspace is unknown
// (EventSource gives up for good on a 404).
func (s *Server) afterFirstScan(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" && r.URL.Path != "/" && r.URL.Path != "/usage" && r.URL.Path != "/favicon.ico" && !isStatic(r.URL.Path) {
			select {
			case <-s.Engine.Ready():
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Second):
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	// Counts only what the asker may see: a browser learns nothing of
	// unpaired workspaces, not even how many there are.
	sees := s.visibility(r)
	count, active := 0, 0
	for _, ws := range s.Engine.Workspaces() {
		if !sees(ws.ID) {
			continue
		}
		count++
		if ws.Active {
			active++
		}
	}
	out := map[string]any{
		"status":            "healthy",
		"service":           "conductor-bridge",
		"version":           s.Version,
		"uptime":            int64(time.Since(s.Started).Seconds()),
		"workspaces":        count,
		"active_workspaces": active,
		// Whether the start's reading is over: a tool that waits for the
		// bridge asks this, not the workspace list, which is far dearer.
		"caught_up": closed(s.Engine.CaughtUp()),
	}
	if r.URL.Query().Has("state_dir") && s.StateDir != "" && s.ownProgram(r) {
		// Asked for (it costs a peer look-up), so the CLI of another
		// state folder can say which one to pass (a demo's); where the
		// folder is tells a browser page, or another user, nothing they
		// should have.
		out["state_dir"] = s.StateDir
	}
	writeJSON(w, http.StatusOK, out)
}

// ownProgram reports whether r comes from a program of the bridge's own
// user that is not a browser: through the socket file, or on loopback from
// a process the OS says is the user's, with no browser's headers.
func (s *Server) ownProgram(r *http.Request) bool {
	if viaSocket(r) {
		return true
	}
	if fromBrowser(r) || foreignConn(r) {
		return false
	}
	uid, err := s.peerUID(r)
	return err == nil && uid == os.Getuid()
}

// favicon answers a browser's /favicon.ico with the app's icon.
func (s *Server) favicon(w http.ResponseWriter, r *http.Request) {
	if s.Favicon == nil {
		writeError(w, http.StatusNotFound, "no such file: /favicon.ico")
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "max-age=86400")
	w.Write(s.Favicon)
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Workspace is a workspace on the wire (GET /api/workspaces): the seed's
// fields (id, name, branch, directory, pid, active) first, then what a
// client needs to show and follow it. The CLI decodes the list into it too.
type Workspace struct {
	WorkspaceHead
	Sessions []Session `json:"sessions"`
}

// WorkspaceHead is everything of a workspace on the wire but its
// sessions: comparable, so the list cache can tell an unchanged workspace
// at a glance. encoding/json writes an embedded struct's fields in place,
// so the wire's field order is as before.
type WorkspaceHead struct {
	ID              string    `json:"id"`
	Name            string    `json:"name"`
	Branch          string    `json:"branch"`
	Directory       string    `json:"directory"`
	PID             int       `json:"pid"`
	Active          bool      `json:"active"`
	Repo            string    `json:"repo"`
	Status          string    `json:"status"`
	StatusSince     time.Time `json:"status_since,omitzero"`
	SessionID       string    `json:"session_id"`
	Transcript      string    `json:"transcript,omitempty"`
	Source          string    `json:"source"`
	ConductorStatus string    `json:"conductor_status,omitempty"`
	LastEventID     int64     `json:"last_event_id"`
	Stream          string    `json:"stream"`
	SkippedLines    int       `json:"skipped_lines"`
	Paired          bool      `json:"paired"`
	PairedAt        time.Time `json:"paired_at,omitzero"`
	LastHookAt      time.Time `json:"last_hook_at,omitzero"`
	LastHookEvent   string    `json:"last_hook_event,omitempty"`
	// Browser: the workspace's gstack browse server is followed now, its
	// actions in the stream as browse events.
	Browser bool `json:"browser"`

	// Added with sessions: the name a person sees, Conductor's workflow
	// group (never a status), why the workspace needs input, and every
	// agent session (chat tab) of the workspace.
	DisplayName string `json:"display_name"`
	Workflow    string `json:"workflow,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// Session is one agent session on the wire.
type Session struct {
	SessionID          string    `json:"session_id"`
	ConductorSessionID string    `json:"conductor_session_id,omitempty"` // when it differs from session_id
	Agent              string    `json:"agent"`
	AgentLabel         string    `json:"agent_label"` // how a person reads the agent: "Claude", "Cursor"
	Source             string    `json:"source"`      // what it is streamed from: its reader's name, "" if none
	Title              string    `json:"title"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	StatusSince        time.Time `json:"status_since,omitzero"`
	Active             bool      `json:"active"`
	Unread             int       `json:"unread"`
	PID                int       `json:"pid"`
	Model              string    `json:"model,omitempty"`
	Version            string    `json:"version,omitempty"`
	Streamed           bool      `json:"streamed"`
	// MessagesBlocked says why messages cannot reach the session now, ""
	// when they can: the side panel says so before Send.
	MessagesBlocked string    `json:"messages_blocked,omitempty"`
	LastEventID     int64     `json:"last_event_id"`
	LastActivity    time.Time `json:"last_activity,omitzero"`
}

func toJSON(in engine.Info) Workspace { return toJSONInto(in, nil) }

// toJSONInto is toJSON with the sessions appended to sessions[:0]: the
// list reuses one slice for every workspace, and keeps a copy only of
// what it encodes.
func toJSONInto(in engine.Info, sessions []Session) Workspace {
	if sessions == nil {
		sessions = make([]Session, 0, len(in.Sessions))
	}
	j := Workspace{WorkspaceHead: WorkspaceHead{
		ID: in.ID, Name: in.Name, Branch: in.Branch, Directory: in.Directory, PID: in.PID,
		Active: in.Active, Repo: in.Repo, Status: in.Status, StatusSince: in.StatusSince,
		SessionID: in.SessionID, Transcript: in.Transcript, Source: in.Source,
		ConductorStatus: in.ConductorStatus, LastEventID: in.LastEventID,
		Stream:       "/workspace/" + in.ID + "/session/stream",
		SkippedLines: in.Malformed + in.Oversized,
		DisplayName:  cmp.Or(in.DisplayName, in.Name), Workflow: in.Workflow, Reason: in.Reason,
		Browser: in.Browser,
	}, Sessions: sessions[:0]}
	for _, si := range in.Sessions {
		sj := Session{
			SessionID: si.SessionID, Agent: cmp.Or(si.Agent, "claude"), AgentLabel: si.Label, Source: si.Source, Title: si.Title, Status: si.Status,
			Reason: si.Reason, StatusSince: si.StatusSince, Active: si.Active, Unread: si.Unread, PID: si.PID,
			Model: si.Model, Version: si.Version, Streamed: si.Streamed, MessagesBlocked: si.MessagesBlocked,
			LastEventID: si.LastEventID, LastActivity: si.LastActivity,
		}
		if si.ConductorID != si.SessionID {
			sj.ConductorSessionID = si.ConductorID
		}
		j.Sessions = append(j.Sessions, sj)
	}
	return j
}

// withPairing adds the workspace's pairing to its wire form.
func (s *Server) withPairing(in engine.Info) Workspace { return s.withPairingInto(in, nil) }

func (s *Server) withPairingInto(in engine.Info, sessions []Session) Workspace {
	j := toJSONInto(in, sessions)
	if s.Pairing != nil {
		p, ok := s.Pairing.Paired(in.ID)
		j.Paired, j.PairedAt = ok, p.At
	}
	if s.HooksSeen != nil {
		h, _ := s.HooksSeen.Last(in.ID)
		j.LastHookAt, j.LastHookEvent = h.At, h.Event
	}
	return j
}

func (s *Server) workspaces(w http.ResponseWriter, r *http.Request) {
	buf := s.list.buffer()
	defer s.list.done(buf)
	*buf = s.listBody(*buf, s.visibility(r))
	body := *buf
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// listBody appends the workspace list that sees lets through to b,
// encoding only what changed since the cache last saw it.
func (s *Server) listBody(b []byte, sees func(id string) bool) []byte {
	list := s.Engine.Workspaces()
	visible := func(yield func(Workspace) bool) {
		scratch := make([]Session, 0, 8) // body copies what it keeps
		for _, in := range list {
			if !sees(in.ID) {
				continue
			}
			j := s.withPairingInto(in, scratch)
			scratch = j.Sessions[:0]
			if !yield(j) {
				return
			}
		}
	}
	return s.list.body(b, visible, len(list))
}

// WarmList encodes every workspace into the list's cache, so that the
// first GET /api/workspaces after a cold start costs what later ones do
// (at a thousand workspaces encoding the whole list is tens of
// milliseconds). serve calls it once the first scan's workspaces have
// read their sessions; an answer is never stale for it, since each call
// still compares every workspace's wire form with what was encoded.
func (s *Server) WarmList() {
	buf := s.list.buffer()
	*buf = s.listBody(*buf, func(string) bool { return true })
	s.list.done(buf)
}

// lookup finds the workspace a request names, answering 404 itself when
// it does not exist or r may not see it: a browser cannot tell an unpaired
// workspace from one that is not there.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (engine.Info, bool) {
	id := r.PathValue("id")
	in, ok := s.Engine.Workspace(id)
	if !ok || !s.visible(r, id) {
		writeError(w, http.StatusNotFound, "unknown workspace: "+id)
		return engine.Info{}, false
	}
	return in, true
}

func (s *Server) workspace(w http.ResponseWriter, r *http.Request) {
	if in, ok := s.lookup(w, r); ok {
		j := s.withPairing(in)
		// One workspace (the side panel's, every few seconds): what a
		// message would meet now, a pushed session's route included.
		for i, si := range in.Sessions {
			if j.Sessions[i].MessagesBlocked == "" {
				j.Sessions[i].MessagesBlocked = s.undeliverable(si)
			}
		}
		writeJSON(w, http.StatusOK, j)
	}
}

// writeJSON answers v as JSON with code. v is encoded before anything is
// sent: a value that cannot be encoded (a time past the year 9999, an
// infinity) is a 500 that says so, never a 200 with an empty body.
func writeJSON(w http.ResponseWriter, code int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		code = http.StatusInternalServerError
		b.Reset()
		_ = enc.Encode(map[string]string{"error": "cannot encode the answer: " + err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

package api

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/inject"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/stream"
)

// fakeEngine serves fixed workspaces with real topics.
type fakeEngine struct {
	list   []engine.Info
	topics map[string]*stream.Topic
}

func (f *fakeEngine) Workspaces() []engine.Info { return f.list }
func (f *fakeEngine) Workspace(id string) (engine.Info, bool) {
	for _, in := range f.list {
		if in.ID == id {
			return in, true
		}
	}
	return engine.Info{}, false
}
func (f *fakeEngine) Topic(id string) (*stream.Topic, bool) { t, ok := f.topics[id]; return t, ok }
func (f *fakeEngine) CaughtUp() <-chan struct{}             { return f.Ready() }
func (f *fakeEngine) Ready() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

type fakeHooks struct{ calls []string }

// Knows takes the bridge's own hook events, as inject.Hooks with no agents.
func (f *fakeHooks) Knows(event string) bool { return slices.Contains(inject.Events(nil), event) }

func (f *fakeHooks) Handle(_ context.Context, event string, in inject.HookInput) inject.Answer {
	f.calls = append(f.calls, event+":"+in.Cwd)
	return inject.Answer{Stdout: "ok"}
}

// env is a Server over real parts (secrets, queue, pairing, topics) with a
// fake engine: ws1 "tokyo" is paired with Chrome, ws2 "osaka" is not.
type env struct {
	ts      *httptest.Server
	srv     *Server
	token   *auth.Secret
	hook    *auth.Secret
	queue   *inject.Queue
	hooks   *fakeHooks
	pairing *pairing.Store
	topics  map[string]*stream.Topic
	port    string
	logs    *strings.Builder
	dir     string // where the token, hook secret, queue and pairing live
}

const extOrigin = "chrome-extension://good"

// nativeOrigin is allow-listed but signs in through the native host (as
// the bridge's own side panel does): never through /extension-token.
const nativeOrigin = "chrome-extension://native"

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvListening(t, nil)
}

// newEnvListening is newEnv with the server's listener wrapped (nil: as
// is), as app/serve.go wraps it in the connection cap.
func newEnvListening(t testing.TB, wrap func(net.Listener, *Server) net.Listener) *env {
	t.Helper()
	dir := t.TempDir()
	hub := stream.NewHub("", 0)
	t1, _ := hub.Topic("ws1")
	t2, _ := hub.Topic("ws2")
	eng := &fakeEngine{
		list: []engine.Info{
			{Workspace: discover.Workspace{ID: "ws1", Name: "tokyo", Repo: "app", Branch: "main",
				Directory: "/w/tokyo", PID: 42, Source: discover.SourceConductorDB}, Active: true, Status: "working", SessionID: "s1"},
			{Workspace: discover.Workspace{ID: "ws2", Name: "osaka", Repo: "app", Branch: "fix",
				Directory: "/w/osaka", Source: discover.SourceConductorDB}, Status: "idle", SessionID: "s2"},
		},
		topics: map[string]*stream.Topic{"ws1": t1, "ws2": t2},
	}
	token, _ := auth.LoadOrCreate(filepath.Join(dir, "token"))
	hook, _ := auth.LoadOrCreate(filepath.Join(dir, "hook"))
	q, _ := inject.Open(filepath.Join(dir, "queue"))
	pr, _ := pairing.Open(filepath.Join(dir, "pairing.json"))
	pr.Pair("ws1")
	logs := &strings.Builder{}
	hk := &fakeHooks{}
	s := &Server{Engine: eng, Version: "test", Started: time.Now(), Origins: []string{extOrigin, nativeOrigin},
		NativeOrigins: []string{nativeOrigin},
		SSE:           stream.SSE{Heartbeat: 50 * time.Millisecond},
		Token:         token, HookSecret: hook, Queue: q, Hooks: hk,
		Pairing: pr, Sessions: &auth.Sessions{Token: token}, Links: &auth.Links{},
		Viewer: fstest.MapFS{
			"index.html": {Data: []byte("<!doctype html><title>viewer</title>")},
			"render.js":  {Data: []byte("// renderer")},
			"usage.html": {Data: []byte("<!doctype html><title>usage</title>")},
		},
		Usage: fixedUsage{},
		Log:   zerolog.New(logs),
	}
	pr.Announce = s.AnnouncePairing
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ConnContext = s.ConnContext // as app/serve.go: the peer check, once per connection
	if wrap != nil {
		ts.Listener = wrap(ts.Listener, s)
	}
	ts.Start()
	s.Port = ts.Listener.Addr().(*net.TCPAddr).Port
	t.Cleanup(ts.Close)
	return &env{ts: ts, srv: s, token: token, hook: hook, queue: q, hooks: hk, pairing: pr,
		topics: eng.topics, port: strconv.Itoa(s.Port), logs: logs, dir: dir}
}

// req is one request; bearer "" sends none, cookie "" sends none.
type req struct {
	method, path, body, ctype, bearer, host, origin, cookie string
	hdr                                                     map[string]string
}

func (e *env) send(t *testing.T, r req) *http.Response {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	hr, _ := http.NewRequest(r.method, e.ts.URL+r.path, strings.NewReader(r.body))
	if r.ctype != "" {
		hr.Header.Set("Content-Type", r.ctype)
	}
	if r.bearer != "" {
		hr.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	if r.host != "" {
		hr.Host = r.host
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	if r.cookie != "" {
		hr.AddCookie(&http.Cookie{Name: auth.CookieName, Value: r.cookie})
	}
	for k, v := range r.hdr {
		hr.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// do sends r and decodes a JSON answer.
func (e *env) do(t *testing.T, r req) (int, map[string]any) {
	t.Helper()
	resp := e.send(t, r)
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

// ids lists the workspace ids in a /api/workspaces answer.
func ids(body map[string]any) []string {
	var out []string
	list, _ := body["workspaces"].([]any)
	for _, w := range list {
		out = append(out, w.(map[string]any)["id"].(string))
	}
	return out
}

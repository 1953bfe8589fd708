package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/peer"
	"conductorbridge/bridge/stream"
)

// cookieFrom returns the session cookie a response set.
func cookieFrom(t *testing.T, resp *http.Response) *http.Cookie {
	t.Helper()
	for _, c := range resp.Cookies() {
		if c.Name == auth.CookieName {
			return c
		}
	}
	t.Fatalf("no %s cookie set (status %d)", auth.CookieName, resp.StatusCode)
	return nil
}

// browserCookie gets a session cookie the way an extension does.
func (e *env) browserCookie(t *testing.T) string {
	t.Helper()
	resp := e.send(t, req{method: "POST", path: "/sse-session", bearer: e.token.Value(), origin: extOrigin})
	resp.Body.Close()
	return cookieFrom(t, resp).Value
}

func TestReadsNeedACredential(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"/api/workspaces", "/api/workspaces/ws1", "/workspace/ws1/session/stream",
		"/workspace/ws1/session/messages", "/session/stream", "/api/settings", "/api/usage"} {
		if code, _ := e.do(t, req{path: p}); code != 401 {
			t.Errorf("%s without credentials: %d", p, code)
		}
		if code, _ := e.do(t, req{path: p, bearer: strings.Repeat("a", 64)}); code != 401 {
			t.Errorf("%s with a wrong token: %d", p, code)
		}
		if code, _ := e.do(t, req{path: p, cookie: "1999999999.AAAA.forged"}); code != 401 {
			t.Errorf("%s with a forged cookie: %d", p, code)
		}
	}
	if code, body := e.do(t, req{path: "/health"}); code != 200 || strings.Contains(mustJSON(body), e.token.Value()) {
		t.Errorf("health: %d %v", code, body)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestBrowserSeesOnlyPairedWorkspaces(t *testing.T) {
	e := newEnv(t)
	tok := e.token.Value()
	cookie := e.browserCookie(t)
	_, cli := e.do(t, req{path: "/api/workspaces", bearer: tok})
	if got := ids(cli); !slices.Equal(got, []string{"ws1", "ws2"}) {
		t.Errorf("CLI sees %v, want both", got)
	}
	ext := e.srv.Sessions.ExtensionToken()
	browsers := map[string]req{
		"extension with token": {bearer: tok, origin: extOrigin},
		// The extension token is browser-scoped even without browser
		// headers: a local program that forged the Origin to get it is no
		// better off than the extension.
		"extension token, no headers": {bearer: ext},
		"extension with cookie":       {cookie: cookie, origin: extOrigin},
		"viewer with cookie and key":  {cookie: cookie, bearer: e.srv.Sessions.PageKey(cookie), hdr: map[string]string{"Sec-Fetch-Site": "same-origin"}},
	}
	for name, b := range browsers {
		b.path = "/api/workspaces"
		if _, body := e.do(t, b); !slices.Equal(ids(body), []string{"ws1"}) {
			t.Errorf("%s sees %v, want only the paired ws1", name, ids(body))
		}
		// Asked by id, the unpaired one does not exist for a browser.
		for _, p := range []string{"/api/workspaces/ws2", "/workspace/ws2/session/stream", "/workspace/ws2/session/messages"} {
			b.path = p
			if code, _ := e.do(t, b); code != 404 {
				t.Errorf("%s asking %s: %d, want 404", name, p, code)
			}
		}
	}
	// Nor can a browser inject into it, token or not.
	inj := req{method: "POST", path: "/workspace/ws2/session/messages", body: `{"message":"rm -rf"}`,
		ctype: "application/json", bearer: tok, origin: extOrigin}
	if code, _ := e.do(t, inj); code != 404 || len(e.queue.List("ws2")) != 0 {
		t.Errorf("browser injected into an unpaired workspace: %d", code)
	}
	// Health counts only what the asker may see.
	if _, h := e.do(t, req{path: "/health", origin: extOrigin}); h["workspaces"] != 1.0 {
		t.Errorf("health for a browser counts %v workspaces, want 1", h["workspaces"])
	}
	if _, h := e.do(t, req{path: "/health", bearer: tok}); h["workspaces"] != 2.0 {
		t.Errorf("health for the CLI counts %v workspaces, want 2", h["workspaces"])
	}
	// Exposure "all" shows everything.
	e.pairing.SetExposure(pairing.ExposeAll)
	if _, body := e.do(t, req{path: "/api/workspaces", bearer: tok, origin: extOrigin}); len(ids(body)) != 2 {
		t.Errorf("exposure all: %v", ids(body))
	}
}

func TestExtensionTokenOnlyForAllowListedExtensions(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name         string
		origin, host string
		want         int
	}{
		{"allow-listed extension", extOrigin, "", 200},
		{"no origin", "", "", 403},
		{"other extension", "chrome-extension://evil", "", 403},
		{"extension that signs in natively", nativeOrigin, "", 403},
		{"web page", "https://evil.example", "", 403},
		{"bridge's own page", "http://127.0.0.1:" + e.port, "", 403},
		{"dns rebinding", extOrigin, "evil.example:" + e.port, 403},
	}
	for _, tt := range tests {
		code, body := e.do(t, req{method: "POST", path: "/extension-token", origin: tt.origin, host: tt.host})
		if code != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, code, tt.want)
		}
		got, _ := body["token"].(string)
		if got == e.token.Value() {
			t.Errorf("%s: the API token itself was handed out", tt.name)
		}
		if (got == e.srv.Sessions.ExtensionToken()) != (tt.want == 200) {
			t.Errorf("%s: extension token handed out = %v", tt.name, got != "")
		}
	}
}

func TestSessionCookieAttributesAndReadOnly(t *testing.T) {
	e := newEnv(t)
	if code, _ := e.do(t, req{method: "POST", path: "/sse-session", origin: extOrigin}); code != 401 {
		t.Errorf("sse-session without token: %d", code)
	}
	resp := e.send(t, req{method: "POST", path: "/sse-session", bearer: e.token.Value(), origin: extOrigin})
	resp.Body.Close()
	c := cookieFrom(t, resp)
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.MaxAge != 1800 {
		t.Errorf("cookie attributes: %+v", c)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != extOrigin || resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("CORS for the extension: %v", resp.Header)
	}
	// Good for reads …
	if code, _ := e.do(t, req{path: "/api/workspaces", cookie: c.Value, origin: extOrigin}); code != 200 {
		t.Errorf("cookie read: %d", code)
	}
	// … never for a state change, even from the allow-listed origin.
	writes := []req{
		{method: "POST", path: "/workspace/ws1/session/messages", body: `{"message":"hi"}`},
		{method: "POST", path: "/api/workspaces", body: `{"directory":"/tmp"}`},
		{method: "POST", path: "/api/workspaces/ws1/unpair"},
		{method: "POST", path: "/sse-session"},
		{method: "POST", path: "/api/token/rotate"},
	}
	for _, w := range writes {
		w.ctype, w.cookie, w.origin = "application/json", c.Value, extOrigin
		if code, _ := e.do(t, w); code != 401 {
			t.Errorf("cookie on %s %s: %d, want 401", w.method, w.path, code)
		}
	}
	if len(e.queue.List("ws1")) != 0 {
		t.Error("a cookie injected a message")
	}
}

func TestCORSOnlyForAllowListedOrigins(t *testing.T) {
	e := newEnv(t)
	pre := func(origin string) *http.Response {
		return e.send(t, req{method: "OPTIONS", path: "/workspace/ws1/session/messages", origin: origin, hdr: map[string]string{
			"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type",
			"Access-Control-Request-Private-Network": "true"}})
	}
	resp := pre(extOrigin)
	resp.Body.Close()
	h := resp.Header
	if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != extOrigin ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Content-Type") ||
		!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		h.Get("Access-Control-Allow-Private-Network") != "true" {
		t.Errorf("preflight for the extension: %d %v", resp.StatusCode, h)
	}
	for _, o := range []string{"https://evil.example", "http://127.0.0.1:9", "null", "chrome-extension://evil"} {
		resp := pre(o)
		resp.Body.Close()
		if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("preflight for %s: %d %v", o, resp.StatusCode, resp.Header)
		}
		resp = e.send(t, req{path: "/api/workspaces", bearer: e.token.Value(), origin: o})
		resp.Body.Close()
		if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("GET from %s: %d", o, resp.StatusCode)
		}
	}
}

// A page on another site cannot reach the API without an Origin either:
// its <img>, <script> and no-cors fetches are labelled by Sec-Fetch-Site.
func TestRequestsMadeByOtherSitesAreRefused(t *testing.T) {
	e := newEnv(t)
	cookie := e.browserCookie(t)
	for _, site := range []string{"same-site", "cross-site"} {
		for _, mode := range []string{"no-cors", "cors", "navigate"} {
			hdr := map[string]string{"Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode}
			if code, _ := e.do(t, req{path: "/api/workspaces", cookie: cookie, hdr: hdr}); code != 403 {
				t.Errorf("%s %s read: %d, want 403", site, mode, code)
			}
		}
		nav := map[string]string{"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate"}
		if code, _ := e.do(t, req{path: "/", hdr: nav}); code != 200 {
			t.Errorf("%s navigation to the viewer: %d", site, code)
		}
	}
	// The viewer's own requests are same-origin, with its page key.
	same := map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}
	if code, _ := e.do(t, req{path: "/api/workspaces", cookie: cookie, bearer: e.srv.Sessions.PageKey(cookie), hdr: same}); code != 200 {
		t.Errorf("same-origin read: %d", code)
	}
}

// The cookie alone opens nothing but to an allow-listed extension's
// request: a page of the bridge's own origin (the viewer reloaded while
// someone else held the port, and still open) gets it attached by the
// browser, and must show its page key too (issue 24).
func TestCookieAloneOpensNothingToAPageOfTheOrigin(t *testing.T) {
	e := newEnv(t)
	cookie := e.browserCookie(t)
	key := e.srv.Sessions.PageKey(cookie)
	page := map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}
	for _, p := range []string{"/api/workspaces", "/api/workspaces/ws1", "/workspace/ws1/session/stream",
		"/workspace/ws1/session/messages", "/session/stream", "/api/settings", "/api/usage", "/api/session"} {
		for name, r := range map[string]req{
			"a page, cookie only":                 {path: p, cookie: cookie, hdr: page},
			"no headers, cookie only":             {path: p, cookie: cookie},
			"a page, key in the query, no cookie": {path: p + "?pk=" + key, hdr: page},
		} {
			if code, _ := e.do(t, r); code != 401 {
				t.Errorf("%s: %s = %d, want 401", name, p, code)
			}
		}
	}
	// An extension's reads, as Chrome sends them (a GET with host
	// permission: Sec-Fetch-Site none, no Origin; else its Origin), open
	// with the cookie; the person's own address bar, or a service worker
	// passing it on, does not.
	for name, r := range map[string]req{
		"an extension's GET":       {path: "/api/workspaces", cookie: cookie, hdr: map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "cors"}},
		"an extension's Origin":    {path: "/api/workspaces", cookie: cookie, origin: extOrigin},
		"a navigation to the list": {path: "/api/workspaces", cookie: cookie, hdr: map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}},
	} {
		want := 200
		if strings.HasPrefix(name, "a navigation") {
			want = 401
		}
		if code, _ := e.do(t, r); code != want {
			t.Errorf("%s with the cookie: %d, want %d", name, code, want)
		}
	}
	// The viewer's stream carries its key in the query (EventSource sends
	// no header).
	resp := e.send(t, req{path: "/workspace/ws1/session/stream?pk=" + key, cookie: cookie, hdr: page})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the viewer's stream with its key in the query: %d", resp.StatusCode)
	}
}

func TestViewerLinkIsOneTimeAndPageKeyWrites(t *testing.T) {
	e := newEnv(t)
	tok := e.token.Value()
	self := "http://127.0.0.1:" + e.port
	if code, _ := e.do(t, req{method: "POST", path: "/api/viewer-link", bearer: tok, origin: extOrigin}); code != 403 {
		t.Errorf("a browser made a viewer link: %d", code)
	}
	code, body := e.do(t, req{method: "POST", path: "/api/viewer-link", bearer: tok, ctype: "application/json", body: `{"workspace":"ws2"}`})
	if code != 200 || body["paired"] != true {
		t.Fatalf("viewer link: %d %v", code, body)
	}
	if _, ok := e.pairing.Paired("ws2"); !ok {
		t.Error("opening the viewer on ws2 did not pair it")
	}
	link := strings.TrimPrefix(body["url"].(string), e.ts.URL)
	if !strings.HasPrefix(link, "/open/") {
		t.Fatalf("link %q", body["url"])
	}
	nav := map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}
	resp := e.send(t, req{path: link, hdr: nav})
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	to, secret, _ := strings.Cut(loc, "#ps=")
	if resp.StatusCode != 303 || to != "/?ws=ws2" || !strings.HasPrefix(secret, "ps.") {
		t.Fatalf("open: %d %s", resp.StatusCode, loc)
	}
	// What a squatter's page left in this origin is cleared before the
	// secret reaches a page.
	if csd := resp.Header.Get("Clear-Site-Data"); csd != `"cache", "storage"` {
		t.Errorf("Clear-Site-Data: %q", csd)
	}
	cookie := cookieFrom(t, resp).Value
	// The page derives this run's key from the secret and the run's name.
	key := e.srv.Sessions.PageKey(cookie)
	if e.srv.Sessions.PageSecret(cookie) != secret {
		t.Fatalf("the link's secret is not its session's")
	}
	again := e.send(t, req{path: link, hdr: nav})
	again.Body.Close()
	if again.StatusCode != 403 || len(again.Cookies()) != 0 {
		t.Errorf("link used twice: %d, cookies %v", again.StatusCode, again.Cookies())
	}

	// The page keeps its cookie fresh; that call never hands out a key,
	// and needs the page's own.
	same := map[string]string{"Sec-Fetch-Site": "same-origin"}
	code, sess := e.do(t, req{path: "/api/session", cookie: cookie, bearer: key, hdr: same})
	if code != 200 || sess["page_key"] != nil || sess["expires"] == nil {
		t.Fatalf("page session: %d %v", code, sess)
	}
	for name, r := range map[string]req{
		"token, no cookie":         {path: "/api/session", bearer: tok},
		"cookie, no browser label": {path: "/api/session", cookie: cookie},
	} {
		if code, _ := e.do(t, r); code != 401 {
			t.Errorf("%s: /api/session answered %d", name, code)
		}
	}
	// It sends with key + cookie from its own origin.
	msg := req{method: "POST", path: "/workspace/ws2/session/messages", body: `{"message":"check the mobile view"}`,
		ctype: "application/json", bearer: key, cookie: cookie, origin: self}
	if code, body := e.do(t, msg); code != 202 {
		t.Errorf("page key write: %d %v", code, body)
	}
	other, _ := e.srv.Sessions.Mint()
	for name, bad := range map[string]func(r *req){
		"key without cookie":      func(r *req) { r.cookie = "" },
		"key with another cookie": func(r *req) { r.cookie = other },
		"key from the extension":  func(r *req) { r.origin = extOrigin },
		"key altered":             func(r *req) { r.bearer = key + "x" },
	} {
		r := msg
		bad(&r)
		if code, _ := e.do(t, r); code != 401 {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	if n := len(e.queue.List("ws2")); n != 1 {
		t.Errorf("%d messages queued, want 1", n)
	}
}

func TestPairingIsLocalControl(t *testing.T) {
	e := newEnv(t)
	tok := e.token.Value()
	// From a browser, even with the token: refused.
	for _, r := range []req{
		{method: "POST", path: "/api/workspaces/ws2/pair", bearer: tok, origin: extOrigin},
		{method: "POST", path: "/api/workspaces/ws2/pair", bearer: tok, hdr: map[string]string{"Sec-Fetch-Site": "same-origin"}},
		{method: "PUT", path: "/api/settings", bearer: tok, origin: extOrigin, ctype: "application/json", body: `{"exposure":"all"}`},
		{method: "POST", path: "/api/token/rotate", bearer: tok, origin: extOrigin},
		{method: "POST", path: "/api/workspaces", bearer: tok, origin: extOrigin, ctype: "application/json", body: `{"directory":"/w/osaka"}`},
		{method: "DELETE", path: "/api/workspaces/ws2", bearer: tok, origin: extOrigin},
	} {
		if code, _ := e.do(t, r); code != 403 {
			t.Errorf("%s %s from a browser: %d, want 403", r.method, r.path, code)
		}
	}
	// Nor with the extension token, headers or not.
	ext := e.srv.Sessions.ExtensionToken()
	for _, p := range []string{"/api/workspaces/ws2/pair", "/api/token/rotate", "/api/viewer-link"} {
		if code, _ := e.do(t, req{method: "POST", path: p, bearer: ext}); code != 401 {
			t.Errorf("%s with the extension token: %d, want 401", p, code)
		}
	}
	if _, ok := e.pairing.Paired("ws2"); ok || e.pairing.Exposure() != pairing.ExposePaired {
		t.Fatal("a browser changed the pairing")
	}
	if code, body := e.do(t, req{method: "POST", path: "/api/workspaces/ws2/pair", bearer: tok}); code != 200 || body["paired"] != true {
		t.Errorf("pair: %d %v", code, body)
	}
	if code, body := e.do(t, req{method: "POST", path: "/api/workspaces/ws1/unpair", bearer: tok}); code != 200 || body["paired"] != false {
		t.Errorf("unpair: %d %v", code, body)
	}
	if code, _ := e.do(t, req{method: "POST", path: "/api/workspaces/nope/pair", bearer: tok}); code != 404 {
		t.Errorf("pair unknown: %d", code)
	}
	if code, _ := e.do(t, req{method: "PUT", path: "/api/settings", bearer: tok, ctype: "application/json", body: `{"exposure":"some"}`}); code != 400 {
		t.Errorf("bad exposure: %d", code)
	}
	// The change is announced in the workspace's stream.
	items := e.topics["ws1"].History(0)
	if len(items) != 1 || items[0].Type != event.Pairing || items[0].Event().Paired || items[0].Event().Workspace != "ws1" {
		t.Errorf("ws1 stream after unpair: %+v", items)
	}
}

// sse opens a stream and delivers its messages on a channel.
func (e *env) sse(t *testing.T, r req) <-chan stream.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.ts.URL+r.path, nil)
	if r.bearer != "" {
		hr.Header.Set("Authorization", "Bearer "+r.bearer)
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	if r.cookie != "" {
		hr.AddCookie(&http.Cookie{Name: auth.CookieName, Value: r.cookie})
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("stream %s: %d", r.path, resp.StatusCode)
	}
	out := make(chan stream.Message, 100)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		stream.Read(bufio.NewReader(resp.Body), func(m stream.Message) error { out <- m; return nil })
	}()
	return out
}

// until reads messages until one of type typ, failing after a while.
func until(t *testing.T, c <-chan stream.Message, typ string) stream.Message {
	t.Helper()
	for {
		select {
		case m, ok := <-c:
			if !ok {
				t.Fatalf("stream ended before a %s event", typ)
			}
			if m.Event == typ {
				return m
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("no %s event", typ)
		}
	}
}

func ended(t *testing.T, c <-chan stream.Message) bool {
	t.Helper()
	for {
		select {
		case _, ok := <-c:
			if !ok {
				return true
			}
		case <-time.After(3 * time.Second):
			return false
		}
	}
}

func TestUnpairingEndsBrowserStreamsAfterAnnouncing(t *testing.T) {
	e := newEnv(t)
	cookie := e.browserCookie(t)
	browser := e.sse(t, req{path: "/workspace/ws1/session/stream", cookie: cookie, origin: extOrigin})
	cli := e.sse(t, req{path: "/workspace/ws1/session/stream", bearer: e.token.Value()})
	time.Sleep(100 * time.Millisecond)
	e.pairing.Unpair("ws1")
	m := until(t, browser, "pairing")
	var ev event.Event
	json.Unmarshal(m.Data, &ev)
	if ev.Paired || ev.Workspace != "ws1" {
		t.Errorf("announcement: %s", m.Data)
	}
	if !ended(t, browser) {
		t.Error("browser stream still open after unpairing")
	}
	until(t, cli, "pairing")
	e.topics["ws1"].Publish([]event.Event{{Type: event.Assistant, Content: "still here"}}, nil)
	if m := until(t, cli, "assistant"); !strings.Contains(string(m.Data), "still here") {
		t.Error("CLI stream lost")
	}
}

func TestRotationCutsOffOldTokenCookiesAndStreams(t *testing.T) {
	e := newEnv(t)
	old := e.token.Value()
	cookie := e.browserCookie(t)
	stream := e.sse(t, req{path: "/workspace/ws1/session/stream", cookie: cookie, origin: extOrigin})
	cliStream := e.sse(t, req{path: "/session/stream", bearer: old})
	until(t, cliStream, "session")
	if code, _ := e.do(t, req{method: "POST", path: "/api/token/rotate", bearer: old}); code != 200 {
		t.Fatalf("rotate: %d", code)
	}
	if e.token.Value() == old {
		t.Fatal("token unchanged")
	}
	if !ended(t, stream) || !ended(t, cliStream) {
		t.Error("streams opened with the old token survive rotation")
	}
	if code, _ := e.do(t, req{path: "/api/workspaces", bearer: old}); code != 401 {
		t.Errorf("stale token: %d", code)
	}
	if code, _ := e.do(t, req{path: "/api/workspaces", cookie: cookie, origin: extOrigin}); code != 401 {
		t.Errorf("cookie made from the stale token: %d", code)
	}
	if code, _ := e.do(t, req{path: "/api/workspaces", bearer: e.token.Value()}); code != 200 {
		t.Errorf("new token: %d", code)
	}
}

func TestFollowStreamTracksLatestPairing(t *testing.T) {
	e := newEnv(t)
	e.topics["ws1"].Publish([]event.Event{{Type: event.Assistant, Content: "from tokyo"}}, nil)
	e.topics["ws2"].Publish([]event.Event{{Type: event.Assistant, Content: "from osaka"}}, nil)
	c := e.sse(t, req{path: "/session/stream", cookie: e.browserCookie(t), origin: extOrigin})
	m := until(t, c, "session")
	if m.LastID != "ws1:0" || !strings.Contains(string(m.Data), `"workspace":"ws1"`) {
		t.Fatalf("first session: %s %s", m.LastID, m.Data)
	}
	if m := until(t, c, "assistant"); !strings.Contains(string(m.Data), "from tokyo") {
		t.Errorf("ws1 event: %s", m.Data)
	}
	e.pairing.Pair("ws2")
	if m := until(t, c, "session"); m.LastID != "ws2:0" {
		t.Errorf("switch: %s %s", m.LastID, m.Data)
	}
	if m := until(t, c, "assistant"); !strings.Contains(string(m.Data), "from osaka") || m.LastID != "ws2:1" {
		t.Errorf("ws2 event: %s %s", m.LastID, m.Data)
	}
	e.pairing.Unpair("ws2")
	if m := until(t, c, "session"); m.LastID != "ws1:0" {
		t.Errorf("back to ws1: %s", m.LastID)
	}
}

func TestViewerFilesAndSecretsNeverLogged(t *testing.T) {
	e := newEnv(t)
	resp := e.send(t, req{path: "/"})
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	if resp.StatusCode != 200 || !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
		resp.Header.Get("X-Frame-Options") != "DENY" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("viewer page: %d %v", resp.StatusCode, resp.Header)
	}
	if code, _ := e.do(t, req{path: "/viewer/render.js"}); code != 200 {
		t.Errorf("viewer script: %d", code)
	}
	for _, p := range []string{"/viewer/../token", "/viewer/%2e%2e/token", "/viewer/nope.js"} {
		if code, _ := e.do(t, req{path: p}); code == 200 {
			t.Errorf("%s: %d", p, code)
		}
	}
	// Exercise every path that touches a secret, then look at the logs.
	cookie := e.browserCookie(t)
	e.do(t, req{method: "POST", path: "/extension-token", origin: extOrigin})
	_, link := e.do(t, req{method: "POST", path: "/api/viewer-link", bearer: e.token.Value()})
	e.send(t, req{path: strings.TrimPrefix(link["url"].(string), e.ts.URL)}).Body.Close()
	e.do(t, req{method: "POST", path: "/api/token/rotate", bearer: e.token.Value()})
	logs := e.logs.String()
	code := strings.TrimPrefix(link["url"].(string), e.ts.URL+"/open/")
	for name, secret := range map[string]string{"token": e.token.Value(), "cookie": cookie, "link code": code, "hook secret": e.hook.Value()} {
		if strings.Contains(logs, secret) {
			t.Errorf("%s in the logs", name)
		}
	}
	if !strings.Contains(logs, "API token rotated") || !strings.Contains(logs, "extension") {
		t.Errorf("expected log lines missing:\n%s", logs)
	}
}

func TestViewingCountsOpenBrowserStreams(t *testing.T) {
	e := newEnv(t)
	cookie := e.browserCookie(t)
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never: %s", what)
			}
		}
	}
	if e.srv.Viewing("ws1") {
		t.Fatal("viewing with no stream open")
	}
	// A CLI stream is not a person looking at the browser.
	e.sse(t, req{path: "/workspace/ws1/session/stream", bearer: e.token.Value()})
	time.Sleep(100 * time.Millisecond)
	if e.srv.Viewing("ws1") {
		t.Error("a CLI stream counts as viewing")
	}
	ctx, cancel := context.WithCancel(context.Background())
	hr, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.ts.URL+"/workspace/ws1/session/stream", nil)
	hr.Header.Set("Origin", extOrigin)
	hr.AddCookie(&http.Cookie{Name: auth.CookieName, Value: cookie})
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("ws1 viewed", func() bool { return e.srv.Viewing("ws1") })
	if e.srv.Viewing("ws2") {
		t.Error("ws2 counted as viewed")
	}
	cancel()
	resp.Body.Close()
	waitFor("ws1 no longer viewed", func() bool { return !e.srv.Viewing("ws1") })
	// A follow stream shows the latest pairing.
	e.sse(t, req{path: "/session/stream", cookie: cookie, origin: extOrigin})
	waitFor("the followed workspace viewed", func() bool { return e.srv.Viewing("ws1") })
	e.pairing.Pair("ws2")
	if !e.srv.Viewing("ws2") || e.srv.Viewing("ws1") {
		t.Error("follow stream: viewing should move to ws2")
	}
}

// TestOnlyTheOwnersConnections covers the peer check without a second OS
// user (TestAnotherUserGetsOnlyHealth does it for real): a connection
// whose peer is another uid, or cannot be told, gets /health and what the
// 0600-file secrets open, nothing else.
func TestOnlyTheOwnersConnections(t *testing.T) {
	e := newEnv(t)
	cookie := e.browserCookie(t)
	ext := e.srv.Sessions.ExtensionToken()
	pk := e.srv.Sessions.PageKey(cookie)
	self := map[string]string{"Sec-Fetch-Site": "same-origin"}
	peers := map[string]func(local, remote net.Addr) (int, error){
		"another user": func(net.Addr, net.Addr) (int, error) { return os.Getuid() + 1, nil },
		"unknown":      func(net.Addr, net.Addr) (int, error) { return -1, peer.ErrUnknown },
	}
	refused := []req{
		{method: "POST", path: "/extension-token", origin: extOrigin},
		{method: "POST", path: "/sse-session", bearer: ext, origin: extOrigin},
		{path: "/api/workspaces", bearer: ext, origin: extOrigin},
		{path: "/api/workspaces", cookie: cookie},
		{path: "/workspace/ws1/session/stream", cookie: cookie, origin: extOrigin},
		{path: "/session/stream", bearer: ext},
		{path: "/workspace/ws1/session/messages", bearer: pk, cookie: cookie, hdr: self},
		{method: "POST", path: "/workspace/ws1/session/messages", body: `{"message":"x"}`, ctype: "application/json", bearer: pk, cookie: cookie, hdr: self},
		{path: "/api/session", cookie: cookie, hdr: self},
		{path: "/open/" + e.srv.Links.Mint("ws1"), hdr: map[string]string{"Sec-Fetch-Mode": "navigate"}},
		{path: "/"},
		{method: "POST", path: "/hook/stop", bearer: e.token.Value() + "x", body: "{}", ctype: "application/json"},
	}
	for name, lookup := range peers {
		e.srv.PeerUID = lookup
		for _, r := range refused {
			if code, body := e.do(t, r); code != 403 {
				t.Errorf("%s: %s %s = %d %v, want 403", name, r.method, r.path, code, body)
			}
		}
		// Open to all, and the file secrets work from anyone who has them.
		for _, r := range []req{
			{path: "/health"},
			{path: "/api/workspaces", bearer: e.token.Value()},
			{method: "POST", path: "/sse-session", bearer: e.token.Value()},
			{method: "POST", path: "/hook/stop", bearer: e.hook.Value(), body: `{"cwd":"/w/tokyo"}`, ctype: "application/json"},
		} {
			if code, body := e.do(t, r); code != 200 {
				t.Errorf("%s: %s %s = %d %v, want 200", name, r.method, r.path, code, body)
			}
		}
	}
	if len(e.queue.List("ws1")) != 0 {
		t.Error("a message got through")
	}
}

// TestPeerLookedUpOncePerConnection: requests on one kept-alive
// connection share one lookup; requests with the API token need none.
func TestPeerLookedUpOncePerConnection(t *testing.T) {
	e := newEnv(t)
	var lookups atomic.Int32
	e.srv.PeerUID = func(l, r net.Addr) (int, error) { lookups.Add(1); return peer.UID(l, r) }
	ext := e.srv.Sessions.ExtensionToken()
	for range 5 {
		if code, _ := e.do(t, req{path: "/api/workspaces", bearer: ext}); code != 200 {
			t.Fatalf("extension token from ourselves: %d", code)
		}
	}
	if n := lookups.Load(); n != 1 {
		t.Errorf("%d lookups for 5 requests on one connection, want 1", n)
	}
	e.do(t, req{path: "/api/workspaces", bearer: e.token.Value()})
	e.do(t, req{path: "/health"})
	if n := lookups.Load(); n != 1 {
		t.Errorf("the token or /health looked the peer up (%d lookups)", n)
	}
}

// TestNativeOriginUsesItsTokenButGetsNoneByOrigin: the bridge's own panel
// gets no token for its Origin, yet the credential the native host hands
// it works from that origin, with CORS, like any allow-listed extension's.
func TestNativeOriginUsesItsTokenButGetsNoneByOrigin(t *testing.T) {
	e := newEnv(t)
	code, body := e.do(t, req{method: "POST", path: "/extension-token", origin: nativeOrigin})
	if code != 403 || body["token"] != nil || !strings.Contains(fmt.Sprint(body["error"]), "native messaging") {
		t.Fatalf("extension-token for a native origin: %d %v", code, body)
	}
	ext := e.srv.Sessions.ExtensionToken() // what the native host hands over
	resp := e.send(t, req{method: "POST", path: "/sse-session", bearer: ext, origin: nativeOrigin})
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != nativeOrigin {
		t.Errorf("sse-session with the host's credential: %d %v", resp.StatusCode, resp.Header)
	}
	if code, _ := e.do(t, req{method: "POST", path: "/workspace/ws1/session/messages", bearer: ext, origin: nativeOrigin,
		body: `{"message":"hello"}`, ctype: "application/json"}); code != 202 {
		t.Errorf("message with the host's credential: %d", code)
	}
}

// TestExtensionTokenRefusedFromPages: a squatter on the port while the
// bridge was down may have been sent the panel's extension token, and may
// have had its own page loaded in the bridge's origin (a viewer tab
// reloaded meanwhile). Once the real bridge is back, that page's requests
// carry browser labels no page can change (same-origin, its Origin): the
// token counts for none of them. An extension, and a program with no
// browser headers (the peer check has found it is the user's), keep it.
func TestExtensionTokenRefusedFromPages(t *testing.T) {
	e := newEnv(t)
	ext := e.srv.Sessions.ExtensionToken()
	self := "http://127.0.0.1:" + e.port
	post := func(r req) req {
		r.method, r.path, r.body, r.ctype, r.bearer = "POST", "/workspace/ws1/session/messages", `{"message":"id > /tmp/pwned"}`, "application/json", ext
		return r
	}
	get := func(r req) req { r.path, r.bearer = "/api/workspaces", ext; return r }
	tests := []struct {
		name string
		r    req
		want int
	}{
		{"page's POST, its own origin", post(req{origin: self, hdr: map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}}), 401},
		{"page's GET, same-origin", get(req{hdr: map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}}), 401},
		{"page's sse-session", req{method: "POST", path: "/sse-session", bearer: ext, origin: self, hdr: map[string]string{"Sec-Fetch-Site": "same-origin"}}, 401},
		{"typed into the address bar", get(req{hdr: map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}}), 401},
		{"extension's POST", post(req{origin: nativeOrigin, hdr: map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "cors"}}), 202},
		{"extension's GET", get(req{hdr: map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "cors"}}), 200},
		{"a program of the user's", get(req{}), 200},
	}
	for _, tt := range tests {
		if code, body := e.do(t, tt.r); code != tt.want {
			t.Errorf("%s: %d %v, want %d", tt.name, code, body, tt.want)
		}
	}
	if n := len(e.queue.List("ws1")); n != 1 {
		t.Errorf("%d messages queued, want the extension's one", n)
	}
}

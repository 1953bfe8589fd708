package api

import "testing"

// browserEnv is env with osaka's browse server live and nothing paired.
func browserEnv(t *testing.T) (*env, *fakeEngine, string) {
	t.Helper()
	e := newEnv(t)
	eng := e.srv.Engine.(*fakeEngine)
	eng.list[1].Browser = true
	if err := e.pairing.Unpair("ws1"); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(t, req{method: "POST", path: "/extension-token", origin: extOrigin})
	ext, _ := body["token"].(string)
	if code != 200 || ext == "" {
		t.Fatalf("extension token: %d %v", code, body)
	}
	return e, eng, ext
}

func suggested(body map[string]any) string {
	w, _ := body["workspace"].(map[string]any)
	id, _ := w["id"].(string)
	return id
}

// The one workspace driving the browser is offered while nothing is
// paired, and the extension pairs it with one call; then nothing more is
// offered, and the pairing cannot be moved from a browser.
func TestBrowserPairsTheWorkspaceDrivingIt(t *testing.T) {
	e, _, ext := browserEnv(t)
	code, body := e.do(t, req{path: "/api/browser-pairing", bearer: ext, origin: extOrigin})
	if code != 200 || suggested(body) != "ws2" {
		t.Fatalf("offer: %d %v", code, body)
	}
	if w := body["workspace"].(map[string]any); w["name"] != "osaka" {
		t.Errorf("offer names %v", w)
	}
	code, body = e.do(t, req{method: "POST", path: "/api/browser-pairing", bearer: ext, origin: extOrigin,
		ctype: "application/json", body: `{"workspace":"ws2"}`})
	if code != 200 || body["paired"] != true || body["browser"] != true {
		t.Fatalf("pair: %d %v", code, body)
	}
	if _, ok := e.pairing.Paired("ws2"); !ok {
		t.Fatal("osaka not paired")
	}
	if code, body = e.do(t, req{path: "/api/browser-pairing", bearer: ext, origin: extOrigin}); body["workspace"] != nil {
		t.Errorf("offered while paired: %d %v", code, body)
	}
	// Once paired, the workspace list says it has a browser.
	code, body = e.do(t, req{path: "/api/workspaces/ws2", bearer: ext, origin: extOrigin})
	if code != 200 || body["browser"] != true {
		t.Errorf("osaka: %d %v", code, body)
	}
}

// What a browser cannot do with it.
func TestBrowserPairingRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *env, eng *fakeEngine)
		r     func(ext, cookie string) req
		code  int
	}{
		{"another workspace than the one driving the browser", nil, func(ext, _ string) req {
			return req{method: "POST", path: "/api/browser-pairing", bearer: ext, origin: extOrigin, ctype: "application/json", body: `{"workspace":"ws1"}`}
		}, 409},
		{"while a workspace is paired", func(e *env, _ *fakeEngine) { e.pairing.Pair("ws1") }, func(ext, _ string) req {
			return req{method: "POST", path: "/api/browser-pairing", bearer: ext, origin: extOrigin, ctype: "application/json", body: `{"workspace":"ws2"}`}
		}, 409},
		{"while two workspaces drive browsers", func(_ *env, eng *fakeEngine) { eng.list[0].Browser = true }, func(ext, _ string) req {
			return req{method: "POST", path: "/api/browser-pairing", bearer: ext, origin: extOrigin, ctype: "application/json", body: `{"workspace":"ws2"}`}
		}, 409},
		{"with the cookie alone", nil, func(_, cookie string) req {
			return req{method: "POST", path: "/api/browser-pairing", cookie: cookie, origin: extOrigin, ctype: "application/json", body: `{"workspace":"ws2"}`}
		}, 401},
		{"from a web page", nil, func(ext, _ string) req {
			return req{method: "POST", path: "/api/browser-pairing", bearer: ext, origin: "https://evil.example", ctype: "application/json", body: `{"workspace":"ws2"}`}
		}, 403},
		{"as a form post", nil, func(ext, _ string) req {
			return req{method: "POST", path: "/api/browser-pairing", bearer: ext, origin: extOrigin, ctype: "application/x-www-form-urlencoded", body: `workspace=ws2`}
		}, 415},
		{"with nothing", nil, func(_, _ string) req {
			return req{method: "POST", path: "/api/browser-pairing", origin: extOrigin, ctype: "application/json", body: `{"workspace":"ws2"}`}
		}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, eng, ext := browserEnv(t)
			if tt.setup != nil {
				tt.setup(e, eng)
			}
			cookie := e.browserCookie(t)
			code, body := e.do(t, tt.r(ext, cookie))
			if code != tt.code {
				t.Errorf("%d %v, want %d", code, body, tt.code)
			}
			if _, ok := e.pairing.Paired("ws2"); ok {
				t.Error("osaka got paired")
			}
		})
	}
}

// No offer while a workspace is paired or none or several drive a browser;
// a workspace paired but gone does not count as paired.
func TestBrowserPairingOffer(t *testing.T) {
	tests := []struct {
		name  string
		setup func(e *env, eng *fakeEngine)
		want  string
	}{
		{"one driving, nothing paired", nil, "ws2"},
		{"one paired", func(e *env, _ *fakeEngine) { e.pairing.Pair("ws1") }, ""},
		{"the paired one is gone", func(e *env, _ *fakeEngine) { e.pairing.Pair("gone") }, "ws2"},
		{"two driving", func(_ *env, eng *fakeEngine) { eng.list[0].Browser = true }, ""},
		{"none driving", func(_ *env, eng *fakeEngine) { eng.list[1].Browser = false }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, eng, ext := browserEnv(t)
			if tt.setup != nil {
				tt.setup(e, eng)
			}
			code, body := e.do(t, req{path: "/api/browser-pairing", bearer: ext, origin: extOrigin})
			if code != 200 || suggested(body) != tt.want {
				t.Errorf("%d %v, want %q", code, body, tt.want)
			}
		})
	}
	e, _, _ := browserEnv(t)
	if code, _ := e.do(t, req{path: "/api/browser-pairing", origin: extOrigin}); code != 401 {
		t.Errorf("asked with nothing: %d", code)
	}
}

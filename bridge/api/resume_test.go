package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"conductorbridge/bridge/auth"
)

// A restart of the bridge voids every browser credential it issued; the
// viewer that holds its page secret resumes, and nothing else does.
func TestViewerResumesAfterARestartAndNothingElseDoes(t *testing.T) {
	e := newEnv(t)
	self := "http://127.0.0.1:" + e.port
	page := map[string]string{"Sec-Fetch-Site": "same-origin"}
	cookie := e.browserCookie(t)
	secret := e.srv.Sessions.PageSecret(cookie)
	oldKey := e.srv.Sessions.PageKey(cookie)
	oldRun := e.srv.Sessions.Run()
	code, sess := e.do(t, req{path: "/api/session", cookie: cookie, bearer: oldKey, hdr: page})
	if code != 200 || sess["run"] != oldRun {
		t.Fatalf("page session: %d %v", code, sess)
	}
	msg := func(cookie, key string) req {
		return req{method: "POST", path: "/workspace/ws1/session/messages", body: `{"message":"x"}`,
			ctype: "application/json", bearer: key, cookie: cookie, origin: self}
	}
	if code, body := e.do(t, msg(cookie, oldKey)); code != 202 {
		t.Fatalf("before the restart: %d %v", code, body)
	}

	e.srv.Sessions = &auth.Sessions{Token: e.token} // the bridge restarted
	newRun := e.srv.Sessions.Run()
	for name, r := range map[string]req{
		"the old cookie reads":       {path: "/api/workspaces", cookie: cookie, bearer: oldKey, hdr: page},
		"the old cookie streams":     {path: "/workspace/ws1/session/stream?pk=" + oldKey, cookie: cookie, hdr: page},
		"the old key writes":         msg(cookie, oldKey),
		"the old cookie is renewed":  {path: "/api/session", cookie: cookie, bearer: oldKey, hdr: page},
		"the old cookie, a new page": {path: "/api/workspaces", cookie: cookie, origin: extOrigin},
		"the old key resumes":        resume(self, secret, oldKey),
		"a page without the secret":  resume(self, "ps.1.AAAA.x", pageKey("ps.1.AAAA.x", newRun)),
		"another origin resumes":     resume("http://127.0.0.1:1", secret, pageKey(secret, newRun)),
		"a squatter's run name":      resume(self, secret, pageKey(secret, "r.chosen-by-the-squatter")),
	} {
		if code, body := e.do(t, r); code != 401 && code != 403 {
			t.Errorf("%s: %d %v, want 401 or 403", name, code, body)
		}
	}
	// Signed out, the page learns the new run's name, and resumes.
	code, sess = e.do(t, req{path: "/api/session", cookie: cookie, hdr: page})
	if code != 401 || sess["run"] != newRun || newRun == oldRun {
		t.Fatalf("signed out: %d %v", code, sess)
	}
	resp := e.send(t, resume(self, secret, pageKey(secret, newRun)))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("resume: %d", resp.StatusCode)
	}
	fresh := cookieFrom(t, resp).Value
	if code, body := e.do(t, msg(fresh, pageKey(secret, newRun))); code != 202 {
		t.Errorf("after resuming: %d %v", code, body)
	}
	if len(e.queue.List("ws1")) != 2 {
		t.Errorf("queue: %+v", e.queue.List("ws1"))
	}
}

func resume(origin, secret, key string) req {
	sid := strings.Join(strings.Split(secret, ".")[1:3], ".")
	return req{method: "POST", path: "/api/session", ctype: "application/json", origin: origin,
		body: `{"session":"` + sid + `","key":"` + key + `"}`, hdr: map[string]string{"Sec-Fetch-Site": "same-origin"}}
}

// pageKey is the page's own computation (assets/viewer/session.js).
func pageKey(secret, run string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(run))
	return "pk." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

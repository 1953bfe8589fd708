package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"conductorbridge/bridge/auth"
	"conductorbridge/testkit/browsertest"
)

// impostorReport is what the squatter's page (or its service worker's)
// reported from the browser.
type impostorReport struct {
	What string          `json:"what"`
	Data json.RawMessage `json:"data"`
	Href string          `json:"href"`
}

// attackRound is one round of the squatter's page trying the real bridge.
type attackRound struct {
	Round    int   `json:"round"`
	Keys     int   `json:"keys"`
	Statuses []int `json:"statuses"`
}

// report waits for the squatter's next report that ok accepts; every
// report on the way goes to seen.
func (s *impostor) report(t *testing.T, seen func(impostorReport), ok func(impostorReport) bool) impostorReport {
	t.Helper()
	for {
		l := s.next(t, 60*time.Second)
		j, isReport := strings.CutPrefix(l, "REPORT ")
		if !isReport {
			continue
		}
		var r impostorReport
		if err := json.Unmarshal([]byte(j), &r); err != nil {
			t.Fatalf("report %q: %v", j, err)
		}
		seen(r)
		if ok(r) {
			return r
		}
	}
}

// The viewer tab is reloaded while another OS user holds the bridge's
// port: the squatter's page runs in the bridge's origin. It must find
// nothing reusable; once the real bridge is back, nothing it or its
// server saw may work (401/403); and what it left behind (a service
// worker, pages cached for a year) must not catch the next link's secret.
func TestSquatterPageInRealChromium(t *testing.T) {
	e := newViewerEnv(t)
	e.send("before the crash")
	e.poll("the message sent", `document.querySelector('#sent li') !== null`)

	e.p.kill(syscall.SIGKILL)
	sq := startImpostor(t, e.addr)
	if err := chromedp.Do(e.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	var leaks []string
	seen := func(r impostorReport) {
		d := string(r.Data)
		if r.What == "stolen" && (strings.Contains(d, "ps.") || strings.Contains(d, "pk.") || strings.Contains(d, auth.CookieName)) {
			leaks = append(leaks, string(r.Data)+" at "+r.Href)
		}
	}
	stolen := sq.report(t, seen, func(r impostorReport) bool { return r.What == "stolen" })
	t.Logf("the squatter's page found %s", stolen.Data)
	var found struct{ Hash, Session, Local, Cookie string }
	json.Unmarshal(stolen.Data, &found)
	if found.Hash != "" || found.Session != "{}" || found.Local != "{}" || found.Cookie != "" {
		t.Errorf("the squatter's page found %+v, want nothing", found)
	}
	sw := sq.report(t, seen, func(r impostorReport) bool { return r.What == "sw" })
	t.Logf("the squatter's service worker: %s", sw.Data)

	// The real bridge comes back on its port.
	sq.release(t)
	e.p = startBridgeProc(t, e.home, e.port)
	var first attackRound
	sq.report(t, seen, func(r impostorReport) bool {
		return r.What == "attack" && json.Unmarshal(r.Data, &first) == nil
	})
	refusedAll(t, "the squatter's page, first round", first)
	replay(t, e, sq.reqs)

	// The person opens a new link in another tab: the real viewer, which
	// sends; and the squatter's page, still open, gets no further.
	tab, cancel := chromedp.NewContext(e.ctx)
	defer cancel()
	out, err := runCLI(t, "open", "--print", "--home", e.home)
	link := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if err != nil || !strings.HasPrefix(link, "http://"+e.addr+"/open/") {
		t.Fatalf("open: %v %s", err, out)
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(300, 760), chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	browsertest.Poll(t, tab, "the real viewer, able to send", `document.querySelectorAll('#workspace option').length > 0 && document.querySelector('#composer') && !document.querySelector('#composer').hidden`, 20*time.Second)
	if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.CSS("#message"), "from the person"), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	browsertest.Poll(t, tab, "the message sent", `document.querySelector('#sent li') !== null`, 20*time.Second)
	var last attackRound
	sq.report(t, seen, func(r impostorReport) bool {
		return r.What == "attack" && json.Unmarshal(r.Data, &last) == nil && last.Round >= first.Round+3
	})
	refusedAll(t, "the squatter's page, after the new link", last)
	if len(leaks) > 0 {
		t.Errorf("the squatter's pages found secrets: %q", leaks)
	}
	var texts []string
	for _, m := range e.queue(e.wsA.ID) {
		texts = append(texts, m.Text)
	}
	if !slices.Equal(texts, []string{"before the crash", "from the person"}) {
		t.Errorf("queue %q, want the person's two messages only", texts)
	}
}

func refusedAll(t *testing.T, who string, r attackRound) {
	t.Helper()
	if len(r.Statuses) < 3 {
		t.Fatalf("%s: round %+v tried too little", who, r)
	}
	for _, st := range r.Statuses {
		if st != http.StatusUnauthorized && st != http.StatusForbidden {
			t.Errorf("%s: round %d got statuses %v, want only 401 and 403", who, r.Round, r.Statuses)
			return
		}
	}
}

// replay sends everything the squatter's server saw — each cookie, each
// Authorization, each resume — to the real bridge as a page of its own
// origin in the person's browser would (the worst case: the squatter's
// code runs there). Nothing works.
func replay(t *testing.T, e *viewerEnv, reqs []impostorRequest) {
	t.Helper()
	self := "http://" + e.addr
	var tried int
	send := func(method, path, cookie, authz, body string) {
		r, _ := http.NewRequest(method, self+path, strings.NewReader(body))
		r.Header.Set("Cookie", cookie)
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		if authz != "" {
			r.Header.Set("Authorization", authz)
		}
		if method == http.MethodPost {
			r.Header.Set("Origin", self)
			r.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		tried++
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			t.Errorf("replayed to the real bridge: %s %s (cookie %q, %q) = %d", method, path, cookie, authz, resp.StatusCode)
		}
	}
	for _, r := range reqs {
		if r.Cookie == "" && r.Auth == "" {
			continue
		}
		send(http.MethodGet, "/api/workspaces", r.Cookie, r.Auth, "")
		send(http.MethodGet, "/workspace/"+e.wsA.ID+"/session/stream", r.Cookie, r.Auth, "")
		send(http.MethodGet, "/api/session", r.Cookie, r.Auth, "")
		send(http.MethodPost, "/workspace/"+e.wsA.ID+"/session/messages", r.Cookie, r.Auth, `{"message":"ATTACKER"}`)
		if r.Method == http.MethodPost && r.Path == "/api/session" {
			send(http.MethodPost, "/api/session", r.Cookie, "", r.Body)
		}
	}
	if tried == 0 {
		t.Error("the squatter's server saw no credential to replay: the test proves nothing")
	}
	if n := len(e.queue(e.wsA.ID)); n != 1 {
		t.Errorf("queue holds %d messages after the replay, want the one sent before the crash", n)
	}
}

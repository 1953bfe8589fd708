package api

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/usage"
)

// fixedUsage is a history of three turns: one in tokyo (paired), one in a
// folder below it, one in osaka (not paired) and one outside any workspace.
type fixedUsage struct{}

func (fixedUsage) Read(context.Context) (*usage.History, error) {
	end := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	turn := func(ws string, usd float64) usage.Turn {
		return usage.Turn{Start: end, End: end, Agent: "claude", Workspace: ws, Session: "s-" + ws, Model: "m",
			Usage: event.Usage{InputTokens: 1}, CostUSD: usd, CostKnown: true}
	}
	return &usage.History{Turns: []usage.Turn{turn("/w/tokyo", 1), turn("/w/tokyo/web", 2), turn("/w/osaka", 4), turn("/secret/project", 8)},
		Files: 4, Errors: []string{"read /secret/project/x.jsonl: denied"}}, nil
}

// workspacesOf lists the workspaces in a by=workspace answer.
func workspacesOf(body map[string]any) []string {
	var out []string
	rows, _ := body["rows"].([]any)
	for _, r := range rows {
		out = append(out, r.(map[string]any)["key"].(string))
	}
	slices.Sort(out)
	return out
}

// TestUsageNeedsACredentialAndItsOrigin: GET /api/usage is a read: nothing
// without a credential, nothing for another site's page, even with the
// browser's cookie.
func TestUsageNeedsACredentialAndItsOrigin(t *testing.T) {
	e := newEnv(t)
	cookie := e.browserCookie(t)
	for name, r := range map[string]req{
		"no credential":          {},
		"wrong token":            {bearer: strings.Repeat("b", 64)},
		"forged cookie":          {cookie: "1999999999.AAAA.forged"},
		"other origin, token":    {bearer: e.token.Value(), origin: "https://evil.example"},
		"other origin, cookie":   {cookie: cookie, origin: "https://evil.example"},
		"cross-site no-cors":     {cookie: cookie, hdr: map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}},
		"same-site navigation":   {cookie: cookie, hdr: map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate"}},
		"unlisted extension":     {bearer: e.token.Value(), origin: "chrome-extension://evil"},
		"page key, other origin": {cookie: cookie, bearer: "pk.x", origin: "http://127.0.0.1:9"},
	} {
		r.path = "/api/usage?by=workspace"
		resp := e.send(t, r)
		var body strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		body.Write(buf[:n])
		resp.Body.Close()
		if resp.StatusCode != 401 && resp.StatusCode != 403 || strings.Contains(body.String(), "tokyo") || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: %d %s", name, resp.StatusCode, body.String())
		}
	}
}

// TestUsageBrowserSeesPairedWorkspacesOnly: the CLI's token sees every
// workspace's cost; a browser only the paired ones' (tokyo and the folder
// below it), and no file names; with exposure all, everything.
func TestUsageBrowserSeesPairedWorkspacesOnly(t *testing.T) {
	e := newEnv(t)
	cookie := e.browserCookie(t)
	all := []string{"/secret/project", "/w/osaka", "/w/tokyo", "/w/tokyo/web"}
	code, body := e.do(t, req{path: "/api/usage?by=workspace", bearer: e.token.Value()})
	if got := workspacesOf(body); code != 200 || !slices.Equal(got, all) || body["total"].(map[string]any)["cost_usd"] != 15.0 {
		t.Errorf("CLI: %d %v", code, body)
	}
	viewer := req{path: "/api/usage?by=workspace", cookie: cookie, bearer: e.srv.Sessions.PageKey(cookie),
		hdr: map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}}
	code, body = e.do(t, viewer)
	if got := workspacesOf(body); code != 200 || !slices.Equal(got, []string{"/w/tokyo", "/w/tokyo/web"}) ||
		body["scope"] != "paired" || body["total"].(map[string]any)["cost_usd"] != 3.0 || body["errors"] != nil || body["files"] != 0.0 {
		t.Errorf("viewer: %d %v", code, body)
	}
	e.pairing.SetExposure(pairing.ExposeAll)
	if code, body = e.do(t, viewer); !slices.Equal(workspacesOf(body), all) || body["scope"] != nil {
		t.Errorf("exposure all: %d %v", code, body)
	}
}

func TestUsageQueryErrors(t *testing.T) {
	e := newEnv(t)
	for _, q := range []string{"by=year", "since=yesterday", "until=2026-13-40", "tz=Mars/Olympus"} {
		if code, body := e.do(t, req{path: "/api/usage?" + q, bearer: e.token.Value()}); code != http.StatusBadRequest {
			t.Errorf("%s: %d %v", q, code, body)
		}
	}
	code, body := e.do(t, req{path: "/api/usage?by=day&since=2026-12-02&until=2026-12-02&tz=UTC", bearer: e.token.Value()})
	rows, _ := body["rows"].([]any)
	if code != 200 || len(rows) != 1 || rows[0].(map[string]any)["key"] != "2026-12-02" {
		t.Errorf("one day: %d %v", code, body)
	}
}

// TestUsagePageIsServedLikeTheViewer: /usage is a page without data, open
// to a navigation from anywhere (the menu bar's link), under the viewer's
// content security policy.
func TestUsagePageIsServedLikeTheViewer(t *testing.T) {
	e := newEnv(t)
	for _, site := range []string{"none", "cross-site"} {
		resp := e.send(t, req{path: "/usage", hdr: map[string]string{"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate"}})
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != viewerCSP ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s navigation to /usage: %d %v", site, resp.StatusCode, resp.Header)
		}
	}
}

// freshUsage counts how the report was read.
type freshUsage struct {
	fixedUsage
	reads, fresh *int
}

func (f freshUsage) Read(ctx context.Context) (*usage.History, error) {
	*f.reads++
	return f.fixedUsage.Read(ctx)
}

func (f freshUsage) ReadFresh(ctx context.Context) (*usage.History, error) {
	*f.fresh++
	return f.fixedUsage.Read(ctx)
}

// TestUsageCacheNoIsTheCLIsOnly: cache=no (usage --no-cache) reads around
// the cache for the API token; a browser may not have the whole history
// read again on demand (400), and its plain reads still use the cache.
func TestUsageCacheNoIsTheCLIsOnly(t *testing.T) {
	e := newEnv(t)
	var reads, fresh int
	e.srv.Usage = freshUsage{reads: &reads, fresh: &fresh}
	if code, _ := e.do(t, req{path: "/api/usage?cache=no", bearer: e.token.Value()}); code != 200 || fresh != 1 || reads != 0 {
		t.Errorf("the CLI's cache=no: %d, %d fresh reads, %d cached", code, fresh, reads)
	}
	ext := e.srv.Sessions.ExtensionToken()
	if code, _ := e.do(t, req{path: "/api/usage?cache=no", bearer: ext, origin: extOrigin}); code != 400 || fresh != 1 {
		t.Errorf("a browser's cache=no: %d, %d fresh reads", code, fresh)
	}
	if code, _ := e.do(t, req{path: "/api/usage", bearer: ext, origin: extOrigin}); code != 200 || reads != 1 {
		t.Errorf("a browser's read: %d, %d cached reads", code, reads)
	}
}

// busyUsage is fixedUsage that notes whether the server said it was busy
// while the history was read.
type busyUsage struct {
	fixedUsage
	busy *int
	seen *[]int
}

func (b busyUsage) Read(ctx context.Context) (*usage.History, error) {
	*b.seen = append(*b.seen, *b.busy)
	return b.fixedUsage.Read(ctx)
}

// TestUsageReportIsMadeBusy: a report is made between Busy and its done
// (an idle bridge's collector then paces as usual: bridge/gcidle), each
// request once, and a refused one (a bad query) is never busy.
func TestUsageReportIsMadeBusy(t *testing.T) {
	e := newEnv(t)
	var busy, calls int
	var seen []int
	e.srv.Usage = busyUsage{busy: &busy, seen: &seen}
	e.srv.Busy = func() func() {
		busy++
		calls++
		return func() { busy-- }
	}
	for range 2 {
		if code, body := e.do(t, req{path: "/api/usage?by=day", bearer: e.token.Value()}); code != 200 {
			t.Fatalf("%d %v", code, body)
		}
	}
	if !slices.Equal(seen, []int{1, 1}) || busy != 0 || calls != 2 {
		t.Errorf("busy while reading %v, busy after %d, calls %d; want [1 1], 0, 2", seen, busy, calls)
	}
	if code, _ := e.do(t, req{path: "/api/usage?by=year", bearer: e.token.Value()}); code != http.StatusBadRequest || calls != 2 {
		t.Errorf("a bad query: %d, %d Busy calls; want 400 and none", code, calls)
	}
}

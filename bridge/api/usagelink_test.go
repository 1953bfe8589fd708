package api

import (
	"strings"
	"testing"
)

// TestViewerLinkCanLandOnTheUsagePage: the menu bar's "Today's cost" opens
// a one-time link with ?to=usage; it signs the browser in like any viewer
// link and lands on /usage, and nothing else in the query can redirect.
func TestViewerLinkCanLandOnTheUsagePage(t *testing.T) {
	e := newEnv(t)
	nav := map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"}
	for _, tt := range []struct{ query, want string }{
		{"?to=usage", "/usage"},
		{"?to=https://evil.example/", "/"},
		{"", "/"},
	} {
		link, _, err := e.srv.ViewerLink("127.0.0.1:"+e.port, "")
		if err != nil {
			t.Fatal(err)
		}
		resp := e.send(t, req{path: strings.TrimPrefix(link, "http://127.0.0.1:"+e.port) + tt.query, hdr: nav})
		resp.Body.Close()
		to, secret, _ := strings.Cut(resp.Header.Get("Location"), "#ps=")
		if resp.StatusCode != 303 || to != tt.want || !strings.HasPrefix(secret, "ps.") || len(resp.Cookies()) == 0 {
			t.Errorf("%q: %d %q, want a signed-in redirect to %s", tt.query, resp.StatusCode, resp.Header.Get("Location"), tt.want)
		}
	}
}

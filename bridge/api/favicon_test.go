package api

import (
	"io"
	"testing"
)

// TestFavicon: a browser's /favicon.ico is the app's icon, to anyone, with
// no credential (a 404 before).
func TestFavicon(t *testing.T) {
	e := newEnv(t)
	e.srv.Favicon = []byte("\x89PNG icon")
	resp := e.send(t, req{path: "/favicon.ico"})
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || string(b) != "\x89PNG icon" {
		t.Errorf("favicon: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
}

package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"conductorbridge/bridge/auth"
)

// openBrowser hands a URL (or a folder) to the desktop. Its argument is in
// the opener's argv, which every user of the machine can read (ps): never
// pass it a secret, use openURL.
//
// check waits a moment for the opener's word (the CLI, which says when no
// browser opened); the menu bar's clicks do not wait.
func openBrowser(target string, check bool) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", target)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", target)
	default:
		cmd = exec.Command("xdg-open", target)
	}
	var out strings.Builder
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("no way to open a browser here (%w)", err)
	}
	// The opener hands the page to a browser and exits; one that fails
	// (no browser, no display) does so at once. One still running after a
	// while has started a browser in the foreground: it stays, reaped.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if !check {
		return nil
	}
	select {
	case err := <-done:
		if err != nil {
			why := strings.TrimSpace(out.String())
			if why == "" {
				why = err.Error()
			}
			return fmt.Errorf("no browser could be opened here (%s: %s)", filepath.Base(cmd.Path), why)
		}
	case <-time.After(5 * time.Second):
	}
	return nil
}

// openURL opens u in the browser. A one-time viewer link is a credential
// (whoever opens it first is signed in), so it never goes into argv: the
// browser is handed a file of the state dir's, readable by this user
// only, that sends it on to the link.
func openURL(stateDir, u string, check bool) error {
	if !isViewerLink(u) {
		return openBrowser(u, check)
	}
	page, err := writeRedirect(filepath.Join(stateDir, openDir), u, time.Now())
	if err != nil {
		return fmt.Errorf("open viewer link: %w", err)
	}
	return openBrowser((&url.URL{Scheme: "file", Path: page}).String(), check)
}

// openDir holds the redirect pages openURL writes, under the state dir.
const openDir = "links"

// isViewerLink reports whether u is one of the bridge's one-time links.
func isViewerLink(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "http" && strings.HasPrefix(p.Path, "/open/")
}

// writeRedirect writes a 0600 page that forwards the browser to link, and
// removes the pages of links that have expired since.
func writeRedirect(dir, link string, now time.Time) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > auth.LinkTTL {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	var b [8]byte
	rand.Read(b[:])
	page := filepath.Join(dir, "viewer-"+hex.EncodeToString(b[:])+".html")
	q := html.EscapeString(link)
	body := `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
		`<meta http-equiv="refresh" content="0;url=` + q + `"><title>Conductor Bridge</title>` +
		`<p>Opening the session viewer… <a href="` + q + `">continue</a></p>` + "\n"
	f, err := os.OpenFile(page, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(body); err != nil {
		f.Close()
		return "", err
	}
	return page, f.Close()
}

// copyText puts text on the clipboard with the desktop's own tool.
func copyText(text string) error {
	var tools [][]string
	switch runtime.GOOS {
	case "darwin":
		tools = [][]string{{"pbcopy"}}
	case "windows":
		tools = [][]string{{"clip"}}
	default:
		tools = [][]string{{"wl-copy"}, {"xclip", "-selection", "clipboard"}, {"xsel", "--clipboard", "--input"}}
	}
	for _, t := range tools {
		if _, err := exec.LookPath(t[0]); err != nil {
			continue
		}
		cmd := exec.Command(t[0], t[1:]...)
		cmd.Stdin = strings.NewReader(text)
		return cmd.Run()
	}
	return errors.New("no clipboard tool found (pbcopy, wl-copy, xclip or xsel)")
}

package main

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"conductorbridge/testkit/browsertest"
)

// standInOpener puts an xdg-open (and open) on PATH that records its argv.
func standInOpener(t *testing.T) (pathEnv, record string) {
	t.Helper()
	bin := t.TempDir()
	record = filepath.Join(bin, "argv")
	script := "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > " + record + ".tmp && mv " + record + ".tmp " + record + "\n"
	for _, name := range []string{"xdg-open", "open"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), record
}

// Risk 1 of issue 12: `open` hands the browser a one-time link, which is a
// credential; the opener's argv (readable by every user in ps) must not
// hold it, and the link must still work.
func TestOpenKeepsTheLinkOutOfArgv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no stand-in opener")
	}
	home := t.TempDir()
	dir, _ := plainProject(t, home, "shop")
	p := startBridgeProc(t, home, 0)
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir })
	pathEnv, record := standInOpener(t)

	out, err := runCLIEnv(t, []string{pathEnv}, "open", "--home", home, "shop")
	link := regexp.MustCompile(`http://\S+/open/\S+`).FindString(out)
	if err != nil || link == "" {
		t.Fatalf("open: %v\n%s", err, out)
	}
	code := link[strings.LastIndex(link, "/")+1:]
	var argv []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if argv, err = os.ReadFile(record); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("the opener never ran: %v", err)
	}
	if strings.Contains(string(argv), code) || strings.Contains(string(argv), "http:") {
		t.Fatalf("the one-time link is in the opener's argv: %q", argv)
	}
	args := strings.Split(strings.TrimSpace(string(argv)), "\n")
	u, err := url.Parse(args[len(args)-1])
	if err != nil || u.Scheme != "file" {
		t.Fatalf("opener got %q, want a file URL", argv)
	}
	info, err := os.Stat(u.Path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("redirect page: %v %v, want mode 0600", err, info)
	}
	page, _ := os.ReadFile(u.Path)
	m := regexp.MustCompile(`url=([^"]+)"`).FindSubmatch(page)
	if m == nil || html.UnescapeString(string(m[1])) != link {
		t.Fatalf("the page does not lead to the link %s:\n%s", link, page)
	}
	// Followed as a browser would (a navigation from a file: page), the
	// link signs the viewer in, once.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	follow := func() *http.Response {
		req, _ := http.NewRequest("GET", html.UnescapeString(string(m[1])), nil)
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Sec-Fetch-Mode", "navigate")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := follow(); resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) == 0 {
		t.Errorf("the link from the page: %s, cookies %v", resp.Status, resp.Cookies())
	}
	if resp := follow(); resp.StatusCode != http.StatusForbidden {
		t.Errorf("used twice: %s", resp.Status)
	}
}

func TestRedirectPagesExpire(t *testing.T) {
	dir := t.TempDir()
	old, err := writeRedirect(dir, "http://127.0.0.1:1/open/a", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	os.Chtimes(old, past, past)
	fresh, err := writeRedirect(dir, "http://127.0.0.1:1/open/<b>&\"", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("an expired link's page is still there: %v", err)
	}
	b, _ := os.ReadFile(fresh)
	if strings.Contains(string(b), "<b>") || !strings.Contains(string(b), "&lt;b&gt;&amp;&#34;") {
		t.Errorf("link not escaped: %s", b)
	}
	for u, want := range map[string]bool{
		"http://127.0.0.1:34568/open/abc": true, "http://127.0.0.1:34568/": false,
		"conductor://workspace?id=/open/x": false, "/home/me/logs": false,
	} {
		if isViewerLink(u) != want {
			t.Errorf("isViewerLink(%q) = %v", u, !want)
		}
	}
}

// runCLIEnv runs the binary with extra environment.
func runCLIEnv(t testing.TB, env []string, args ...string) (string, error) {
	t.Helper()
	return runEnv(t, binary, env, args...)
}

// The page `open` writes signs a real Chromium in to the viewer, as the
// link itself does: file: → the one-time link → the viewer.
func TestViewerLinkPageInRealChromium(t *testing.T) {
	chrome := browsertest.Find(t)
	e := newTwoWorkspaces(t)
	if out, err := runCLI(t, "pair", "--addr", e.addr, "--home", e.home, "tokyo"); err != nil {
		t.Fatalf("pair: %v %s", err, out)
	}
	pathEnv, record := standInOpener(t)
	if out, err := runCLIEnv(t, []string{pathEnv}, "open", "--home", e.home); err != nil {
		t.Fatalf("open: %v %s", err, out)
	}
	var argv []byte
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if argv, err = os.ReadFile(record); err == nil {
			break
		}
	}
	args := strings.Split(strings.TrimSpace(string(argv)), "\n")
	page := args[len(args)-1]
	if err != nil || !strings.HasPrefix(page, "file://") {
		t.Fatalf("opener argv %q: %v", argv, err)
	}
	e.ctx = browsertest.New(t, chrome)
	if err := chromedp.Do(e.ctx, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	// The page forwards the tab twice (to the link, then the viewer), and
	// each navigation replaces the page's JavaScript context: ask until
	// the viewer answers that it is signed in and lists the workspace.
	var shown bool
	var href string
	for deadline := time.Now().Add(15 * time.Second); !shown; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the viewer never listed the workspace; the tab is on %q", href)
		}
		href, _ = chromedp.Run(e.ctx, chromedp.Evaluate[string]("location.href"))
		shown, _ = chromedp.Run(e.ctx, chromedp.Evaluate[bool](`document.querySelectorAll('#workspace option').length > 0`))
	}
	if !strings.HasPrefix(href, "http://"+e.addr+"/") {
		t.Errorf("signed in on %q", href)
	}
}

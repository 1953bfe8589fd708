package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"conductorbridge/assets"
	"conductorbridge/bridge/nativehost"
	"conductorbridge/testkit/browsertest"
)

// panelEnv is a bridge with two workspaces (none paired yet) and a real
// Chromium with the side panel installed as a person installs it:
// `conductor-bridge extension install` wrote the unpacked extension and the
// native host manifest into Chromium's folder on this home, Chromium runs
// on that folder with the extension loaded unpacked, and the panel's page
// is open in a tab. It signs in through the real native host.
type panelEnv struct {
	*viewerEnv
	extDir  string
	profile string // Chromium's user data folder
}

func newPanelEnv(t testing.TB) *panelEnv {
	chrome := browsertest.Find(t)
	return openPanel(t, chrome, newTwoWorkspaces(t))
}

// openPanel installs the side panel on e's home, as a person does, and
// opens it in a real Chromium that signs in through the native host.
func openPanel(t testing.TB, chrome string, e *viewerEnv) *panelEnv {
	pe := &panelEnv{viewerEnv: e}
	// Chromium ran on this home once: its folder is there (Debian's
	// chromium, like Google's builds, keeps it in ~/.config/chromium).
	pe.profile = filepath.Join(e.home, ".config", "chromium")
	if err := os.MkdirAll(pe.profile, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := runCLIEnv(t, pe.env(), "extension", "install", "--home", e.home)
	if err != nil || !strings.Contains(out, "native host installed for Chromium") {
		t.Fatalf("extension install: %v\n%s", err, out)
	}
	pe.extDir = filepath.Join(e.p.stateDir(), "chrome-extension")
	e.ctx = browsertest.New(t, chrome,
		// The folder extension install found, as Chromium's own: it reads
		// native hosts from <user data dir>/NativeMessagingHosts.
		chromedp.UserDataDir(pe.profile),
		// The host Chromium starts inherits this: it finds the bridge's
		// state on this home, as it would on the person's.
		chromedp.Env(pe.env()...),
		chromedp.Flag("disable-extensions", false),
		chromedp.Flag("load-extension", pe.extDir),
		chromedp.Flag("disable-extensions-except", pe.extDir),
	)
	if err := chromedp.Do(e.ctx, chromedp.EmulateViewport(300, 760), chromedp.Navigate(pe.panelURL())); err != nil {
		t.Fatalf("open the panel: %v", err)
	}
	return pe
}

// env is the environment of a person whose home is the fake one. (Empty
// values would not do: Chromium takes an empty CHROME_CONFIG_HOME as a
// relative path.)
func (e *panelEnv) env() []string {
	return []string{"HOME=" + e.home, "XDG_STATE_HOME=" + filepath.Join(e.home, ".local", "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(e.home, ".config"), "CHROME_CONFIG_HOME=" + filepath.Join(e.home, ".config")}
}

func (e *panelEnv) panelURL() string {
	return fmt.Sprintf("chrome-extension://%s/panel.html", assets.ExtensionID)
}

// restartOnAnotherPort starts the bridge again (after it stopped) on a
// port it has not used.
func (e *panelEnv) restartOnAnotherPort() {
	e.t.Helper()
	old := e.port
	for e.port == old {
		e.port, _ = freePort()
	}
	e.addr = fmt.Sprintf("127.0.0.1:%d", e.port)
	e.p = startBridgeProc(e.t, e.home, e.port)
}

// extensionToken asks the bridge for an extension token as origin, the
// pinned-Origin way (gstack's), and returns the status.
func (e *panelEnv) extensionToken(origin string) int {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.p.base+"/extension-token", nil)
	req.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func (e *panelEnv) cli(args ...string) {
	e.t.Helper()
	if out, err := runCLI(e.t, append(args, "--addr", e.addr, "--home", e.home)...); err != nil {
		e.t.Fatalf("%v: %v %s", args, err, out)
	}
}

func (e *panelEnv) notice() string {
	return browsertest.Eval[string](e.t, e.ctx, `document.querySelector('#notice').hidden ? '' : document.querySelector('#notice').dataset.state`)
}

func TestSidePanelInRealChromium(t *testing.T) {
	e := newPanelEnv(t)

	// Nothing is paired yet: the panel says what to do.
	e.poll("the nothing-paired state", `document.querySelector('#notice').dataset.state === 'Pair a workspace from the menu bar'`)

	// It signed in through the native host, which extension install put
	// where Chromium looks and which names this binary and this extension:
	// the port it shows came from the host, and the bridge refuses the
	// panel's Origin the token a pinned Origin gets.
	m, err := nativehost.ReadManifest(filepath.Join(e.profile, "NativeMessagingHosts", nativehost.HostName+".json"))
	if err != nil || m.Path != binary || !m.Allows(ownExtension) {
		t.Fatalf("host manifest %+v: %v", m, err)
	}
	e.poll("the port from the host", fmt.Sprintf(`document.querySelector('#where').textContent.endsWith(':%d')`, e.port))
	if code := e.extensionToken(ownExtension); code != http.StatusForbidden {
		t.Errorf("/extension-token for the panel's own origin: %d, want 403 (it signs in through the native host)", code)
	}

	// Pair tokyo from the CLI: the panel follows, without a reload.
	e.cli("pair", "tokyo")
	e.poll("tokyo shown", `document.querySelector('#workspace').textContent.includes('tokyo') && document.querySelector('#notice').hidden`)
	e.tokyo.turn("check the login page", "The login page works; the e2e run needs a browser.")
	e.poll("the turn rendered", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('e2e run needs a browser')) && document.querySelector('#log .turn') !== null`)
	tools := browsertest.Eval[[]string](t, e.ctx, `[...document.querySelectorAll('#log .tool')].map(n => n.dataset.tool)`)
	if len(tools) != 10 || tools[0] != "bash" || tools[7] != "web" {
		t.Errorf("tool badges: %q", tools)
	}
	// At 300 px the composer's placeholder is whole, on one line.
	if !placeholderFits(t, e.ctx) {
		t.Error("the composer's placeholder does not fit on one line at 300 px")
	}
	// The footer's Usage link opens the usage page in a tab, signed in by
	// the link the native host asked the bridge for.
	if err := chromedp.Do(e.ctx, chromedp.Click(chromedp.CSS("#usage-link"))); err != nil {
		t.Fatal(err)
	}
	usage := waitTab(t, e.ctx, e.p.base+"/")
	browsertest.Poll(t, usage, "the usage page, signed in, in a tab", `location.pathname === '/usage' && document.body.dataset.loaded !== undefined`, 20*time.Second)

	// Switch the pairing: the panel follows within a second or so.
	switched := time.Now()
	e.cli("pair", "osaka")
	e.poll("osaka shown", `document.querySelector('#workspace').textContent.includes('osaka')`)
	t.Logf("pairing switch → panel: %v", time.Since(switched).Round(time.Millisecond))
	if n := browsertest.Eval[int](t, e.ctx, `document.querySelectorAll('.bubble.claude').length`); n != 0 {
		t.Errorf("tokyo's %d bubbles still shown for osaka", n)
	}
	e.osaka.prompt("hello osaka")
	e.poll("osaka's event", `[...document.querySelectorAll('.bubble.you')].some(n => n.textContent.includes('hello osaka'))`)

	// The bridge stops: the host says so, and the panel shows "Start
	// Conductor Bridge". It comes back on another port: the panel asks the
	// host again and recovers, with nothing twice and nothing missing.
	e.p.kill(syscall.SIGTERM)
	e.poll("the not-running state", `document.querySelector('#notice').dataset.state === 'Start Conductor Bridge' && !document.querySelector('#notice').hidden`)
	// What to do about it, for this system: a Mac has the app.
	wantText := "It is not running. Run:conductor-bridge"
	if runtime.GOOS == "darwin" {
		wantText = "It is not running. Open it from Applications, or run:conductor-bridge"
	}
	if text := browsertest.Eval[string](t, e.ctx, `document.querySelector('#notice').textContent`); !strings.Contains(text, wantText) {
		t.Errorf("the not-running notice says %q, want %q", text, wantText)
	}
	e.osaka.prompt("written while the bridge was down")
	e.restartOnAnotherPort()
	e.poll("recovered", `[...document.querySelectorAll('.bubble.you')].some(n => n.textContent.includes('while the bridge was down')) && document.querySelector('#notice').hidden`)
	e.poll("the new port from the host", fmt.Sprintf(`document.querySelector('#where').textContent.endsWith(':%d')`, e.port))
	e.sameEvents(e.wsB.ID, "after recovery")

	// The token is rotated: the panel's stream is cut off, and it signs in
	// again by itself, resuming where it was.
	e.cli("token", "--rotate")
	e.osaka.prompt("written after the rotation")
	e.poll("recovered after the rotation", `[...document.querySelectorAll('.bubble.you')].some(n => n.textContent.includes('after the rotation'))`)
	e.sameEvents(e.wsB.ID, "after the rotation")

	// A message from the panel reaches osaka's queue: the extension's
	// origin is accepted …
	e.send("no, test the mobile view")
	e.poll("the message listed", `document.querySelector('#sent li.queued') !== null`)
	if q := e.queue(e.wsB.ID); len(q) != 1 || q[0].Text != "no, test the mobile view" {
		t.Errorf("osaka's queue: %+v", q)
	}
	e.screenshot("side-panel.png")

	// Without its native host (not installed for this browser, or taken
	// away), the panel says how to install it, and picks up once it is back.
	manifest := filepath.Join(e.profile, "NativeMessagingHosts", nativehost.HostName+".json")
	saved, err := os.ReadFile(manifest)
	if err != nil || os.Remove(manifest) != nil {
		t.Fatalf("take the manifest away: %v", err)
	}
	e.p.kill(syscall.SIGTERM)
	e.poll("the no-host state", `document.querySelector('#notice').dataset.state === "Install the side panel's helper" && document.querySelector('#notice').textContent.includes('conductor-bridge extension install')`)
	if err := os.WriteFile(manifest, saved, 0o644); err != nil {
		t.Fatal(err)
	}
	e.restartOnAnotherPort()
	e.poll("back with the host", fmt.Sprintf(`document.querySelector('#notice').hidden && document.querySelector('#where').textContent.endsWith(':%d')`, e.port))

	// … while a page on another origin, in the same browser, is refused.
	res, _ := e.hostileResults(e.wsB.ID)
	if !strings.HasPrefix(fmt.Sprint(res["fetchList"]), "blocked") || res["eventSource"] != "closed" {
		t.Errorf("another origin got in: %v", res)
	}
	if q := e.queue(e.wsB.ID); len(q) != 1 {
		t.Errorf("another origin injected: %+v", q)
	}
}

// TestExtensionSharesTheViewersRenderer: the side panel's renderer and
// style are the viewer's, byte for byte, and the manifest asks for no more
// than it needs.
func TestExtensionSharesTheViewersRenderer(t *testing.T) {
	dir := t.TempDir()
	if err := assets.WriteExtension(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"render.js", "page.js", "viewer.css"} {
		ext, _ := os.ReadFile(filepath.Join(dir, name))
		viewer, _ := os.ReadFile(filepath.Join("..", "assets", "viewer", name))
		if len(viewer) == 0 || !bytes.Equal(ext, viewer) {
			t.Errorf("the extension's %s is not the viewer's", name)
		}
	}
	if _, err := os.Stat(filepath.Join("..", "assets", "extension", "render.js")); err == nil {
		t.Error("assets/extension keeps its own render.js: a copy that can drift")
	}
	manifest, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	for _, want := range []string{`"permissions": ["sidePanel", "nativeMessaging"]`, `"host_permissions": ["http://127.0.0.1/*"]`, `"key": "`} {
		if !strings.Contains(string(manifest), want) {
			t.Errorf("manifest lacks %s", want)
		}
	}
}

// placeholderFits reports whether the composer's placeholder fits on one
// line of the box: written into it unwrapped (as the placeholder is laid
// out, in its font), it needs no scrolling. One line leaves the box's
// second for a wider font than this Chromium's (the reporter saw the
// first version cut at "…for a new li").
func placeholderFits(t testing.TB, ctx context.Context) bool {
	return browsertest.Eval[bool](t, ctx, `(() => {
		const m = document.querySelector('#message');
		const [value, wrap] = [m.value, m.style.whiteSpace];
		m.value = m.placeholder;
		m.style.whiteSpace = 'pre';
		const fits = m.placeholder !== '' && m.scrollWidth <= m.clientWidth && m.scrollHeight <= m.clientHeight;
		[m.value, m.style.whiteSpace] = [value, wrap];
		return fits;
	})()`)
}

// waitTab waits for a tab the page opened at an address that starts with
// prefix, and returns its context.
func waitTab(t testing.TB, ctx context.Context, prefix string) context.Context {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tabs, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tab := range tabs {
			if tab.Type == "page" && strings.HasPrefix(tab.URL, prefix) {
				tctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(tab.TargetID))
				t.Cleanup(cancel)
				return tctx
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tab opened at %s…; tabs: %+v", prefix, tabs)
		}
		time.Sleep(20 * time.Millisecond) // the next look
	}
}

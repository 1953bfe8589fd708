package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"conductorbridge/benchkit/browseserver"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/browsertest"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// browseCLI builds the stand-in of gstack's `$B` (testkit/browsecli).
func browseCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "browse")
	if out, err := exec.Command("go", "build", "-o", bin, "conductorbridge/testkit/browsecli").CombinedOutput(); err != nil {
		t.Fatalf("build the browse CLI: %v\n%s", err, out)
	}
	return bin
}

// TestBrowserActionsInTheSidePanel is the proof: real Claude Code
// runs turns in a workspace whose agent drives the browser through gstack
// (`$B goto …`, here the stand-in browse server and CLI); the real
// side panel in real Chromium offers that workspace because it drives the
// browser, pairs it with a click, and shows the agent's text, its tool
// calls and the browser's actions in one timeline, in the stream's order;
// the browse server restarts, then the bridge does, and no action is lost
// or shown twice.
func TestBrowserActionsInTheSidePanel(t *testing.T) {
	chrome := browsertest.Find(t)
	claude := claudetest.Find(t, claudetest.Latest)
	b := browseCLI(t)
	home := t.TempDir()
	dir := filepath.Join(home, "work", "tokyo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run1, err := browseserver.New(dir, browseserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(run1.Close)
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Text("Hello! What shall I check?")),
		fakemodel.Reply(fakemodel.Text("I'll open the login page."), fakemodel.Bash("$B goto https://example.com/login")),
		fakemodel.Reply(fakemodel.Bash("$B click @e3")),
		fakemodel.Reply(fakemodel.Text("Signed in; the dashboard shows 3 alerts.")),
		fakemodel.Reply(fakemodel.Bash("$B goto https://example.com/settings")),
		fakemodel.Reply(fakemodel.Text("Settings are open.")),
		fakemodel.Reply(fakemodel.Bash("$B text")),
		fakemodel.Reply(fakemodel.Text("The page says Example Domain.")),
	)
	port, _ := freePort()
	p := startBridgeProc(t, home, port)

	// The side panel, installed as a person installs it; nothing paired.
	panel := openPanel(t, chrome, &viewerEnv{t: t, home: home, port: port, addr: fmt.Sprintf("127.0.0.1:%d", port), p: p})
	ctx := panel.ctx
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(300, 900)); err != nil {
		t.Fatal(err)
	}
	poll := func(what, expr string) { browsertest.Poll(t, ctx, what, expr, time.Minute) }
	poll("the nothing-paired state", `document.querySelector('#notice').dataset.state === 'Pair a workspace from the menu bar'`)

	// Claude Code's first turn drives the browser.
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := claudetest.Start(cctx, claudetest.Options{Bin: claude, BaseURL: fm.URL(), Home: home, Dir: dir, Env: []string{"B=" + b}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	turn := func(prompt string) {
		t.Helper()
		if err := s.Send(prompt); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WaitResult(cctx); err != nil {
			t.Fatal(err)
		}
	}
	turn("hello")
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.Browser })

	// The panel offers tokyo, the workspace driving this browser: one click.
	poll("the offer", `document.querySelector('#notice').dataset.state === 'tokyo is driving this browser — pair?'`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#notice-action"))); err != nil {
		t.Fatal(err)
	}
	poll("tokyo shown, live browser", `document.querySelector('#notice').hidden && document.querySelector('#workspace').textContent.includes('tokyo') &&
		document.querySelector('#browser').dataset.live === 'true'`)
	poll("the first turn", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('What shall I check'))`)

	// A turn that drives the browser, watched live.
	turn("log in and check the dashboard")
	poll("the second turn", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('3 alerts'))`)
	same := func(when string, browseActions int) {
		t.Helper()
		evs := streamOf(t, p, ws.ID)
		if n := count(event.Browse)(evs); n != browseActions {
			t.Errorf("%s: %d browse events in the stream, want %d: %v", when, n, browseActions, kinds(evs))
		}
		checkTimeline(t, ctx, evs, when)
	}
	poll("the click ended", `[...document.querySelectorAll('#log .browse')].some(n => n.textContent.includes('@e3') && n.classList.contains('done'))`)
	same("after the first turn", 4)
	inOrder(t, ctx, "the browsing turn", "you:log in and check the dashboard", "claude:I'll open the login page.",
		"tool:Bash $B goto https://example.com/login", "browse:goto https://example.com/login",
		"tool:Bash $B click @e3", "browse:click @e3", "claude:Signed in; the dashboard shows 3 alerts.")

	// The browse server restarts (a new run, its ids from 1 again).
	run1.Close()
	poll("the browser gone", `document.querySelector('#browser').dataset.live === 'false'`)
	run2, err := browseserver.New(dir, browseserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(run2.Close)
	p.waitFor(func(w apiWorkspace) bool { return w.ID == ws.ID && w.Browser })
	turn("now open the settings")
	poll("the second run's action", `[...document.querySelectorAll('#log .browse.done')].some(n => n.textContent.includes('settings'))`)
	poll("the second turn", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('Settings are open'))`)
	same("after the browse server's restart", 6)
	inOrder(t, ctx, "the turn after the browse server's restart", "you:now open the settings",
		"tool:Bash $B goto https://example.com/settings", "browse:goto https://example.com/settings", "claude:Settings are open.")

	// The bridge restarts; meanwhile the agent reads the page.
	p.kill(syscall.SIGTERM)
	turn("what does the page say?")
	p = startBridgeProc(t, home, port)
	panel.p = p
	poll("the turn made while the bridge was down", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('Example Domain'))`)
	poll("its browser action", `[...document.querySelectorAll('#log .browse.done')].some(n => n.querySelector('.name').textContent === 'text')`)
	same("after the bridge's restart", 8)
	inOrder(t, ctx, "the turn while the bridge was down", "you:what does the page say?",
		"tool:Bash $B text", "browse:text", "claude:The page says Example Domain.")
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll('#log .browse').length`); n != 4 {
		t.Errorf("%d browser rows, want 4 (each command's start and end in one)", n)
	}
	// The header's browser pill folds the browser's rows away, and back.
	visible := `[...document.querySelectorAll('#log .browse')].filter(n => n.offsetParent !== null).length`
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#browser"))); err != nil {
		t.Fatal(err)
	}
	if n := browsertest.Eval[int](t, ctx, visible); n != 0 {
		t.Errorf("%d browser rows shown, folded away", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#browser"))); err != nil {
		t.Fatal(err)
	}
	if n := browsertest.Eval[int](t, ctx, visible); n != 4 {
		t.Errorf("%d browser rows shown, unfolded", n)
	}
	screenshot(t, ctx, "browse-side-panel.png")

	// The built-in viewer draws the same timeline, and says the browser is live.
	out, err := runCLI(t, "open", "--print", "--addr", strings.TrimPrefix(p.base, "http://"), "--home", home, ws.ID)
	link := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if err != nil || !strings.HasPrefix(link, p.base+"/open/") {
		t.Fatalf("open: %v %s", err, out)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	poll("the viewer's timeline", `document.querySelectorAll('#log .browse.done').length === 4 && document.querySelector('#browser').dataset.live === 'true'`)
	inOrder(t, ctx, "the viewer", "tool:Bash $B goto https://example.com/login", "browse:goto https://example.com/login",
		"tool:Bash $B click @e3", "browse:click @e3", "claude:Signed in; the dashboard shows 3 alerts.",
		"browse:goto https://example.com/settings", "browse:text", "claude:The page says Example Domain.")
}

// streamOf reads ws's whole stream as it stands.
func streamOf(t *testing.T, p *bridgeProc, ws string) []event.Event {
	t.Helper()
	last := p.waitFor(func(w apiWorkspace) bool { return w.ID == ws }).LastEventID
	c := openStream(t, p, ws, 0)
	defer c.cancel()
	return c.until(t, 30*time.Second, func(evs []event.Event) bool { return len(evs) > 0 && evs[len(evs)-1].ID >= last })
}

// checkTimeline checks that the panel shows every event of the stream it
// draws exactly once, in the stream's order: a browser command's end in
// its start's row, a tool's result in its call's badge, status changes
// only in the header.
func checkTimeline(t *testing.T, ctx context.Context, evs []event.Event, when string) {
	t.Helper()
	var want []int64
	for _, e := range evs {
		if e.Type != event.Status || e.State == event.StateNeedsInput {
			want = append(want, e.ID)
		}
	}
	var got []int64
	deadline := time.Now().Add(time.Minute)
	for {
		got = browsertest.Eval[[]int64](t, ctx, `[...document.querySelectorAll('#log [data-id], #log [data-end-id]')]
			.flatMap(n => [n.dataset.id, n.dataset.endId].filter(Boolean).map(Number))`)
		sorted := slices.Clone(got)
		slices.Sort(sorted)
		sorted = slices.Compact(sorted)
		if slices.Equal(sorted, want) && len(sorted) == len(got) || time.Now().After(deadline) {
			if !slices.Equal(sorted, want) || len(sorted) != len(got) {
				t.Errorf("%s: the panel shows ids\n %v\nthe stream has\n %v", when, got, want)
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// inOrder checks that the panel shows rows matching keys in that order
// (other rows may come between): "you:", "claude:", "tool:" and
// "browse:" rows, by the start of their text.
func inOrder(t *testing.T, ctx context.Context, what string, keys ...string) {
	t.Helper()
	rows := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#log > *')].map(n => {
		if (n.classList.contains('bubble')) return (n.classList.contains('you') ? 'you:' : 'claude:') + n.textContent;
		const s = n.querySelector('summary');
		if (!s) return n.className + ':' + n.textContent;
		const kind = n.classList.contains('browse') ? 'browse:' : 'tool:';
		return kind + s.querySelector('.name').textContent + ' ' + s.querySelector('.input').textContent;
	})`)
	at := 0
	for _, k := range keys {
		i := slices.IndexFunc(rows[at:], func(r string) bool { return strings.HasPrefix(r, k) })
		if i < 0 {
			t.Errorf("%s: no %q after row %d in the panel:\n%s", what, k, at, strings.Join(rows, "\n"))
			return
		}
		at += i + 1
	}
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot: %s", path)
}

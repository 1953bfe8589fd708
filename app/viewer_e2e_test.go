package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/inject"
	"conductorbridge/testkit/browsertest"
)

// transcriptWriter appends Claude Code 2.1-format records to a session file.
type transcriptWriter struct {
	t    testing.TB
	path string
	cwd  string
	n    int
	ts   time.Time
}

func newTranscript(t testing.TB, home, name string) *transcriptWriter {
	t.Helper()
	dir := filepath.Join(home, "work", name)
	proj := filepath.Join(home, ".claude", "projects", claude.EncodeProjectDir(dir))
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(proj, 0o755)
	w := &transcriptWriter{t: t, path: filepath.Join(proj, "0a0a0a0a-1111-4111-8111-"+fmt.Sprintf("%012x", len(name))+".jsonl"),
		cwd: dir, ts: time.Now().UTC().Add(-time.Hour)}
	w.prompt("hello from " + name)
	return w
}

func (w *transcriptWriter) write(rec map[string]any) {
	w.t.Helper()
	w.n++
	w.ts = w.ts.Add(1500 * time.Millisecond)
	rec["uuid"] = fmt.Sprintf("u-%d", w.n)
	rec["sessionId"] = strings.TrimSuffix(filepath.Base(w.path), ".jsonl")
	rec["cwd"] = w.cwd
	rec["version"] = "2.1.328"
	rec["timestamp"] = w.ts.Format(time.RFC3339Nano)
	b, _ := json.Marshal(rec)
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	f.Write(append(b, '\n'))
}

func (w *transcriptWriter) prompt(text string) {
	w.write(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (w *transcriptWriter) assistant(stop any, blocks ...map[string]any) {
	id := fmt.Sprintf("msg_%d", w.n)
	w.write(map[string]any{"type": "assistant", "requestId": "req_" + id, "message": map[string]any{
		"id": id, "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": blocks, "stop_reason": stop,
		"usage": map[string]any{"input_tokens": 1200, "output_tokens": 340, "cache_read_input_tokens": 5000, "cache_creation_input_tokens": 0},
	}})
}

func (w *transcriptWriter) tool(name string, input map[string]any, output string, isErr bool) {
	id := fmt.Sprintf("toolu_%d", w.n)
	w.assistant("tool_use", map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
	w.write(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": output, "is_error": isErr}}}})
}

// turn writes a whole turn that uses every tool the viewer has an icon for.
func (w *transcriptWriter) turn(prompt, answer string) {
	w.prompt(prompt)
	w.assistant(nil, map[string]any{"type": "thinking", "thinking": "Let me look at the login form first.", "signature": "s"})
	w.assistant(nil, map[string]any{"type": "text", "text": `Checking <b>login</b> & <img src=x onerror="document.title='pwned'">`})
	w.tool("Bash", map[string]any{"command": "npm test"}, "12 passing", false)
	w.tool("Read", map[string]any{"file_path": w.cwd + "/src/login.tsx"}, strings.Repeat("const x = 1;\n", 200), false)
	w.tool("Edit", map[string]any{"file_path": w.cwd + "/src/login.tsx", "old_string": "a", "new_string": "b"}, "edited", false)
	w.tool("Write", map[string]any{"file_path": w.cwd + "/NOTES.md", "content": "notes"}, "written", false)
	w.tool("Grep", map[string]any{"pattern": "onSubmit"}, "src/login.tsx:12", false)
	w.tool("Glob", map[string]any{"pattern": "src/**/*.tsx"}, "src/login.tsx", false)
	w.tool("Task", map[string]any{"description": "review styles", "prompt": "review"}, "looks fine", false)
	w.tool("WebFetch", map[string]any{"url": "http://localhost:3000/login"}, "<html>…", false)
	w.tool("mcp__github__create_issue", map[string]any{"title": "x"}, "created #4", false)
	w.tool("Bash", map[string]any{"command": "npm run e2e"}, "Error: browser not found", true)
	w.assistant("end_turn", map[string]any{"type": "text", "text": answer})
}

// viewerEnv is a bridge on a fake home with two workspaces, tokyo paired
// with Chrome and osaka not, and a Chromium tab on the viewer.
type viewerEnv struct {
	t            testing.TB
	home, addr   string
	port         int
	p            *bridgeProc
	tokyo, osaka *transcriptWriter
	wsA, wsB     apiWorkspace
	ctx          context.Context
	link         string // the one-time link the viewer was last opened with
}

// newTwoWorkspaces starts a bridge on a home with two plain Claude Code
// projects, tokyo and osaka, each with a first prompt; nothing is paired.
func newTwoWorkspaces(t testing.TB) *viewerEnv {
	home := t.TempDir()
	e := &viewerEnv{t: t, home: home}
	e.tokyo = newTranscript(t, home, "tokyo")
	e.osaka = newTranscript(t, home, "osaka")
	e.port, _ = freePort()
	e.addr = fmt.Sprintf("127.0.0.1:%d", e.port)
	e.p = startBridgeProc(t, home, e.port)
	e.wsA = e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.tokyo.cwd && w.LastEventID > 0 })
	e.wsB = e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.osaka.cwd && w.LastEventID > 0 })
	return e
}

func newViewerEnv(t testing.TB) *viewerEnv {
	chrome := browsertest.Find(t)
	e := newTwoWorkspaces(t)
	if out, err := runCLI(t, "pair", "--addr", e.addr, "--home", e.home, "tokyo"); err != nil || !strings.Contains(out, "is paired") {
		t.Fatalf("pair: %v %s", err, out)
	}
	e.ctx = browsertest.New(t, chrome)
	e.openViewer()
	return e
}

// openViewer opens a fresh one-time link, as `conductor-bridge open` does.
func (e *viewerEnv) openViewer() string {
	e.t.Helper()
	out, err := runCLI(e.t, "open", "--print", "--addr", e.addr, "--home", e.home)
	link := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if err != nil || !strings.HasPrefix(link, "http://"+e.addr+"/open/") {
		e.t.Fatalf("open: %v %s", err, out)
	}
	if err := chromedp.Do(e.ctx, chromedp.EmulateViewport(300, 760), chromedp.Navigate(link)); err != nil {
		e.t.Fatal(err)
	}
	browsertest.Poll(e.t, e.ctx, "the workspace list", `document.querySelectorAll('#workspace option').length > 0`, 10*time.Second)
	e.link = link
	return link
}

func (e *viewerEnv) poll(what, expr string) {
	e.t.Helper()
	browsertest.Poll(e.t, e.ctx, what, expr, 15*time.Second)
}

// renderedIDs lists the event ids the page shows, in document order.
func (e *viewerEnv) renderedIDs() []int64 {
	return browsertest.Eval[[]int64](e.t, e.ctx, `[...document.querySelectorAll('#log [data-id]')].map(n => Number(n.dataset.id))`)
}

// shownIDs lists the ids of the events in a workspace's stream that the
// viewer draws (it draws every event but plain status changes).
func (e *viewerEnv) shownIDs(ws string) []int64 {
	e.t.Helper()
	last := e.p.waitFor(func(w apiWorkspace) bool { return w.ID == ws }).LastEventID
	c := openStream(e.t, e.p, ws, 0)
	defer c.cancel()
	evs := c.until(e.t, 10*time.Second, func(evs []event.Event) bool { return len(evs) > 0 && evs[len(evs)-1].ID >= last })
	var ids []int64
	for _, ev := range evs {
		if ev.Type != event.Status || ev.State == event.StateNeedsInput {
			ids = append(ids, ev.ID)
		}
	}
	return ids
}

// sameEvents checks that the page shows each of ws's events exactly once:
// none twice, none missing.
func (e *viewerEnv) sameEvents(ws, when string) []int64 {
	e.t.Helper()
	got := e.renderedIDs()
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if want := e.shownIDs(ws); !slices.Equal(sorted, want) {
		e.t.Errorf("ids %s:\n got %v\nwant %v", when, got, want)
	}
	return got
}

// send types a message in the page's box and presses Enter.
func (e *viewerEnv) send(text string) {
	e.t.Helper()
	if err := chromedp.Do(e.ctx, chromedp.SendKeys(chromedp.CSS("#message"), text), chromedp.KeyEvent("\r")); err != nil {
		e.t.Fatal(err)
	}
}

// queue is ws's messages, as the API lists them.
func (e *viewerEnv) queue(ws string) []inject.Message {
	var list struct{ Messages []inject.Message }
	getJSON(context.Background(), e.p.cl(), "/workspace/"+ws+"/session/messages", e.p.token(), &list)
	return list.Messages
}

func (e *viewerEnv) screenshot(name string) {
	png, err := chromedp.Run(e.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		e.t.Errorf("screenshot: %v", err)
		return
	}
	path := filepath.Join(e.t.(*testing.T).ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		e.t.Error(err)
	}
	e.t.Logf("screenshot: %s", path)
}

func TestViewerInRealChromium(t *testing.T) {
	e := newViewerEnv(t)

	// Only the paired workspace is offered.
	names := browsertest.Eval[[]string](t, e.ctx, `[...document.querySelectorAll('#workspace option')].map(o => o.textContent)`)
	if len(names) != 1 || !strings.Contains(names[0], "tokyo") {
		t.Fatalf("workspace picker offers %q, want only tokyo", names)
	}
	if loc := browsertest.Eval[string](t, e.ctx, `location.pathname + location.search`); loc != "/?ws="+e.wsA.ID {
		t.Errorf("viewer location %q", loc)
	}
	// The page never holds the token in anything a script can read.
	token := e.p.token()
	store := browsertest.Eval[string](t, e.ctx, `JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie + document.documentElement.outerHTML`)
	if strings.Contains(store, token) || strings.Contains(store, "cb_session") {
		t.Error("token or session cookie readable by the page's script")
	}

	// A live turn renders as bubbles, one badge per tool, and a turn line.
	e.tokyo.turn("check the login page", "The login page works; the e2e run needs a browser.")
	e.poll("the turn line", `[...document.querySelectorAll('#log .turn')].some(n => n.textContent.includes('$'))`)
	e.poll("the final answer", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('e2e run needs a browser'))`)
	tools := browsertest.Eval[[]string](t, e.ctx, `[...document.querySelectorAll('#log .tool')].map(n => n.dataset.tool + ':' + n.querySelector('.name').textContent)`)
	want := []string{"bash:Bash", "read:Read", "edit:Edit", "write:Write", "grep:Grep", "glob:Glob", "task:Task", "web:WebFetch", "other:mcp__github__create_issue", "bash:Bash"}
	if !slices.Equal(tools, want) {
		t.Errorf("tool badges:\n got %q\nwant %q", tools, want)
	}
	// Results are folded into their badge; the failed one is marked.
	if n := browsertest.Eval[int](t, e.ctx, `document.querySelectorAll('#log .tool[open]').length`); n != 0 {
		t.Errorf("%d tool results shown open, want all collapsed", n)
	}
	if n := browsertest.Eval[int](t, e.ctx, `document.querySelectorAll('#log .tool > .result').length`); n != 10 {
		t.Errorf("%d results folded into badges, want 10", n)
	}
	if failed := browsertest.Eval[string](t, e.ctx, `document.querySelector('#log .tool.failed .result').textContent`); !strings.Contains(failed, "browser not found") {
		t.Errorf("failed result %q", failed)
	}
	turn := browsertest.Eval[string](t, e.ctx, `[...document.querySelectorAll('#log .turn')].pop().textContent`)
	for _, part := range []string{"in", "out", "$0.", "s ·", "claude-sonnet-4-5"} {
		if !strings.Contains(turn, part) {
			t.Errorf("turn line %q lacks %q", turn, part)
		}
	}
	// Transcript text is text: the markup in Claude's answer is shown, not run.
	html := browsertest.Eval[string](t, e.ctx, `[...document.querySelectorAll('.bubble.claude')].map(n => n.textContent).join('\n')`)
	if !strings.Contains(html, `<img src=x onerror="document.title='pwned'">`) {
		t.Errorf("markup not shown as text: %q", html)
	}
	if n := browsertest.Eval[int](t, e.ctx, `document.querySelectorAll('#log img, #log b').length`); n != 0 || browsertest.Eval[string](t, e.ctx, `document.title`) == "pwned" {
		t.Error("transcript markup was rendered as HTML")
	}

	// Needs input is highlighted.
	e.hook("notification", map[string]any{"session_id": "s", "transcript_path": e.tokyo.path, "cwd": e.tokyo.cwd,
		"hook_event_name": "Notification", "notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash"})
	e.poll("the needs-input highlight", `document.querySelector('#log .needs-input') !== null && document.querySelector('#state').textContent === 'needs input'`)

	// Killed and restarted: the page recovers, nothing twice, nothing missing.
	before := len(e.renderedIDs())
	e.poll("the live indicator", `document.querySelector('#conn').classList.contains('live')`)
	e.p.kill(syscall.SIGKILL)
	e.poll("the reconnecting indicator", `document.querySelector('#conn').classList.contains('retry') && !document.querySelector('#conn-text').hidden`)
	e.tokyo.prompt("written while the bridge was down")
	e.tokyo.assistant("end_turn", map[string]any{"type": "text", "text": "answered while the bridge was down"})
	e.p = startBridgeProc(t, e.home, e.port)
	e.poll("the events written while down", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('while the bridge was down'))`)
	e.tokyo.assistant("end_turn", map[string]any{"type": "text", "text": "after the restart"})
	e.poll("an event after the restart", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent.includes('after the restart'))`)
	e.poll("the live indicator again", `document.querySelector('#conn').classList.contains('live')`)
	if got := e.sameEvents(e.wsA.ID, "after the restart"); len(got) <= before {
		t.Errorf("nothing new rendered after the restart: %v", got)
	}

	// A message typed in the page is queued for that workspace.
	e.send("no, test the mobile view")
	e.poll("the sent message", `document.querySelector('#sent li') !== null`)
	if q := e.queue(e.wsA.ID); len(q) != 1 || q[0].Text != "no, test the mobile view" || q[0].State != inject.Queued {
		t.Errorf("queue of %s: %+v", e.wsA.ID, q)
	}
	if q := e.queue(e.wsB.ID); len(q) != 0 {
		t.Errorf("the unpaired workspace got messages: %+v", q)
	}
	e.screenshot("viewer.png")

	// The cookie Chromium holds is HttpOnly and Strict; neither it, the
	// token nor the link's code is in the bridge's logs; the state is private.
	jar, err := chromedp.CallBrowser(e.ctx, storage.GetCookies, storage.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	var cookie *network.Cookie
	for _, c := range jar.Cookies {
		if c.Name == "cb_session" {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HTTPOnly || cookie.SameSite != network.CookieSameSiteStrict || cookie.Path != "/" {
		t.Fatalf("session cookie in Chromium: %+v", cookie)
	}
	logs, _ := filepath.Glob(filepath.Join(e.p.stateDir(), "logs", "*.log"))
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), cookie.Value) || strings.Contains(string(b), token) ||
			strings.Contains(string(b), strings.TrimPrefix(e.link, "http://"+e.addr+"/open/")) {
			t.Errorf("a secret is in %s", f)
		}
	}
	for _, name := range []string{tokenFile, hookSecretFile, pairingFile} {
		if info, err := os.Stat(filepath.Join(e.p.stateDir(), name)); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", name, info.Mode().Perm(), err)
		}
	}

	// The link it was opened with is useless a second time.
	if err := chromedp.Do(e.ctx, chromedp.Navigate(e.link)); err != nil {
		t.Fatal(err)
	}
	if body := browsertest.Eval[string](t, e.ctx, `document.body.innerText`); !strings.Contains(body, "already used") {
		t.Errorf("second use of the link: %q", body)
	}
	e.openViewer()

	// Unpairing from the CLI: the page says nothing is paired.
	if out, err := runCLI(t, "unpair", "--addr", e.addr, "--home", e.home, e.wsA.ID); err != nil {
		t.Fatalf("unpair: %v %s", err, out)
	}
	e.poll("the nothing-paired notice", `!document.querySelector('#notice').hidden && document.querySelector('#notice').textContent.includes('No workspace is paired')`)
}

// hook calls the bridge the way `conductor-bridge hook` does.
func (e *viewerEnv) hook(name string, body map[string]any) {
	e.t.Helper()
	secret, err := os.ReadFile(filepath.Join(e.p.stateDir(), hookSecretFile))
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, e.p.base+"/hook/"+name, strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(secret)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		e.t.Fatalf("hook %s: %s", name, resp.Status)
	}
}

// hostilePage tries everything a web page on another localhost port could
// do to the bridge, in the browser that holds the viewer's cookie, and
// records what it managed to read.
const hostilePage = `<!doctype html><title>hostile</title>
<iframe name="sink" style="display:none"></iframe>
<form id="f" method="POST" enctype="text/plain" target="sink"><input id="i"></form>
<script>
const B = %q, WS = %q;
const results = {};
const settle = (p, ms) => Promise.race([p, new Promise(r => setTimeout(() => r('timeout'), ms))]);
async function run() {
  results.fetchList = await fetch(B + '/api/workspaces', {credentials: 'include'})
    .then(r => r.text()).catch(e => 'blocked: ' + e.name);
  results.fetchUsage = await fetch(B + '/api/usage?by=workspace', {credentials: 'include'})
    .then(r => r.text()).catch(e => 'blocked: ' + e.name);
  results.noCorsList = await fetch(B + '/api/workspaces', {mode: 'no-cors', credentials: 'include'})
    .then(r => r.type + ':' + r.status).catch(e => 'blocked: ' + e.name);
  results.eventSource = await settle(new Promise(resolve => {
    const es = new EventSource(B + '/workspace/' + WS + '/session/stream', {withCredentials: true});
    es.onmessage = () => resolve('read an event');
    for (const t of ['assistant', 'user', 'tool_use', 'session', 'pairing']) es.addEventListener(t, () => resolve('read an event'));
    es.onerror = () => { if (es.readyState === EventSource.CLOSED) resolve('closed'); };
  }), 3000);
  results.jsonPost = await fetch(B + '/workspace/' + WS + '/session/messages', {method: 'POST', credentials: 'include',
    headers: {'Content-Type': 'application/json'}, body: JSON.stringify({message: 'pwned by fetch json'})})
    .then(r => 'status ' + r.status).catch(e => 'blocked: ' + e.name);
  results.noCorsPost = await fetch(B + '/workspace/' + WS + '/session/messages', {method: 'POST', mode: 'no-cors',
    credentials: 'include', headers: {'Content-Type': 'text/plain'}, body: JSON.stringify({message: 'pwned by no-cors fetch'})})
    .then(r => r.type).catch(e => 'blocked: ' + e.name);
  const f = document.getElementById('f'), i = document.getElementById('i');
  f.action = B + '/workspace/' + WS + '/session/messages';
  i.name = '{"message":"pwned by form","x":"';
  i.value = '"}';
  f.submit();
  await new Promise(r => setTimeout(r, 1000));
  results.done = true;
}
window.results = results;
run();
</script>`

// hostileResults serves hostilePage, aimed at the bridge and workspace
// ws, on another localhost port, opens it in e's Chromium, and returns
// what its attacks got once they are done, and the page's origin.
func (e *viewerEnv) hostileResults(ws string) (map[string]any, string) {
	e.t.Helper()
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, hostilePage, "http://"+e.addr, ws)
	}))
	defer hostile.Close()
	if err := chromedp.Do(e.ctx, chromedp.Navigate(hostile.URL)); err != nil {
		e.t.Fatal(err)
	}
	e.poll("the attacks to finish", `window.results && window.results.done === true`)
	return browsertest.Eval[map[string]any](e.t, e.ctx, `window.results`), hostile.URL
}

// TestHostilePageCannotReachTheBridge serves a page on another localhost
// port, in the Chromium that has the viewer open (and its cookie), and
// checks it can neither read a workspace list or a stream nor inject.
func TestHostilePageCannotReachTheBridge(t *testing.T) {
	e := newViewerEnv(t)
	res, origin := e.hostileResults(e.wsA.ID)
	t.Logf("hostile page results: %v", res)
	for k, v := range res {
		s := fmt.Sprint(v)
		if strings.Contains(s, e.wsA.ID) || strings.Contains(s, "tokyo") || strings.Contains(s, "read an event") {
			t.Errorf("%s: the page read %q", k, s)
		}
	}
	if !strings.HasPrefix(fmt.Sprint(res["fetchList"]), "blocked") || !strings.HasPrefix(fmt.Sprint(res["fetchUsage"]), "blocked") ||
		res["eventSource"] != "closed" ||
		!strings.HasPrefix(fmt.Sprint(res["jsonPost"]), "blocked") {
		t.Errorf("expected refusals: %v", res)
	}
	// Nothing reached the queue, by any route.
	var list struct{ Messages []inject.Message }
	getJSON(context.Background(), e.p.cl(), "/workspace/"+e.wsA.ID+"/session/messages", e.p.token(), &list)
	if len(list.Messages) != 0 {
		t.Errorf("a hostile page injected: %+v", list.Messages)
	}
	// The refusals are the bridge's, not only the browser's: the form post
	// and the no-cors fetch reached it and were answered 403.
	refused := 0
	logs, _ := filepath.Glob(filepath.Join(e.p.stateDir(), "logs", "*.log"))
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "request refused") && strings.Contains(line, `"method":"POST"`) &&
				strings.Contains(line, "/workspace/"+e.wsA.ID+"/session/messages") && strings.Contains(line, origin) {
				refused++
			}
		}
	}
	if refused < 2 {
		t.Errorf("the bridge refused %d hostile POSTs, want the form's and the no-cors fetch's", refused)
	}
}

// A reloaded viewer keeps no secret to sign in again with: it says to open
// it from the menu bar, and a new link signs it in (issue 24: whatever a
// page of the origin could read, a page served there by someone else
// could read too).
func TestReloadedViewerIsSignedOut(t *testing.T) {
	e := newViewerEnv(t)
	if h := browsertest.Eval[string](t, e.ctx, `location.hash + JSON.stringify(sessionStorage) + JSON.stringify(localStorage)`); h != "{}{}" {
		t.Errorf("the page kept %q", h)
	}
	// Signed in, the header links to the usage page with this run's key.
	e.poll("the usage link", `document.querySelector('#usage-link').href.includes('/usage#pk=')`)
	if err := chromedp.Do(e.ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	e.poll("the signed-out notice", `!document.querySelector('#notice').hidden && document.querySelector('#notice').textContent.includes('not signed in') && document.querySelector('#composer').hidden`)
	// Signed out, the page is the notice, at the top: no empty log above
	// it, no Send box below it (hidden is not display: none for a grid).
	if ok := browsertest.Eval[bool](t, e.ctx, `getComputedStyle(document.querySelector('#composer')).display === 'none' &&
		document.querySelector('#notice').getBoundingClientRect().top < 100 && document.querySelector('#usage-link').hidden`); !ok {
		t.Error("the signed-out viewer shows a Send box, an empty log above its notice, or a usage link")
	}
	// So is the usage page, which names the command that opens it.
	if err := chromedp.Do(e.ctx, chromedp.Navigate("http://"+e.addr+"/usage")); err != nil {
		t.Fatal(err)
	}
	e.poll("the usage page's signed-out notice", `!document.querySelector('#notice').hidden && document.querySelector('#notice').textContent.includes('not signed in') && document.querySelector('#notice').textContent.includes('conductor-bridge open --usage')`)
	e.openViewer()
	e.send("signed in again")
	e.poll("the message sent", `document.querySelector('#sent li') !== null`)
	if q := e.queue(e.wsA.ID); len(q) != 1 || q[0].Text != "signed in again" {
		t.Errorf("queue: %+v", q)
	}
}

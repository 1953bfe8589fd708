package assets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"conductorbridge/testkit/browsertest"
)

// Two agent sessions in one workspace, as the bridge's API and stream
// describe them (README's API table, bridge/api/SIDEPANEL.md): a Claude
// tab on screen and a background Codex tab.
const (
	claudeTab = "aaaaaaaa-1111-4111-8111-000000000001"
	codexTab  = "019a4f2e-7c3d-7000-8000-00000000c0de"
)

var tabsWorkspace = map[string]any{
	"id": "w1", "name": "tokyo", "display_name": "Login revamp", "repo": "shop", "branch": "me/tokyo",
	"paired": true, "status": "needs_input", "reason": "question", "session_id": claudeTab,
	"sessions": []map[string]any{
		{"session_id": claudeTab, "conductor_session_id": "cs-1", "agent": "claude", "title": "Fix login",
			"status": "working", "active": true, "unread": 0, "pid": 0, "model": "claude-sonnet-4-5", "last_event_id": 7},
		{"session_id": codexTab, "conductor_session_id": "cs-2", "agent": "codex", "title": "",
			"status": "needs_input", "reason": "question", "active": false, "unread": 1, "pid": 0, "model": "gpt-5.1-codex", "last_event_id": 9},
	},
}

var oneTabWorkspace = map[string]any{
	"id": "w2", "name": "osaka", "repo": "shop", "paired": true, "status": "idle",
	"sessions": []map[string]any{{"session_id": "bbbbbbbb-2222", "agent": "claude", "title": "Only tab", "status": "idle", "active": true}},
}

// newTabWorkspace has a Conductor tab nothing was sent in yet: the bridge
// lists it with why messages cannot reach it.
const noTranscript = "this Claude session has no transcript yet (nothing has been sent in it): send its first message in Conductor, then the bridge can deliver"

var newTabWorkspace = map[string]any{
	"id": "w3", "name": "kyoto", "repo": "shop", "paired": true, "status": "idle",
	"sessions": []map[string]any{{"session_id": "cccccccc-3333", "agent": "claude", "title": "New tab", "status": "idle",
		"active": true, "streamed": false, "messages_blocked": noTranscript}},
}

// tabsEvents is the interleaved stream of w1: each event names its session.
var tabsEvents = []map[string]any{
	{"id": 1, "type": "user", "session_id": claudeTab, "agent": "claude", "system": true,
		"content": "<system_instruction>You are working in a Conductor workspace…</system_instruction>"},
	{"id": 2, "type": "user", "session_id": claudeTab, "agent": "claude", "content": "fix the login form"},
	{"id": 3, "type": "assistant", "session_id": claudeTab, "agent": "claude", "content": "Looking at the form."},
	{"id": 4, "type": "user", "session_id": codexTab, "agent": "codex", "system": true,
		"content": "<environment_context><cwd>/w/tokyo</cwd></environment_context>"},
	{"id": 5, "type": "user", "session_id": codexTab, "agent": "codex", "content": "rename the submit handler"},
	{"id": 6, "type": "tool_use", "session_id": codexTab, "agent": "codex", "name": "shell", "tool_use_id": "call_1", "input": "npm test"},
	{"id": 7, "type": "turn_complete", "session_id": claudeTab, "agent": "claude", "input_tokens": 1200, "output_tokens": 340,
		"cost_usd": 0.0123, "cost_known": true, "subagent_cost_usd": 0.12, "duration_ms": 4000, "model": "claude-sonnet-4-5"},
	{"id": 8, "type": "tool_result", "session_id": codexTab, "agent": "codex", "name": "shell", "tool_use_id": "call_1", "output": "12 passing"},
	{"id": 9, "type": "turn_complete", "session_id": codexTab, "agent": "codex", "input_tokens": 900, "output_tokens": 80,
		"cost_usd": nil, "cost_known": false, "duration_ms": 2500, "model": "gpt-9-codex"},
	{"id": 10, "type": "status", "session_id": codexTab, "agent": "codex", "state": "needs_input", "reason": "question"},
}

// fakeBridge serves the viewer and answers the API with canned sessions
// and events, so real Chromium runs the real viewer.js, panel.js,
// page.js and render.js against the session-aware wire.
type fakeBridge struct {
	mu   sync.Mutex
	sent []map[string]any // message bodies posted
	// moveOn, when closed, makes the open tab streams say the Codex tab
	// went idle (a new one for each page).
	moveOn chan struct{}
}

// codexIdle is what the streams send once moveOn closes.
var codexIdle = map[string]any{"id": 11, "type": "status", "session_id": codexTab, "agent": "codex", "state": "idle"}

func (f *fakeBridge) later() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.moveOn
}

func (f *fakeBridge) posted() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

func sse(w http.ResponseWriter, r *http.Request, evs []map[string]any) {
	sseLater(w, r, evs, nil)
}

// sseLater sends evs, and then the events of then once later closes.
func sseLater(w http.ResponseWriter, r *http.Request, evs []map[string]any, later <-chan struct{}, then ...map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	write := func(evs []map[string]any) {
		for _, e := range evs {
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "id: %v\nevent: %s\ndata: %s\n\n", e["id"], e["type"], b)
		}
		w.(http.Flusher).Flush()
	}
	write(evs)
	select {
	case <-later:
		write(then)
	case <-r.Context().Done():
		return
	}
	<-r.Context().Done()
}

func (f *fakeBridge) handler(t *testing.T) http.Handler {
	mux := http.NewServeMux()
	js := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.Handle("GET /viewer/", http.StripPrefix("/viewer/", http.FileServerFS(Viewer)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		b, _ := fs.ReadFile(Viewer, "index.html")
		w.Header().Set("Content-Type", "text/html")
		w.Write(b)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		js(w, 200, map[string]any{"service": "conductor-bridge", "status": "healthy"})
	})
	mux.HandleFunc("POST /sse-session", func(w http.ResponseWriter, r *http.Request) { js(w, 200, map[string]any{}) })
	mux.HandleFunc("GET /api/session", func(w http.ResponseWriter, r *http.Request) { js(w, 200, map[string]any{}) })
	mux.HandleFunc("GET /api/workspaces", func(w http.ResponseWriter, r *http.Request) {
		js(w, 200, map[string]any{"workspaces": []any{tabsWorkspace, oneTabWorkspace, newTabWorkspace}})
	})
	mux.HandleFunc("GET /api/workspaces/{id}", func(w http.ResponseWriter, r *http.Request) {
		switch r.PathValue("id") {
		case "w2":
			js(w, 200, oneTabWorkspace)
			return
		case "w3":
			js(w, 200, newTabWorkspace)
			return
		}
		js(w, 200, tabsWorkspace)
	})
	mux.HandleFunc("GET /workspace/w1/session/stream", func(w http.ResponseWriter, r *http.Request) {
		sseLater(w, r, tabsEvents, f.later(), codexIdle)
	})
	mux.HandleFunc("GET /workspace/w2/session/stream", func(w http.ResponseWriter, r *http.Request) {
		sse(w, r, []map[string]any{{"id": 1, "type": "assistant", "session_id": "bbbbbbbb-2222", "content": "alone here"}})
	})
	mux.HandleFunc("GET /workspace/w3/session/stream", func(w http.ResponseWriter, r *http.Request) { sse(w, r, nil) })
	mux.HandleFunc("GET /session/stream", func(w http.ResponseWriter, r *http.Request) {
		evs := append([]map[string]any{{"id": 0, "type": "session", "reason": "follow", "workspace": "w1", "paired": true}}, tabsEvents...)
		sseLater(w, r, evs, f.later(), codexIdle)
	})
	mux.HandleFunc("GET /workspace/{id}/session/messages", func(w http.ResponseWriter, r *http.Request) {
		// Every message accepted so far has been handed to its agent.
		var list []map[string]any
		for i, m := range f.posted() {
			if m["session_id"] != codexTab {
				list = append(list, map[string]any{"id": fmt.Sprintf("m-%d", i+1), "message": m["message"], "status": "delivered", "session_id": m["session_id"]})
			}
		}
		js(w, 200, map[string]any{"messages": list})
	})
	mux.HandleFunc("POST /workspace/{id}/session/messages", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("message body %q: %v", b, err)
		}
		f.mu.Lock()
		f.sent = append(f.sent, body)
		n := len(f.sent)
		f.mu.Unlock()
		if body["session_id"] == codexTab {
			js(w, 409, map[string]string{"error": "this Codex release has no message route"})
			return
		}
		js(w, 202, map[string]any{"id": fmt.Sprintf("m-%d", n), "status": "queued", "position": 1})
	})
	return mux
}

func TestTabsInTheViewerAndThePanel(t *testing.T) {
	chrome := browsertest.Find(t)
	extDir := t.TempDir()
	if err := WriteExtension(extDir); err != nil {
		t.Fatal(err)
	}
	f := &fakeBridge{}
	srv := httptest.NewServer(f.handler(t))
	t.Cleanup(srv.Close) // after the browsers (cleanups run last first): it waits for their streams

	for _, page := range []struct{ name, url string }{
		{"viewer", srv.URL + "/?ws=w1"},
		{"panel", fmt.Sprintf("chrome-extension://%s/panel.html", ExtensionID)},
	} {
		f.mu.Lock()
		f.moveOn = make(chan struct{})
		f.mu.Unlock()
		t.Run(page.name, func(t *testing.T) {
			// The panel learns the fake bridge's port from a native host
			// (hostForTests), found in this profile's NativeMessagingHosts.
			profile := t.TempDir()
			ctx := browsertest.New(t, chrome,
				chromedp.UserDataDir(profile),
				chromedp.Env(testHostEnv+"="+srv.Listener.Addr().String()),
				chromedp.Flag("disable-extensions", false),
				chromedp.Flag("load-extension", extDir),
				chromedp.Flag("disable-extensions-except", extDir))
			installTestHost(t, profile)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(300, 760), chromedp.Navigate(page.url)); err != nil {
				t.Fatal(err)
			}
			checkTabs(t, ctx, f)
		})
	}

	// A workspace with one session: no labels, no picker.
	ctx := browsertest.New(t, chrome)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?ws=w2")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the one event", `[...document.querySelectorAll('.bubble.claude')].some(n => n.textContent === 'alone here')`)
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll('#log [data-tab]').length`); n != 0 {
		t.Errorf("%d events labelled in a one-tab workspace", n)
	}
	if !browsertest.Eval[bool](t, ctx, `document.querySelector('#tab').hidden && document.querySelector('#target').hidden`) {
		t.Error("a tab picker or a target line for a one-tab workspace")
	}

	// A tab messages cannot reach yet: the box says why before Send, and
	// offers no Send.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?ws=w3")); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, "the reason before Send", `document.querySelector('#target').classList.contains('blocked')`)
	if to := browsertest.Eval[string](t, ctx, `document.querySelector('#target').textContent`); to != "Messages cannot reach New tab · Claude: "+noTranscript {
		t.Errorf("target %q", to)
	}
	if !browsertest.Eval[bool](t, ctx, `document.querySelector('#send').disabled`) {
		t.Error("Send is offered for a tab messages cannot reach")
	}
}

func poll(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	browsertest.Poll(t, ctx, what, expr, 10*time.Second)
}

// checkTabs is what both pages must do with w1's two sessions.
func checkTabs(t *testing.T, ctx context.Context, f *fakeBridge) {
	poll(t, ctx, "every event", `document.querySelector('#log [data-id="10"]') !== null`)
	poll(t, ctx, "the sessions listed", `document.querySelectorAll('#tab option').length === 3`)

	// The workspace goes by the name a person sees (display_name), not its codename.
	shown := browsertest.Eval[string](t, ctx, `(n => n.tagName === 'SELECT' ? n.selectedOptions[0].textContent : n.textContent)(document.querySelector('#workspace'))`)
	if !strings.HasPrefix(shown, "shop / Login revamp") {
		t.Errorf("workspace shown as %q, want its display name", shown)
	}

	// Each event is labelled with its tab; the agent is in the label.
	labels := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#log > [data-id]')].map(n => n.dataset.id + ' ' + (n.dataset.tab || '-'))`)
	want := []string{"1 Fix login · Claude", "2 Fix login · Claude", "3 Fix login · Claude", "4 019a4f2e · Codex", "5 019a4f2e · Codex",
		"6 019a4f2e · Codex", "7 Fix login · Claude", "9 019a4f2e · Codex", "10 019a4f2e · Codex"}
	if !slices.Equal(labels, want) {
		t.Errorf("labels:\n got %q\nwant %q", labels, want)
	}
	// The label is drawn (the style sheet's ::before), not only kept.
	if drawn := browsertest.Eval[string](t, ctx, `getComputedStyle(document.querySelector('#log [data-id="3"]'), '::before').content`); drawn != `"Fix login · Claude"` {
		t.Errorf("label drawn as %s", drawn)
	}

	// Prompts nobody typed are folded away, named by what they are.
	sys := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#log > details.system')].map(d => d.dataset.id + ' ' + d.open + ' ' + d.querySelector('summary').textContent)`)
	if !slices.Equal(sys, []string{"1 false Conductor instructions", "4 false environment context"}) {
		t.Errorf("system prompts: %q", sys)
	}
	if you := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('.bubble.you')].map(n => n.textContent)`); !slices.Equal(you, []string{"fix the login form", "rename the submit handler"}) {
		t.Errorf("the person's bubbles: %q", you)
	}

	// Codex's shell looks like Bash; its result folds into the badge.
	if tool := browsertest.Eval[string](t, ctx, `(n => n.dataset.tool + ' ' + n.classList.contains('done') + ' ' + n.querySelector('.result').textContent)(document.querySelector('#log .tool'))`); tool != "bash true 12 passing" {
		t.Errorf("Codex shell badge: %q", tool)
	}

	// Turn lines: subagents named; an unknown cost is "?" with the model in the tooltip.
	claude := browsertest.Eval[string](t, ctx, `document.querySelector('#log [data-id="7"]').textContent`)
	if !strings.Contains(claude, "$0.0123 (incl. $0.12 subagents)") {
		t.Errorf("Claude turn line %q", claude)
	}
	codex := browsertest.Eval[[]string](t, ctx, `(n => [n.textContent, n.title])(document.querySelector('#log [data-id="9"]'))`)
	if !strings.Contains(codex[0], "$?") || strings.Contains(codex[0], "$0.0000") || !strings.Contains(codex[1], "gpt-9-codex") {
		t.Errorf("Codex turn line %q", codex)
	}
	if s := browsertest.Eval[string](t, ctx, `document.querySelector('#log .needs-input').textContent`); s != "Codex needs your input (question)" {
		t.Errorf("needs input: %q", s)
	}
	// The header shows the most urgent session: the Codex tab's question.
	if s := browsertest.Eval[string](t, ctx, `document.querySelector('#state').textContent`); s != "needs input" {
		t.Errorf("state pill %q", s)
	}

	if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		path := filepath.Join(t.ArtifactDir(), "tabs.png")
		os.WriteFile(path, png, 0o644)
		t.Logf("screenshot: %s", path)
	}

	// The message box says where a message goes: the active tab by default.
	if to := browsertest.Eval[string](t, ctx, `document.querySelector('#target').textContent`); to != "To: Fix login · Claude (active tab)" {
		t.Errorf("target %q", to)
	}
	send(t, ctx, "also check the mobile view")
	poll(t, ctx, "the sent message", `document.querySelector('#sent li') !== null`)
	// Its state follows the bridge's list (GET …/messages, field status).
	poll(t, ctx, "the message delivered", `document.querySelector('#sent li').className === 'delivered'`)
	if li := browsertest.Eval[string](t, ctx, `document.querySelector('#sent li').textContent`); li != "delivered→ Fix login · Claude also check the mobile view" {
		t.Errorf("sent: %q", li)
	}

	// The picker narrows the view to one tab.
	pick(t, ctx, codexTab)
	visible := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#log > [data-id]')].filter(n => !n.hidden && n.offsetParent !== null).map(n => n.dataset.id)`)
	if !slices.Equal(visible, []string{"4", "5", "6", "9", "10"}) {
		t.Errorf("with the Codex tab picked, shown: %q", visible)
	}
	if to := browsertest.Eval[string](t, ctx, `document.querySelector('#target').textContent`); to != "To: 019a4f2e · Codex" {
		t.Errorf("target %q", to)
	}
	// This tab cannot take messages: the box says so instead of pretending.
	send(t, ctx, "rename it to onSubmit")
	poll(t, ctx, "the refusal", `document.querySelector('#target').classList.contains('blocked')`)
	if to := browsertest.Eval[string](t, ctx, `document.querySelector('#target').textContent`); to != "Messages cannot reach 019a4f2e · Codex: this Codex release has no message route" {
		t.Errorf("blocked target %q", to)
	}
	if !browsertest.Eval[bool](t, ctx, `document.querySelector('#send').disabled && document.querySelectorAll('#sent li').length === 1`) {
		t.Error("a refused message looks sent, or the box still offers to send")
	}
	pick(t, ctx, "")
	if n := browsertest.Eval[int](t, ctx, `[...document.querySelectorAll('#log > [data-id]')].filter(n => !n.hidden).length`); n != 9 {
		t.Errorf("all tabs again: %d events shown, want 9", n)
	}
	if browsertest.Eval[bool](t, ctx, `document.querySelector('#send').disabled`) {
		t.Error("the active tab's box stays disabled")
	}

	got := f.posted()
	f.mu.Lock()
	f.sent = nil
	f.mu.Unlock()
	if len(got) != 2 || got[0]["session_id"] != claudeTab || got[0]["message"] != "also check the mobile view" || got[1]["session_id"] != codexTab {
		t.Errorf("posted %v", got)
	}

	// The Codex tab goes idle: its refusal may have been for then only,
	// so its box offers to send again.
	pick(t, ctx, codexTab)
	if !browsertest.Eval[bool](t, ctx, `document.querySelector('#target').classList.contains('blocked')`) {
		t.Error("the refusal did not last until the tab moved on")
	}
	close(f.moveOn)
	poll(t, ctx, "the refusal lifted", `!document.querySelector('#target').classList.contains('blocked') && !document.querySelector('#send').disabled`)
	if to := browsertest.Eval[string](t, ctx, `document.querySelector('#target').textContent`); to != "To: 019a4f2e · Codex" {
		t.Errorf("target after the tab went idle %q", to)
	}
}

func send(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#message"), text), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
}

func pick(t *testing.T, ctx context.Context, session string) {
	t.Helper()
	js := fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event('change')); return s.value; })(document.querySelector('#tab'))`, session)
	if got := browsertest.Eval[string](t, ctx, js); got != session {
		t.Fatalf("picked %q, want %q", got, session)
	}
}

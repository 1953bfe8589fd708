package assets

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/browsertest"
)

// renderPage loads render.js and viewer.css in a page of their own.
const renderPage = `<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="/viewer/viewer.css">
<main id="log"></main>
<script type="module">
import { createRenderer } from '/viewer/render.js';
window.r = createRenderer(document.getElementById('log'));
window.ready = true;
</script>`

// renderTest opens the renderer's page and returns a func adding events
// (with ids in order and the given times; it returns the script that
// added them, to replay), and the tab.
func renderTest(t *testing.T) (add func(evs []event.Event, ts []time.Time) string, ctx context.Context) {
	chrome := browsertest.Find(t)
	mux := http.NewServeMux()
	mux.Handle("GET /viewer/", http.StripPrefix("/viewer/", http.FileServerFS(Viewer)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, renderPage)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx = browsertest.New(t, chrome)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	browsertest.Poll(t, ctx, "the renderer", `window.ready === true`, 30*time.Second)
	next := int64(0)
	add = func(evs []event.Event, ts []time.Time) string {
		t.Helper()
		var js strings.Builder
		for i, e := range evs {
			next++
			e.ID, e.TS = next, ts[i]
			b, err := e.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&js, "r.add(%s);\n", b)
		}
		browsertest.Eval[any](t, ctx, js.String()+"true")
		return js.String()
	}
	return add, ctx
}

// The browser's entries reach the bridge before the transcript lines
// that caused them, often: a browser row takes its place by when it
// happened, before the agent's rows that came after it in time; the
// agent's own rows keep the order they came in.
func TestBrowseRowsTakeTheirPlaceInTime(t *testing.T) {
	add, ctx := renderTest(t)
	at := func(ms int) time.Time {
		return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
	}
	add([]event.Event{
		{Type: event.User, Content: "log in"},
		{Type: event.ToolUse, Name: "Bash", ToolUseID: "t1", Input: "$B goto https://example.com"},
		// Came before the transcript's next lines, happened between them.
		{Type: event.Browse, Action: event.BrowseStart, Command: "goto", Args: "https://example.com", BrowseID: 1},
		{Type: event.Browse, Action: event.BrowseEnd, Command: "goto", Args: "https://example.com", OK: true, BrowseID: 2},
		{Type: event.Browse, Action: event.BrowseStart, Command: "click", Args: "@e3", BrowseID: 3},
		{Type: event.Browse, Action: event.BrowseEnd, Command: "click", Args: "@e3", OK: true, BrowseID: 4},
		{Type: event.ToolResult, Name: "Bash", ToolUseID: "t1", Output: "Navigated"},
		{Type: event.ToolUse, Name: "Bash", ToolUseID: "t2", Input: "$B click @e3"},
		{Type: event.ToolResult, Name: "Bash", ToolUseID: "t2", Output: "Clicked"},
		{Type: event.Assistant, Content: "Signed in."},
		{Type: event.Assistant, Content: "An older line, come late: it stays where it came."},
		{Type: event.Browse, Action: event.BrowseNavigation, URL: "https://example.com/ancient", BrowseID: 5},
	}, []time.Time{at(0), at(30), at(150), at(160), at(230), at(240), at(180), at(200), at(260), at(300), at(100), at(-60000)})
	rows := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#log > *')].map(n =>
		n.querySelector('summary') ? n.querySelector('summary .name').textContent + ' ' + n.querySelector('summary .input').textContent : n.textContent)`)
	want := []string{
		"log in",
		"Bash $B goto https://example.com",
		"goto https://example.com",
		"Bash $B click @e3",
		"click @e3",
		"Signed in.",
		"An older line, come late: it stays where it came.",
		"page https://example.com/ancient", // a minute older than its neighbours: not moved that far
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// The browser's actions, as the bridge encodes them (event.Event's own
// JSON), draw as rows of their own: a command's start and end are one
// row saying ok or the error and how long; a navigation, an error and a
// gap their own; they fold away and back; a replay adds nothing.
func TestBrowseRowsInTheRenderer(t *testing.T) {
	add, ctx := renderTest(t)

	evs := []event.Event{
		{Type: event.User, Content: "log in and check the dashboard"},
		{Type: event.ToolUse, Name: "Bash", ToolUseID: "t1", Input: "$B goto https://example.com/login"},
		{Type: event.Browse, Action: event.BrowseStart, Command: "goto", Args: "https://example.com/login", URL: "about:blank", BrowseID: 1},
		{Type: event.Browse, Action: event.BrowseEnd, Command: "goto", Args: "https://example.com/login", URL: "https://example.com/login",
			OK: true, DurationMS: 412, Result: "Navigated to https://example.com/login (200)", BrowseID: 2},
		{Type: event.ToolResult, Name: "Bash", ToolUseID: "t1", Output: "Navigated to https://example.com/login (200)"},
		{Type: event.Browse, Action: event.BrowseStart, Command: "click", Args: "@e3", URL: "https://example.com/login", BrowseID: 3},
		{Type: event.Assistant, Content: "Clicking sign in."},
		{Type: event.Browse, Action: event.BrowseEnd, Command: "click", Args: "@e3", URL: "https://example.com/login",
			Error: "Element not found: @e3", DurationMS: 5, BrowseID: 4},
		{Type: event.Browse, Action: event.BrowseNavigation, URL: "https://example.com/dashboard", BrowseID: 5},
		{Type: event.Browse, Action: event.BrowseError, Command: "tab-guardrail", Error: "too many tabs", BrowseID: 6},
		{Type: event.Browse, Action: event.BrowseGap, GapFrom: 7, AvailableFrom: 20},
		{Type: event.Browse, Action: event.BrowseEnd, Command: "text", OK: true, DurationMS: 2300, Result: "Dashboard", BrowseID: 21},
	}
	ts := make([]time.Time, len(evs))
	for i := range ts {
		ts[i] = time.Date(2026, 12, 1, 10, 0, i, 0, time.UTC)
	}
	script := add(evs, ts)
	browsertest.Eval[any](t, ctx, script+"true") // a reconnect's replay: the same ids again
	rows := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#log > *')].map(n =>
		n.className + '|' + (n.querySelector('summary') ? n.querySelector('summary').textContent : n.textContent))`)
	want := []string{
		"bubble you|log in and check the dashboard",
		"tool done|Bash$B goto https://example.com/login",
		"browse done|gotohttps://example.com/login412 ms",
		"browse failed|click@e3✗ 5 ms",
		"bubble claude|Clicking sign in.",
		"browse navigation|pagehttps://example.com/dashboard",
		"browse failed|tab-guardrail✗ error",
		"divider browse-gap|browser actions 7–19 not shown",
		"browse done|text2.3 s",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	inside := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#log > .browse')].slice(0, 2).map(n =>
		[...n.querySelectorAll('.url, .result')].map(x => x.className + '=' + x.textContent).join(' '))`)
	if inside[0] != "url=https://example.com/login result=Navigated to https://example.com/login (200)" ||
		inside[1] != "url=https://example.com/login result error=Element not found: @e3" {
		t.Errorf("inside the rows: %q", inside)
	}

	shown := `[...document.querySelectorAll('#log > *')].filter(n => n.offsetParent !== null).length`
	browsertest.Eval[any](t, ctx, `r.fold(true); true`)
	if n := browsertest.Eval[int](t, ctx, shown); n != 3 {
		t.Errorf("%d rows shown with the browser folded away, want the agent's 3", n)
	}
	browsertest.Eval[any](t, ctx, `r.fold(false); true`)
	if n := browsertest.Eval[int](t, ctx, shown); n != len(want) {
		t.Errorf("%d rows shown unfolded, want %d", n, len(want))
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"conductorbridge/testkit/browsertest"
)

// pastTurn appends to w's project a session of its own with one turn on
// day (UTC, 00:00:05) that used in and out tokens of Sonnet 4.5.
func pastTurn(t *testing.T, w *transcriptWriter, day time.Time, n int, in, out int64) {
	t.Helper()
	ts := day.Add(5 * time.Second)
	sid := fmt.Sprintf("0b0b0b0b-2222-4222-8222-%012d", n)
	path := filepath.Join(filepath.Dir(w.path), sid+".jsonl")
	line := func(m map[string]any) string { b, _ := json.Marshal(m); return string(b) + "\n" }
	body := line(map[string]any{"type": "user", "sessionId": sid, "cwd": w.cwd, "timestamp": ts.Format(time.RFC3339Nano),
		"message": map[string]any{"role": "user", "content": "old work"}}) +
		line(map[string]any{"type": "assistant", "sessionId": sid, "cwd": w.cwd, "timestamp": ts.Add(time.Second).Format(time.RFC3339Nano),
			"requestId": "req_" + sid, "message": map[string]any{"id": "msg_" + sid, "model": "claude-sonnet-4-5-20250929", "stop_reason": "end_turn",
				"content": []any{map[string]any{"type": "text", "text": "done"}},
				"usage":   map[string]any{"input_tokens": in, "output_tokens": out}}})
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUsagePageInRealChromium opens the menu bar's "Today's cost" link in
// Chromium at the side panel's 300 px: the page signs in like the viewer,
// its bars stack each day's workspaces at the heights the JSON says (and
// the dollars worked out by hand below), and nothing overflows sideways.
func TestUsagePageInRealChromium(t *testing.T) {
	chrome := browsertest.Find(t)
	home := t.TempDir()
	tokyo, osaka := newTranscript(t, home, "tokyo"), newTranscript(t, home, "osaka")
	today := time.Now().UTC().Truncate(24 * time.Hour)
	day := func(n int) time.Time { return today.AddDate(0, 0, -n) }
	// Sonnet 4.5: $3 per million input tokens, $15 per million output.
	pastTurn(t, tokyo, day(0), 1, 100_000, 100_000)  // $0.30 + $1.50 = $1.80
	pastTurn(t, tokyo, day(0), 2, 100_000, 100_000)  // $1.80
	pastTurn(t, tokyo, day(2), 3, 100_000, 100_000)  // $1.80
	pastTurn(t, osaka, day(2), 4, 200_000, 0)        // $0.60
	pastTurn(t, osaka, day(10), 5, 0, 200_000)       // $3.00
	pastTurn(t, tokyo, day(40), 6, 100_000, 100_000) // older than 30 days: not drawn
	want := map[string]map[string]float64{           // day → workspace → dollars
		day(0).Format("2006-01-02"):  {tokyo.cwd: 3.60},
		day(2).Format("2006-01-02"):  {tokyo.cwd: 1.80, osaka.cwd: 0.60},
		day(10).Format("2006-01-02"): {osaka.cwd: 3.00},
	}
	// A Codex rollout that recorded its plan's limits (and spent nothing).
	rollout := filepath.Join(home, ".codex", "sessions", "2026", "12", "02", "rollout-2026-12-02T10-00-00-01a23811-0000-7000-8000-000000000001.jsonl")
	os.MkdirAll(filepath.Dir(rollout), 0o755)
	if err := os.WriteFile(rollout, []byte(`{"timestamp":"2026-12-02T10:00:00.000Z","type":"session_meta","payload":{"id":"01a23811-0000-7000-8000-000000000001","cwd":"`+tokyo.cwd+`","cli_version":"0.169.0"}}`+"\n"+
		`{"timestamp":"2026-12-02T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":12.0,"window_minutes":300,"resets_at":1796302800},"secondary":null}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startBridgeWith(t, home, 0, []string{"CODEX_HOME=" + filepath.Join(home, ".codex")}, "--headless")
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == osaka.cwd })
	addr := strings.TrimPrefix(p.base, "http://")
	for _, name := range []string{"tokyo", "osaka"} {
		if out, err := runCLI(t, "pair", "--addr", addr, "--home", home, name); err != nil {
			t.Fatalf("pair %s: %v %s", name, err, out)
		}
	}
	out, err := runCLI(t, "open", "--print", "--addr", addr, "--home", home)
	link := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if err != nil || !strings.HasPrefix(link, p.base+"/open/") {
		t.Fatalf("open: %v %s", err, out)
	}
	ctx := browsertest.New(t, chrome)
	// Days are the browser's: pin its zone to the one the turns were dated in.
	if _, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "UTC"}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(300, 700), chromedp.Navigate(link+"?to=usage")); err != nil {
		t.Fatal(err)
	}
	browsertest.Poll(t, ctx, "the usage page drawn", `document.body.dataset.loaded !== undefined`, 20*time.Second)
	if loc := browsertest.Eval[string](t, ctx, `location.pathname + location.hash`); loc != "/usage" {
		t.Errorf("landed on %q, want /usage with the page key taken out of the address", loc)
	}
	// Nothing of the sign-in is kept where another page of the origin
	// could read it (issue 24).
	if store := browsertest.Eval[string](t, ctx, `JSON.stringify(sessionStorage) + JSON.stringify(localStorage)`); store != "{}{}" {
		t.Errorf("the page kept %s in storage", store)
	}

	// The JSON the page drew from, asked again.
	var rep struct {
		Rows []struct {
			Key        string  `json:"key"`
			CostUSD    float64 `json:"cost_usd"`
			Workspaces []struct {
				Workspace string  `json:"workspace"`
				CostUSD   float64 `json:"cost_usd"`
			} `json:"workspaces"`
		} `json:"rows"`
		Total struct {
			CostUSD float64 `json:"cost_usd"`
		} `json:"total"`
	}
	// (The page's key is in its memory alone: ask as a browser would, with
	// an extension token, which also sees paired workspaces only.)
	days := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#chart g')].map(g => g.dataset.day)`)
	js := browserGet(t, p, "/api/usage?by=day&since="+days[0]+"&until="+days[len(days)-1]+"&tz=UTC")
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("usage JSON: %v %s", err, js)
	}
	if math.Abs(rep.Total.CostUSD-9.00) > 1e-9 || len(rep.Rows) != 3 {
		t.Errorf("JSON: $%.4f over %d days, want $9.00 over 3: %s", rep.Total.CostUSD, len(rep.Rows), js)
	}
	// The page's reads keep the usage command's cache in the state folder,
	// private to its owner.
	if info, err := os.Stat(filepath.Join(p.stateDir(), "usage.cache")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the bridge's usage cache: %v %v", info, err)
	}
	type bar struct {
		Day, Workspace string
		Cost, Height   float64
	}
	bars := browsertest.Eval[[]bar](t, ctx, `[...document.querySelectorAll('#chart rect.bar')].map(r => ({
		Day: r.parentNode.dataset.day, Workspace: r.dataset.workspace, Cost: Number(r.dataset.cost), Height: Number(r.getAttribute('height'))}))`)
	max := 0.0
	for _, r := range rep.Rows {
		max = math.Max(max, r.CostUSD)
	}
	drawn := map[string]map[string]bar{}
	for _, b := range bars {
		if drawn[b.Day] == nil {
			drawn[b.Day] = map[string]bar{}
		}
		drawn[b.Day][b.Workspace] = b
	}
	for _, r := range rep.Rows {
		if len(drawn[r.Key]) != len(r.Workspaces) || len(want[r.Key]) != len(r.Workspaces) {
			t.Errorf("%s: %d bars for %d workspaces in the JSON (%d by hand)", r.Key, len(drawn[r.Key]), len(r.Workspaces), len(want[r.Key]))
		}
		for _, p := range r.Workspaces {
			b, ok := drawn[r.Key][p.Workspace]
			if !ok || math.Abs(b.Cost-p.CostUSD) > 1e-9 || math.Abs(b.Height-p.CostUSD/max*120) > 1e-6 ||
				math.Abs(p.CostUSD-want[r.Key][p.Workspace]) > 1e-9 {
				t.Errorf("%s %s: bar %+v, JSON $%.4f (of max $%.2f), by hand $%.2f", r.Key, p.Workspace, b, p.CostUSD, max, want[r.Key][p.Workspace])
			}
		}
	}
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll('#chart g').length`); n != 30 {
		t.Errorf("%d day slots, want 30", n)
	}
	if rows := browsertest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#days tbody tr')].map(r => r.dataset.day)`); len(rows) != 3 {
		t.Errorf("table rows %v, want the 3 days with turns", rows)
	}
	if foot := browsertest.Eval[string](t, ctx, `document.querySelector('#days tfoot').textContent`); !strings.Contains(foot, "$9.00") {
		t.Errorf("table total %q, want $9.00", foot)
	}
	// It resets at 1796302800 s, 13:00 UTC on 3 December 2026: shown on a
	// 24-hour clock (this Chromium's en-US would say 01:00 PM).
	if limit := browsertest.Eval[string](t, ctx, `(document.querySelector('#now [data-limit="codex/primary"]') || {}).textContent || ''`); !strings.Contains(limit, "12% used") || !strings.Contains(limit, "5 h window") || !strings.Contains(limit, "12/03/2026, 13:00") {
		t.Errorf("Codex's plan limit shows as %q, want 12%% of the 5 h window, resetting 12/03/2026, 13:00", limit)
	}
	if w := browsertest.Eval[[]int](t, ctx, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] || w[1] != 300 {
		t.Errorf("page is %d px wide in a %d px window: it overflows sideways", w[0], w[1])
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		os.WriteFile(filepath.Join(t.ArtifactDir(), "usage-300px.png"), png, 0o644)
	}

	// The Sessions link takes this run's page key to the viewer, which can
	// then send messages; the key leaves the address bar at once.
	browsertest.Poll(t, ctx, "the Sessions link with the page key", `document.querySelector('a.back').hash.startsWith('#pk=pk.')`, 10*time.Second)
	href := browsertest.Eval[string](t, ctx, `document.querySelector('a.back').href`)
	if err := chromedp.Do(ctx, chromedp.Navigate(href)); err != nil {
		t.Fatal(err)
	}
	browsertest.Poll(t, ctx, "the viewer, able to send", `location.pathname === '/' && !document.querySelector('#composer').hidden`, 20*time.Second)
	if h := browsertest.Eval[string](t, ctx, `location.hash`); h != "" {
		t.Errorf("the page key stayed in the address: %q", h)
	}
}

// browserGet reads path from p as an allow-listed extension (gstack's)
// does: the extension token it is handed for its Origin.
func browserGet(t *testing.T, p *bridgeProc, path string) string {
	t.Helper()
	origin := gstackOrigin
	r, _ := http.NewRequest(http.MethodPost, p.base+"/extension-token", nil)
	r.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct{ Token string }
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	r, _ = http.NewRequest(http.MethodGet, p.base+path, nil)
	r.Header.Set("Origin", origin)
	r.Header.Set("Authorization", "Bearer "+tok.Token)
	resp, err = http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

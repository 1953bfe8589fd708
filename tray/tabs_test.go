package tray

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/pairing"
)

// tab is a session of a workspace as the engine reports it.
func tab(id, conductorID, agent, title, status string, active bool, last time.Time) engine.SessionInfo {
	return engine.SessionInfo{SessionID: id, ConductorID: conductorID, Agent: agent, Title: title, Status: status,
		Active: active, Streamed: agent != "cursor", StatusSince: last, LastActivity: last}
}

// tabbed is tokyo, a Conductor workspace with three tabs: the active
// Claude one working, a background Codex one that just finished, and one
// nobody touched for a day.
func tabbed(now time.Time) engine.Info {
	w := ws("c1", "tokyo", "shop", event.StateWorking, now.Add(-3*time.Minute), discover.SourceConductorDB)
	w.DisplayName = "Login revamp"
	w.Branch = "me/tokyo"
	w.Sessions = []engine.SessionInfo{
		tab("aaaaaaaa-1111", "cs-1", "claude", "Fix login", event.StateWorking, true, now.Add(-3*time.Minute)),
		tab("019a-codex-thread", "cs-2", "codex", "", event.StateIdle, false, now.Add(-2*time.Minute)),
		tab("cccccccc-3333", "cs-3", "claude", "Old idea", event.StateIdle, false, now.Add(-24*time.Hour)),
	}
	return w
}

func TestWorkspaceWithTabsShowsALinePerLiveTab(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.Local)
	w := tabbed(now)
	v := view{now: now, workspaces: []engine.Info{w}, settings: DefaultSettings(), cost: map[sessKey]spend{
		{"c1", "aaaaaaaa-1111"}:     {usd: 0.50, subagent: 0.12},
		{"c1", "019a-codex-thread"}: {usd: 0.25},
	}}
	items := buildMenu(v)
	line, ok := find(items, "● shop / Login revamp · me/tokyo — working 3m · 2 tabs · $0.75 today")
	if !ok {
		t.Fatalf("no workspace line by its display name:\n%s", strings.Join(titles(items, ""), "\n"))
	}
	if !strings.Contains(line.Tooltip, "incl. $0.12 subagents") {
		t.Errorf("workspace tooltip %q", line.Tooltip)
	}
	var tabs []string
	for _, c := range line.Children {
		if c.Separator {
			break
		}
		tabs = append(tabs, c.Title)
	}
	want := []string{
		"● Fix login · Claude — working 3m · $0.50 today",
		"○ 019a-cod · Codex — idle 2m · $0.25 today",
	}
	if strings.Join(tabs, "\n") != strings.Join(want, "\n") {
		t.Errorf("tab lines:\n got %q\nwant %q", tabs, want)
	}
	// Each tab opens itself in Conductor; the workspace line, the active tab.
	if c := line.Children[1].Click; c != (Action{Kind: actConductor, Workspace: "c1", Session: "cs-2"}) {
		t.Errorf("Codex tab click %+v", c)
	}
	open, _ := find(line.Children, "Open in Conductor")
	if open.Click != (Action{Kind: actConductor, Workspace: "c1", Session: "cs-1"}) {
		t.Errorf("Open in Conductor %+v", open.Click)
	}

	// One live tab: no tab lines, the workspace line says it all.
	w.Sessions = w.Sessions[:1]
	items = buildMenu(view{now: now, workspaces: []engine.Info{w}, settings: DefaultSettings()})
	line, _ = find(items, "● shop / Login revamp")
	if strings.Contains(line.Title, "tabs") || line.Children[0].Title != "Paired with Chrome" {
		t.Errorf("a one-tab workspace: %q\n%s", line.Title, strings.Join(titles(line.Children, ""), "\n"))
	}
}

func TestStatusFollowsTheMostUrgentSession(t *testing.T) {
	now := time.Now()
	w := tabbed(now)
	// The engine's workspace status is its most urgent session's.
	w.Sessions[1].Status, w.Sessions[1].Reason = event.StateNeedsInput, "question"
	w.Status, w.Reason = event.StateNeedsInput, "question"
	v := view{now: now, workspaces: []engine.Info{w}, settings: DefaultSettings()}
	icon, title, tip := overall(v)
	if icon != IconNeedsInput || title != "1 needs input" || tip != "Conductor Bridge: 1 needs input (question)" {
		t.Errorf("icon %v title %q tip %q", icon, title, tip)
	}
	items := buildMenu(v)
	if _, ok := find(items, "⚠ shop / Login revamp · me/tokyo — needs input (question) 3m · 2 tabs"); !ok {
		t.Errorf("workspace line:\n%s", strings.Join(titles(items, ""), "\n"))
	}
	if _, ok := find(items, "⚠ 019a-cod · Codex — needs input (question)"); !ok {
		t.Errorf("tab line:\n%s", strings.Join(titles(items, ""), "\n"))
	}
}

func TestCostText(t *testing.T) {
	tests := []struct {
		name      string
		s         spend
		text, tip string
	}{
		{"nothing", spend{}, "", ""},
		{"known", spend{usd: 1.234}, "$1.23 today", ""},
		{"subagents", spend{usd: 1, subagent: 0.4}, "$1.00 today", "incl. $0.40 subagents"},
		{"all unknown", spend{unknown: 2, models: []string{"kimi-k2-turbo"}}, "? today", "2 turn(s) not priced: no price for kimi-k2-turbo"},
		{"some unknown", spend{usd: 0.5, unknown: 1, models: []string{"gpt-9", "claude-opus-7"}}, "≈$0.50 today", "1 turn(s) not priced: no price for claude-opus-7, gpt-9"},
		{"unknown, no model", spend{unknown: 1}, "? today", "1 turn(s) not priced: no price for an unknown model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			text, tip := costText(tt.s)
			if text != tt.text || tip != tt.tip {
				t.Errorf("costText = %q, %q; want %q, %q", text, tip, tt.text, tt.tip)
			}
		})
	}
}

func TestConductorURL(t *testing.T) {
	tests := []struct{ ws, session, want string }{
		{"w1", "cs-1", "conductor://workspace?id=w1&session=cs-1"},
		{"w1", "", "conductor://workspace?id=w1"},
		{"a b&c", "x/y", "conductor://workspace?id=a+b%26c&session=x%2Fy"},
	}
	for _, tt := range tests {
		if got := conductorURL(tt.ws, tt.session); got != tt.want {
			t.Errorf("conductorURL(%q, %q) = %q, want %q", tt.ws, tt.session, got, tt.want)
		}
	}
}

// opened records the URLs the menu opened.
type opened struct {
	mu   sync.Mutex
	urls []string
}

func (o *opened) open(u string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.urls = append(o.urls, u)
	return nil
}
func (o *opened) all() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.urls...)
}

// newTabRig is a rig whose actions record what they open.
func newTabRig(t *testing.T, list ...engine.Info) (*rig, *opened) {
	t.Helper()
	pairs, err := pairing.Open(filepath.Join(t.TempDir(), "pairing.json"))
	if err != nil {
		t.Fatal(err)
	}
	o := &opened{}
	r := &rig{eng: newFakeEngine(list...), shell: &fakeShell{clicks: make(chan Action)}, notes: &fakeNotifier{}, pairs: pairs}
	r.menu = New(Config{
		Engine: r.eng, Pairing: pairs, Shell: r.shell, Notifier: r.notes, Settings: DefaultSettings(),
		Actions: Actions{OpenURL: o.open,
			UsageLink: func(context.Context) (string, error) { return "http://127.0.0.1:1/open/code?to=usage", nil }},
		Log: zerolog.Nop(), Coalesce: 300 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.menu.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	r.eventually(t, "first menu", func() bool { return r.shell.last() != nil })
	return r, o
}

func TestOpenInConductorNamesTheTab(t *testing.T) {
	r, o := newTabRig(t, tabbed(time.Now()))
	ws, _ := find(r.shell.last(), "● shop / Login revamp")
	open, _ := find(ws.Children, "Open in Conductor")
	r.click(open.Click)
	r.click(ws.Children[1].Click) // the Codex tab's line
	usage, _ := find(r.shell.last(), "Today's cost: $0.00 — usage…")
	r.click(usage.Click)
	r.eventually(t, "three URLs opened", func() bool { return len(o.all()) == 3 })
	got := strings.Join(o.all(), " ")
	for _, want := range []string{"conductor://workspace?id=c1&session=cs-1", "conductor://workspace?id=c1&session=cs-2",
		"http://127.0.0.1:1/open/code?to=usage"} {
		if !strings.Contains(got, want) {
			t.Errorf("opened %q, want %q among them", got, want)
		}
	}
	if strings.Contains(got, "conductor:///") {
		t.Errorf("an old-style Conductor URL: %q", got)
	}
}

// publishAs publishes events as written by one session.
func publishAs(r *rig, ws, session string, evs ...event.Event) {
	for i := range evs {
		evs[i].SessionID = session
	}
	r.eng.publish(ws, evs...)
}

func TestBackgroundTabFinishingNotifiesNamingTheTab(t *testing.T) {
	r, _ := newTabRig(t, tabbed(time.Now()))
	publishAs(r, "c1", "019a-codex-thread", turn("Renamed the handler and updated the tests.", 65, 0.25)...)
	r.eventually(t, "a notification", func() bool { return len(r.notes.all()) == 1 })
	if got, want := r.notes.all()[0], "Login revamp · 019a-cod · Codex finished | Renamed the handler and updated the tests.\n$0.25 · 1m 05s"; got != want {
		t.Errorf("notification\n got %q\nwant %q", got, want)
	}
	time.Sleep(400 * time.Millisecond) // past the coalescing window
	if n := len(r.notes.all()); n != 1 {
		t.Errorf("%d notifications for one turn: %q", n, r.notes.all())
	}
	// Its cost is on its own line, and in the workspace's.
	r.eventually(t, "the tab's cost", func() bool {
		_, tabLine := find(r.shell.last(), "○ 019a-cod · Codex — idle")
		ws, wsLine := find(r.shell.last(), "● shop / Login revamp")
		return tabLine && wsLine && strings.HasSuffix(ws.Title, "$0.25 today") && strings.HasSuffix(ws.Children[1].Title, "$0.25 today")
	})
}

func TestTwoTabsFinishingTogetherNotifyEach(t *testing.T) {
	r, _ := newTabRig(t, tabbed(time.Now()))
	// Interleaved in one stream: each note must carry its own tab's answer.
	publishAs(r, "c1", "aaaaaaaa-1111", event.Event{Type: event.Assistant, Content: "Login fixed."})
	publishAs(r, "c1", "019a-codex-thread", event.Event{Type: event.Assistant, Content: "Handler renamed."})
	publishAs(r, "c1", "aaaaaaaa-1111", event.Event{Type: event.TurnComplete, TS: time.Now(), CostUSD: 0.5, CostKnown: true, DurationMS: 40000})
	publishAs(r, "c1", "019a-codex-thread", event.Event{Type: event.TurnComplete, TS: time.Now(), CostUSD: 0.25, CostKnown: true, DurationMS: 50000})
	r.eventually(t, "two notifications", func() bool { return len(r.notes.all()) == 2 })
	got := r.notes.all()
	want := []string{
		"Login revamp · Fix login · Claude finished | Login fixed.\n$0.50 · 40s",
		// Held for the coalescing window, then shown: the summary of one note is the note.
		"Login revamp · 019a-cod · Codex finished | Handler renamed.\n$0.25 · 50s",
	}
	if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("notifications\n got %q\nwant %q", got, want)
	}
}

func TestPermissionPromptInAConductorTabIsNotWorthANote(t *testing.T) {
	conductor := tabbed(time.Now())
	plain := tabbed(time.Now())
	plain.ID, plain.Source = "r1", discover.SourceRegistered
	for i := range plain.Sessions {
		plain.Sessions[i].ConductorID = ""
	}
	tests := []struct {
		name, ws, reason string
		notes            bool
	}{
		{"conductor permission prompt", "c1", "permission_prompt", false},
		{"conductor question", "c1", "question", true},
		{"conductor plan", "c1", "plan", true},
		{"terminal permission prompt", "r1", "permission_prompt", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := newTabRig(t, conductor, plain)
			publishAs(r, tt.ws, "019a-codex-thread", event.Event{Type: event.Status, State: event.StateNeedsInput, Reason: tt.reason})
			// A marker after it, that always notifies: once it is seen,
			// the prompt's fate is decided.
			publishAs(r, tt.ws, "aaaaaaaa-1111", event.Event{Type: event.Status, State: event.StateError, Reason: "marker"})
			r.eventually(t, "the marker", func() bool {
				for _, n := range r.notes.all() {
					if strings.Contains(n, "marker") {
						return true
					}
				}
				return false
			})
			var prompts []string
			for _, n := range r.notes.all() {
				if strings.Contains(n, "needs your input") {
					prompts = append(prompts, n)
				}
			}
			if got := len(prompts) == 1; got != tt.notes {
				t.Errorf("notes %q, want a needs-input note: %v", r.notes.all(), tt.notes)
			}
			if tt.notes && !strings.HasPrefix(prompts[0], "Login revamp · 019a-cod · Codex needs your input | Codex ") {
				t.Errorf("note %q", prompts[0])
			}
		})
	}
}

func TestUnknownCostShowsAsUnknown(t *testing.T) {
	r, _ := newTabRig(t, tabbed(time.Now()))
	publishAs(r, "c1", "aaaaaaaa-1111", event.Event{Type: event.TurnComplete, TS: time.Now(), Model: "kimi-k2-turbo", DurationMS: 45000})
	r.eventually(t, "a ? cost", func() bool {
		it, ok := find(r.shell.last(), "● Fix login · Claude — working")
		return ok && strings.HasSuffix(it.Title, "· ? today") && strings.Contains(it.Tooltip, "kimi-k2-turbo")
	})
	if n := r.notes.all(); len(n) != 1 || !strings.HasSuffix(n[0], "cost unknown (no price for kimi-k2-turbo) · 45s") {
		t.Errorf("notification %q", n)
	}
	publishAs(r, "c1", "aaaaaaaa-1111", event.Event{Type: event.TurnComplete, TS: time.Now(), CostUSD: 0.4, CostKnown: true, Model: "claude-sonnet-4-5"})
	r.eventually(t, "an ≈ cost", func() bool {
		it, _ := find(r.shell.last(), "● shop / Login revamp")
		u, _ := find(r.shell.last(), "Today's cost: ≈$0.40 — usage…")
		return strings.HasSuffix(it.Title, "· ≈$0.40 today") && strings.Contains(it.Tooltip, "kimi-k2-turbo") && u.Click.Kind == actUsage
	})
}

// A session that started and finished before the tray's list held it (a
// one-second Codex run beside a Claude tab) is still named as a tab, from
// its events.
func TestTabNotYetListedIsNamedFromItsEvents(t *testing.T) {
	w := ws("c1", "tokyo", "shop", event.StateIdle, time.Now(), "claude")
	w.Sessions = []engine.SessionInfo{tab("aaaaaaaa-1111", "", "claude", "", event.StateIdle, true, time.Now())}
	r, _ := newTabRig(t, w)
	evs := turn("Codex checked the login page.", 65, 0.02)
	for i := range evs {
		evs[i].Agent = "codex"
	}
	publishAs(r, "c1", "019b0000-new-thread", evs...)
	r.eventually(t, "a notification", func() bool { return len(r.notes.all()) == 1 })
	if got, want := r.notes.all()[0], "tokyo · 019b0000 · Codex finished | Codex checked the login page.\n$0.02 · 1m 05s"; got != want {
		t.Errorf("notification\n got %q\nwant %q", got, want)
	}
}

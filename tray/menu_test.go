package tray

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/stream"
)

// fakeEngine has real topics; the test changes its list.
type fakeEngine struct {
	mu      sync.Mutex
	list    []engine.Info
	hub     *stream.Hub
	changes chan struct{}
	labels  *engine.Engine // never run: it only names agents
}

func newFakeEngine(list ...engine.Info) *fakeEngine {
	f := &fakeEngine{hub: stream.NewHub("", 0), changes: make(chan struct{}, 1),
		labels: engine.New(engine.Config{Agents: []agent.Agent{claude.Agent{}, codex.Agent{}}})}
	f.set(list...)
	return f
}

func (f *fakeEngine) set(list ...engine.Info) {
	f.mu.Lock()
	f.list = list
	f.mu.Unlock()
	for _, w := range list {
		f.hub.Topic(w.ID)
	}
	select {
	case f.changes <- struct{}{}:
	default:
	}
}

func (f *fakeEngine) Workspaces() []engine.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]engine.Info(nil), f.list...)
}
func (f *fakeEngine) Topic(id string) (*stream.Topic, bool) { return f.hub.Lookup(id) }
func (f *fakeEngine) Changes() <-chan struct{}              { return f.changes }

// Label is a real engine's, with the bridge's drivers.
func (f *fakeEngine) Label(agent string) string { return f.labels.Label(agent) }

func (f *fakeEngine) publish(id string, evs ...event.Event) {
	t, _ := f.hub.Lookup(id)
	t.Publish(evs, nil)
}

// fakeShell records what the menu draws and lets the test click.
type fakeShell struct {
	mu     sync.Mutex
	menus  [][]Item
	icon   IconState
	title  string
	clicks chan Action
}

func (s *fakeShell) SetIcon(i IconState) { s.mu.Lock(); s.icon = i; s.mu.Unlock() }
func (s *fakeShell) SetTitle(t string)   { s.mu.Lock(); s.title = t; s.mu.Unlock() }
func (s *fakeShell) SetTooltip(string)   {}
func (s *fakeShell) SetMenu(items []Item) {
	s.mu.Lock()
	s.menus = append(s.menus, items)
	s.mu.Unlock()
}
func (s *fakeShell) Clicks() <-chan Action { return s.clicks }

func (s *fakeShell) last() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.menus) == 0 {
		return nil
	}
	return s.menus[len(s.menus)-1]
}

// find returns the first item, depth first, whose title starts with prefix.
func find(items []Item, prefix string) (Item, bool) {
	for _, it := range items {
		if strings.HasPrefix(it.Title, prefix) {
			return it, true
		}
		if c, ok := find(it.Children, prefix); ok {
			return c, true
		}
	}
	return Item{}, false
}

type fakeNotifier struct {
	mu    sync.Mutex
	notes []string // "title | body"
	fail  error
}

func (n *fakeNotifier) Notify(title, body string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.notes = append(n.notes, title+" | "+body)
	return n.fail
}

func (n *fakeNotifier) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.notes...)
}

func ws(id, name, repo, status string, since time.Time, src string) engine.Info {
	return engine.Info{Workspace: discover.Workspace{ID: id, Name: name, Repo: repo, Branch: "main",
		Directory: "/w/" + name, Source: src}, Status: status, StatusSince: since, Active: status != ""}
}

// rig is a running Menu over fakes and a real pairing store.
type rig struct {
	eng    *fakeEngine
	shell  *fakeShell
	notes  *fakeNotifier
	pairs  *pairing.Store
	menu   *Menu
	cancel context.CancelFunc
	view   *bool
	mu     sync.Mutex
}

func newRig(t *testing.T, s Settings, list ...engine.Info) *rig {
	t.Helper()
	return newRigWith(t, s, nil, list...)
}

// newRigWith is newRig with the config changed by with before the menu
// starts.
func newRigWith(t *testing.T, s Settings, with func(*Config), list ...engine.Info) *rig {
	t.Helper()
	pairs, err := pairing.Open(filepath.Join(t.TempDir(), "pairing.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{eng: newFakeEngine(list...), shell: &fakeShell{clicks: make(chan Action)}, notes: &fakeNotifier{}, pairs: pairs}
	viewing := false
	r.view = &viewing
	r.menu = New(Config{
		Engine: r.eng, Pairing: pairs, Shell: r.shell, Notifier: r.notes, Settings: s,
		Actions:  Actions{Viewing: func(string) bool { r.mu.Lock(); defer r.mu.Unlock(); return *r.view }},
		Log:      zerolog.Nop(),
		Coalesce: 300 * time.Millisecond,
	}.with(with))
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	done := make(chan struct{})
	go func() { r.menu.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	r.eventually(t, "first menu", func() bool { return r.shell.last() != nil })
	return r
}

func (r *rig) eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
	}
}

func (r *rig) click(a Action) { r.shell.clicks <- a }

func TestMenuIsBuiltFromState(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.Local)
	v := view{
		now: now,
		workspaces: []engine.Info{
			ws("c1", "tokyo", "shop", event.StateWorking, now.Add(-3*time.Minute), discover.SourceConductorDB),
			ws("c2", "osaka", "shop", event.StateNeedsInput, now.Add(-30*time.Second), discover.SourceConductorDB),
			ws("r1", "spike", "", event.StateIdle, now.Add(-2*time.Hour), discover.SourceRegistered),
			ws("p1", "old-thing", "", "", now.Add(-40*24*time.Hour), "claude"),
		},
		paired:   map[string]bool{"c1": true},
		cost:     map[sessKey]spend{{"c1", "s1"}: {usd: 1.0}, {"c1", ""}: {usd: 0.234}},
		settings: DefaultSettings(),
	}
	v.settings.Muted = []string{"c2"}
	items := buildMenu(v)
	icon, title, _ := overall(v)
	if icon != IconNeedsInput || title != "1 needs input" {
		t.Errorf("icon %v title %q", icon, title)
	}
	if items[0].Title != "Conductor Bridge — 1 needs input, 1 working" || !items[0].Disabled {
		t.Errorf("header %+v", items[0])
	}
	tokyo, ok := find(items, "● shop / tokyo · main — working 3m · $1.23 today")
	if !ok {
		t.Fatalf("no tokyo line in %v", titles(items, ""))
	}
	sub := map[string]Item{}
	for _, c := range tokyo.Children {
		sub[c.Title] = c
	}
	if p := sub["Paired with Chrome"]; !p.Checkable || !p.Checked || p.Click != wsAction(actPair, "c1") {
		t.Errorf("paired item %+v", p)
	}
	for _, want := range []string{"Open in Conductor", "Open session viewer", "Copy workspace id"} {
		if sub[want].Click == (Action{}) {
			t.Errorf("tokyo lacks %q", want)
		}
	}
	if n := sub["Notify for this workspace"]; !n.Checked {
		t.Error("tokyo muted")
	}
	osaka, _ := find(items, "⚠ shop / osaka")
	if n, _ := find(osaka.Children, "Notify for"); n.Checked {
		t.Error("muted osaka shows notifications on")
	}
	spike, _ := find(items, "○ spike")
	if _, ok := find(spike.Children, "Open in Conductor"); ok {
		t.Error("a registered worktree offers Open in Conductor")
	}
	// A Claude project nobody used for weeks is tucked away.
	others, ok := find(items, "Other projects (1)")
	if !ok || len(others.Children) != 1 {
		t.Errorf("others: %+v", others)
	}
	mode, _ := find(items, "Notifications")
	if on, _ := find(mode.Children, "On"); !on.Checked {
		t.Error("notifications mode not shown")
	}
	for _, want := range []string{"Open logs", "Quit Conductor Bridge"} {
		if _, ok := find(items, want); !ok {
			t.Errorf("no %q", want)
		}
	}
	if _, ok := find(items, "Start at login"); ok {
		t.Error("Start at login shown without login item support")
	}
}

// A workspace whose gstack browse server is live carries a small mark;
// a plain project with one is in use, not tucked away.
func TestMenuMarksAWorkspaceDrivingABrowser(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.Local)
	tokyo := ws("c1", "tokyo", "shop", event.StateWorking, now.Add(-3*time.Minute), discover.SourceConductorDB)
	tokyo.Browser = true
	old := ws("p1", "old-thing", "", "", now.Add(-40*24*time.Hour), "claude")
	old.Browser = true
	osaka := ws("c2", "osaka", "shop", event.StateIdle, now.Add(-time.Hour), discover.SourceConductorDB)
	items := buildMenu(view{now: now, workspaces: []engine.Info{tokyo, old, osaka}, settings: DefaultSettings()})
	line, ok := find(items, "● shop / tokyo · main — working 3m · 🌐 browser")
	if !ok || !strings.Contains(line.Tooltip, "driving a browser") {
		t.Fatalf("no marked tokyo line (tooltip %q) in %v", line.Tooltip, titles(items, ""))
	}
	if _, ok := find(items, "○ old-thing"); !ok {
		t.Errorf("a plain project with a live browser is tucked away: %v", titles(items, ""))
	}
	if o, _ := find(items, "○ shop / osaka"); strings.Contains(o.Title, "browser") {
		t.Errorf("osaka marked: %q", o.Title)
	}
}

func titles(items []Item, indent string) []string {
	var out []string
	for _, it := range items {
		out = append(out, indent+it.Title)
		out = append(out, titles(it.Children, indent+"  ")...)
	}
	return out
}

func TestManyWorkspacesAreGroupedByRepo(t *testing.T) {
	now := time.Now()
	v := view{now: now, settings: DefaultSettings()}
	for i := 0; i < 30; i++ {
		repo := []string{"api", "web", "docs"}[i%3]
		v.workspaces = append(v.workspaces, ws(fmt.Sprint("w", i), fmt.Sprint("ws", i), repo, event.StateIdle, now, discover.SourceConductorDB))
	}
	items := buildMenu(v)
	top := 0
	for _, it := range items {
		if !it.Separator {
			top++
		}
	}
	if top > 10 {
		t.Errorf("%d top-level lines for 30 workspaces:\n%s", top, strings.Join(titles(items, ""), "\n"))
	}
	if g, ok := find(items, "api — all idle"); !ok || len(g.Children) != 10 {
		t.Errorf("api group: %+v", g)
	}
}

func TestPairingClickChangesTheBridgesPairing(t *testing.T) {
	r := newRig(t, DefaultSettings(), ws("c1", "tokyo", "shop", event.StateIdle, time.Now(), discover.SourceConductorDB))
	r.click(wsAction(actPair, "c1"))
	r.eventually(t, "c1 paired", func() bool { _, ok := r.pairs.Paired("c1"); return ok })
	r.eventually(t, "checkbox on", func() bool {
		it, _ := find(r.shell.last(), "Paired with Chrome")
		return it.Checked
	})
	r.click(wsAction(actPair, "c1"))
	r.eventually(t, "c1 unpaired", func() bool { _, ok := r.pairs.Paired("c1"); return !ok })
	// Pairing from elsewhere (the API, the CLI) shows too.
	r.pairs.Pair("c1")
	r.eventually(t, "checkbox follows the API", func() bool {
		it, _ := find(r.shell.last(), "Paired with Chrome")
		return it.Checked
	})
}

func TestNewWorkspaceAppearsAndStateShows(t *testing.T) {
	r := newRig(t, DefaultSettings(), ws("c1", "tokyo", "shop", event.StateIdle, time.Now(), discover.SourceConductorDB))
	r.eng.set(ws("c1", "tokyo", "shop", event.StateWorking, time.Now(), discover.SourceConductorDB),
		ws("c2", "osaka", "shop", event.StateIdle, time.Now(), discover.SourceConductorDB))
	r.eventually(t, "osaka in the menu", func() bool { _, ok := find(r.shell.last(), "○ shop / osaka"); return ok })
	r.shell.mu.Lock()
	icon, title := r.shell.icon, r.shell.title
	r.shell.mu.Unlock()
	if icon != IconWorking || title != "1 working" {
		t.Errorf("icon %v title %q", icon, title)
	}
}

func turn(answer string, secs int, cost float64) []event.Event {
	return []event.Event{
		{Type: event.Assistant, Content: answer},
		{Type: event.TurnComplete, TS: time.Now(), CostUSD: cost, CostKnown: true, DurationMS: int64(secs) * 1000},
	}
}

func TestFinishedTurnNotifiesOnce(t *testing.T) {
	r := newRig(t, DefaultSettings(), ws("c1", "tokyo", "shop", event.StateWorking, time.Now(), discover.SourceConductorDB))
	r.eng.publish("c1", turn("The login page works now; I fixed the submit handler and the tests pass.", 65, 0.4213)...)
	r.eventually(t, "a notification", func() bool { return len(r.notes.all()) == 1 })
	got := r.notes.all()[0]
	want := "tokyo · Claude finished | The login page works now; I fixed the submit handler and the tests pass.\n$0.42 · 1m 05s"
	if got != want {
		t.Errorf("notification\n got %q\nwant %q", got, want)
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(r.notes.all()); n != 1 {
		t.Errorf("%d notifications for one turn", n)
	}
	// Today's cost is on the workspace's line.
	r.eventually(t, "cost on the line", func() bool {
		_, ok := find(r.shell.last(), "● shop / tokyo · main — working now · $0.42 today")
		return ok
	})
}

func TestNeedsInputNotifies(t *testing.T) {
	r := newRig(t, DefaultSettings(), ws("r1", "tokyo", "shop", event.StateWorking, time.Now(), discover.SourceRegistered))
	r.eng.publish("r1", event.Event{Type: event.Status, State: event.StateNeedsInput, Reason: "permission_prompt"})
	r.eventually(t, "a notification", func() bool { return len(r.notes.all()) == 1 })
	if got := r.notes.all()[0]; got != "tokyo · Claude needs your input | Claude asks for permission" {
		t.Errorf("notification %q", got)
	}
}

// A session the workspace's list does not hold yet (a Codex run that
// asks for approval before the next listing) is named by its event's
// agent, not the engine's default.
func TestNeedsInputNamesTheEventsAgent(t *testing.T) {
	r := newRig(t, DefaultSettings(), ws("r1", "vault", "shop", event.StateWorking, time.Now(), discover.SourceRegistered))
	r.eng.publish("r1", event.Event{Type: event.Status, State: event.StateNeedsInput, Reason: "permission_prompt",
		SessionID: "019a4f2e-thread", Agent: "codex"})
	r.eventually(t, "a notification", func() bool { return len(r.notes.all()) == 1 })
	if got := r.notes.all()[0]; !strings.HasSuffix(got, " | Codex asks for permission") {
		t.Errorf("notification %q", got)
	}
}

func TestBurstOfTurnsIsCoalesced(t *testing.T) {
	var list []engine.Info
	for i := 0; i < 6; i++ {
		list = append(list, ws(fmt.Sprint("c", i), fmt.Sprint("ws", i), "shop", event.StateWorking, time.Now(), discover.SourceConductorDB))
	}
	r := newRig(t, DefaultSettings(), list...)
	for i := 0; i < 6; i++ {
		r.eng.publish(fmt.Sprint("c", i), turn("done", 40, 0.1)...)
	}
	r.eventually(t, "the summary", func() bool { return len(r.notes.all()) == 2 })
	notes := r.notes.all()
	// The first shows at once; the other five (in whatever order their
	// streams delivered them) fold into one summary.
	if !strings.HasPrefix(notes[0], "ws") || !strings.Contains(notes[0], " finished | done\n$0.10 · 40s") {
		t.Errorf("first: %q", notes[0])
	}
	title, body, _ := strings.Cut(notes[1], " | ")
	lines := strings.Split(body, "\n")
	if title != "5 agents finished" || len(lines) != 5 || lines[4] != "and 1 more" || !strings.HasSuffix(lines[0], " finished · $0.10 · 40s") {
		t.Errorf("summary: %q", notes[1])
	}
	time.Sleep(700 * time.Millisecond)
	if n := len(r.notes.all()); n != 2 {
		t.Errorf("%d notifications for a burst of 6, want 2", n)
	}
}

func TestNotificationSettings(t *testing.T) {
	tests := []struct {
		name    string
		set     func(*Settings)
		paired  bool
		viewing bool
		secs    int
		want    int
	}{
		{"long turn", nil, false, false, 45, 1},
		{"short turn", nil, false, false, 10, 0},
		{"lower threshold", func(s *Settings) { s.MinTurnSeconds = 5 }, false, false, 10, 1},
		{"muted", func(s *Settings) { s.Muted = []string{"c1"} }, false, false, 45, 0},
		{"off", func(s *Settings) { s.Notifications = NotifyOff }, false, false, 45, 0},
		{"paired only, unpaired", func(s *Settings) { s.Notifications = NotifyPaired }, false, false, 45, 0},
		{"paired only, paired", func(s *Settings) { s.Notifications = NotifyPaired }, true, false, 45, 1},
		{"watching it in the browser", nil, true, true, 45, 0},
		{"watching, quiet disabled", func(s *Settings) { s.QuietWhenViewing = false }, true, true, 45, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := DefaultSettings()
			if tt.set != nil {
				tt.set(&s)
			}
			r := newRig(t, s, ws("c1", "tokyo", "shop", event.StateWorking, time.Now(), discover.SourceConductorDB))
			if tt.paired {
				r.pairs.Pair("c1")
				r.eventually(t, "paired in the menu", func() bool { it, _ := find(r.shell.last(), "Paired with Chrome"); return it.Checked })
			}
			r.mu.Lock()
			*r.view = tt.viewing
			r.mu.Unlock()
			r.eng.publish("c1", turn("done", tt.secs, 0.1)...)
			// A marker event after the turn: once the menu has seen it, the
			// turn's notification (if any) has been decided.
			r.eng.publish("c1", event.Event{Type: event.Status, State: event.StateNeedsInput})
			r.eventually(t, "the marker", func() bool {
				for _, n := range r.notes.all() {
					if strings.Contains(n, "needs your input") {
						return true
					}
				}
				return s.Notifications == NotifyOff || (s.Notifications == NotifyPaired && !tt.paired) || s.IsMuted("c1") || (tt.viewing && tt.paired && s.QuietWhenViewing)
			})
			time.Sleep(400 * time.Millisecond) // past the coalescing window
			finished := 0
			for _, n := range r.notes.all() {
				if strings.Contains(n, "finished") {
					finished++
				}
			}
			if finished != tt.want {
				t.Errorf("%d turn notifications, want %d: %q", finished, tt.want, r.notes.all())
			}
		})
	}
}

func TestMenuClicksChangeSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tray.json")
	s, _ := LoadSettings(path)
	r := newRig(t, s, ws("c1", "tokyo", "shop", event.StateIdle, time.Now(), discover.SourceConductorDB))
	r.click(wsAction(actMute, "c1"))
	r.click(Action{Kind: actNotifyPaired})
	r.eventually(t, "muted and paired-only in the menu", func() bool {
		n, _ := find(r.shell.last(), "Notify for this workspace")
		p, _ := find(r.shell.last(), "Paired workspaces only")
		return !n.Checked && p.Checked
	})
	r.eventually(t, "saved", func() bool {
		got, _ := LoadSettings(path)
		return got.Notifications == NotifyPaired && got.IsMuted("c1")
	})
}

func TestNotificationFailureIsLoggedOnce(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	pairs, _ := pairing.Open(filepath.Join(t.TempDir(), "p.json"))
	eng := newFakeEngine(ws("c1", "tokyo", "shop", event.StateWorking, time.Now(), discover.SourceConductorDB))
	notes := &fakeNotifier{fail: fmt.Errorf("no notification server")}
	m := New(Config{Engine: eng, Pairing: pairs, Notifier: notes, Settings: DefaultSettings(), Coalesce: time.Millisecond,
		Log: zerolog.New(zerolog.SyncWriter(writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return logs.Write(p)
		})))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond)
	for i := 0; i < 4; i++ {
		eng.publish("c1", turn("done", 60, 0.1)...)
		time.Sleep(30 * time.Millisecond)
	}
	for deadline := time.Now().Add(2 * time.Second); len(notes.all()) < 4 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "notifications are not working"); len(notes.all()) < 2 || n != 1 {
		t.Errorf("%d attempts, logged %d times:\n%s", len(notes.all()), n, logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestTroubleShowsTheErrorIcon(t *testing.T) {
	r := newRig(t, DefaultSettings(), ws("c1", "tokyo", "shop", event.StateWorking, time.Now(), discover.SourceConductorDB))
	r.menu.SetTrouble("cannot write the stream journal (disk full?) — see the logs")
	r.eventually(t, "the error icon", func() bool {
		r.shell.mu.Lock()
		defer r.shell.mu.Unlock()
		return r.shell.icon == IconError
	})
	if _, ok := find(r.shell.last(), "⚠ cannot write the stream journal"); !ok {
		t.Errorf("no trouble line:\n%s", strings.Join(titles(r.shell.last(), ""), "\n"))
	}
	r.menu.SetTrouble("")
	r.eventually(t, "the working icon again", func() bool {
		r.shell.mu.Lock()
		defer r.shell.mu.Unlock()
		return r.shell.icon == IconWorking
	})
}

func TestHooksOfferChangesNothingUntilAccepted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tray.json")
	s, _ := LoadSettings(path)
	pairs, _ := pairing.Open(filepath.Join(t.TempDir(), "p.json"))
	eng := newFakeEngine(
		ws("c1", "tokyo", "shop", event.StateIdle, time.Now(), discover.SourceConductorDB),
		ws("c2", "osaka", "shop", event.StateIdle, time.Now(), discover.SourceConductorDB),
		ws("p1", "plain", "", event.StateIdle, time.Now(), "claude"),
	)
	var mu sync.Mutex
	var installed []string
	shell := &fakeShell{clicks: make(chan Action)}
	m := New(Config{Engine: eng, Pairing: pairs, Shell: shell, Settings: s, Log: zerolog.Nop(),
		Actions: Actions{
			MissingHooks: func(list []engine.Info) []string {
				var dirs []string
				for _, w := range list {
					if w.Source != "claude" {
						dirs = append(dirs, w.Directory)
					}
				}
				return dirs
			},
			InstallHooks: func(dirs []string) error {
				mu.Lock()
				defer mu.Unlock()
				installed = append(installed, dirs...)
				return nil
			},
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	r := &rig{shell: shell}
	r.eventually(t, "the offer", func() bool { _, ok := find(shell.last(), "Set up hooks for 2 workspaces…"); return ok })
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if len(installed) != 0 {
		t.Fatal("hooks installed before anyone agreed")
	}
	mu.Unlock()
	shell.clicks <- Action{Kind: actHooksSetup}
	r.eventually(t, "the offer gone", func() bool { _, ok := find(shell.last(), "Set up hooks"); return !ok })
	mu.Lock()
	if strings.Join(installed, " ") != "/w/tokyo /w/osaka" {
		t.Errorf("installed into %v", installed)
	}
	mu.Unlock()
	r.eventually(t, "the answer saved", func() bool { got, _ := LoadSettings(path); return got.HooksOffer == "accepted" })
}

func TestInstallExtensionRevealsAndExplains(t *testing.T) {
	pairs, _ := pairing.Open(filepath.Join(t.TempDir(), "p.json"))
	shell := &fakeShell{clicks: make(chan Action)}
	notes := &fakeNotifier{}
	var mu sync.Mutex
	var opened []string
	m := New(Config{Engine: newFakeEngine(), Pairing: pairs, Shell: shell, Notifier: notes, Settings: DefaultSettings(), Log: zerolog.Nop(),
		Actions: Actions{
			InstallExtension: func() (string, error) { return "/state/chrome-extension", nil },
			OpenURL:          func(u string) error { mu.Lock(); defer mu.Unlock(); opened = append(opened, u); return nil },
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	r := &rig{shell: shell}
	r.eventually(t, "the menu", func() bool { _, ok := find(shell.last(), "Install Chrome extension…"); return ok })
	shell.clicks <- Action{Kind: actExtension}
	r.eventually(t, "the explanation", func() bool { return len(notes.all()) == 1 })
	if n := notes.all()[0]; !strings.Contains(n, "chrome://extensions") || !strings.Contains(n, "Load unpacked") || !strings.Contains(n, "/state/chrome-extension") {
		t.Errorf("notification: %q", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(opened) != 1 || opened[0] != "/state/chrome-extension" {
		t.Errorf("revealed %v", opened)
	}
}

func TestSameShape(t *testing.T) {
	a := []Item{{Title: "h", Disabled: true}, {Separator: true}, {Title: "○ tokyo — idle 3m", Children: []Item{
		{Click: wsAction(actPair, "c1"), Title: "Paired with Chrome", Checkable: true}}}}
	words := []Item{{Title: "h2", Disabled: true}, {Separator: true}, {Title: "● tokyo — working now", Children: []Item{
		{Click: wsAction(actPair, "c1"), Title: "Paired with Chrome", Checkable: true, Checked: true}}}}
	if !sameShape(a, words) {
		t.Error("new words and checkmarks should update in place")
	}
	more := append(append([]Item(nil), words...), Item{Title: "○ osaka", Children: []Item{{Click: wsAction(actPair, "c2"), Title: "Paired with Chrome", Checkable: true}}})
	other := []Item{a[0], a[1], {Title: "x", Children: []Item{{Click: wsAction(actPair, "c9"), Title: "Paired with Chrome", Checkable: true}}}}
	if sameShape(a, more) || sameShape(a, other) || sameShape(a, a[:2]) {
		t.Error("a workspace come, gone or changed must rebuild")
	}
}

func (c Config) with(f func(*Config)) Config {
	if f != nil {
		f(&c)
	}
	return c
}

// refusingLogin is a login item that refuses to install, as the app's
// does for a translocated binary.
type refusingLogin struct{ err error }

func (l refusingLogin) Installed() bool  { return false }
func (l refusingLogin) Install() error   { return l.err }
func (l refusingLogin) Uninstall() error { return nil }

// TestStartAtLoginRefusalIsShown: when the login item refuses (the app
// runs from a translocated copy), the person is told why in a
// notification, and the checkbox stays off.
func TestStartAtLoginRefusalIsShown(t *testing.T) {
	const why = "/private/var/folders/x/T/AppTranslocation/1F2E/d/Conductor Bridge.app/Contents/MacOS/conductor-bridge is a temporary copy: move the app to /Applications and open it again"
	r := newRigWith(t, DefaultSettings(), func(c *Config) { c.LoginItem = refusingLogin{errors.New(why)} })
	r.click(Action{Kind: actLogin})
	r.eventually(t, "a notification saying why", func() bool {
		for _, n := range r.notes.all() {
			if n == "Start at login is off | "+why {
				return true
			}
		}
		return false
	})
	if it, ok := find(r.shell.last(), "Start at login"); !ok || it.Checked {
		t.Errorf("Start at login: %+v, %v; want shown, unchecked", it, ok)
	}
}

package tray

import (
	"context"
	"reflect"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// Config wires a Menu.
type Config struct {
	Engine    Engine
	Pairing   Pairing
	Shell     Shell     // nil: no menu bar (headless); notifications still work
	Notifier  Notifier  // nil: no notifications
	LoginItem LoginItem // nil: no "Start at login"
	Actions   Actions
	Settings  Settings
	Log       zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Coalesce is the window in which notifications fold into one
	// (default 3 s).
	Coalesce time.Duration
}

// Menu owns the tray's state. Only Run's goroutine touches it.
type Menu struct {
	cfg      Config
	settings Settings
	list     []engine.Info
	paired   map[string]bool
	cost     map[sessKey]spend // today's cost per session
	costDay  string
	answer   map[sessKey]string // each session's latest answer, for its notification
	notified map[sessKey]int64  // the last turn_complete id each session notified for
	subs     map[string]context.CancelFunc
	login    *bool
	trouble  string
	noHooks  []string  // directories the hooks offer is about
	checked  time.Time // when noHooks was last worked out
	checking bool

	events    chan wsEvent  // from the per-workspace subscribers
	done      chan func()   // results of work done off the loop
	coal      coalescer     // notification storm control
	flush     *time.Timer   // ends the coalescing window
	shown     []Item        // the menu as last drawn
	failed    bool          // a notification failed (logged once)
	clicks    <-chan Action // from the shell
	save      chan Settings // to the saver
	troubleCh chan string   // from SetTrouble
	quiet     chan struct{} // closed when Run returns
}

// New returns a Menu; Run makes it live.
func New(cfg Config) *Menu {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Coalesce <= 0 {
		cfg.Coalesce = 3 * time.Second
	}
	m := &Menu{
		cfg: cfg, settings: cfg.Settings,
		paired: map[string]bool{}, cost: map[sessKey]spend{}, answer: map[sessKey]string{}, notified: map[sessKey]int64{},
		subs: map[string]context.CancelFunc{}, events: make(chan wsEvent, 256), done: make(chan func(), 16),
		coal: coalescer{window: cfg.Coalesce}, quiet: make(chan struct{}), save: make(chan Settings, 1),
		troubleCh: make(chan string, 1),
	}
	if cfg.Shell != nil {
		m.clicks = cfg.Shell.Clicks()
	}
	if cfg.LoginItem != nil {
		on := cfg.LoginItem.Installed()
		m.login = &on
	}
	return m
}

// Run is the event loop: it returns when ctx ends.
func (m *Menu) Run(ctx context.Context) error {
	defer close(m.quiet)
	changes := m.cfg.Engine.Changes()
	pairs, stop := m.cfg.Pairing.Watch()
	defer stop()
	// Titles say "working 3m": redraw now and then even when nothing happens.
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	m.flush = time.NewTimer(time.Hour)
	m.flush.Stop()
	saved := make(chan struct{})
	go func() { m.saver(ctx); close(saved) }()
	defer func() { <-saved }()

	m.refresh(ctx)
	m.render()
	for {
		select {
		case <-ctx.Done():
			for _, cancel := range m.subs {
				cancel()
			}
			return nil
		case <-changes:
			m.refresh(ctx)
		case <-pairs:
			m.refreshPaired()
		case a := <-m.clicks:
			m.click(ctx, a)
		case ev := <-m.events:
			// Most events (a turn streams dozens) change nothing in the
			// menu: only a finished turn's cost does.
			if !m.onEvent(ctx, ev) {
				continue
			}
		case f := <-m.done:
			f()
		case msg := <-m.troubleCh:
			m.trouble = msg
		case <-m.flush.C:
			if n, ok := m.coal.flush(m.cfg.Now()); ok {
				m.show(n)
			}
		case <-tick.C:
			// The engine tells of states changing, not of every line:
			// a tab's last activity is brought up to date here.
			m.refresh(ctx)
		}
		m.checkHooks(false)
		m.render()
	}
}

// SetTrouble shows the bridge's own problem ("" clears it): the error
// icon and a line at the top of the menu. It never waits (a logger calls
// it); a newer message replaces one not yet shown.
func (m *Menu) SetTrouble(msg string) {
	select {
	case <-m.troubleCh:
	default:
	}
	select {
	case m.troubleCh <- msg:
	default:
	}
}

// refresh reloads the workspace list and follows each workspace's stream.
func (m *Menu) refresh(ctx context.Context) {
	before := len(m.list)
	m.list = m.cfg.Engine.Workspaces()
	if len(m.list) != before {
		defer m.checkHooks(true)
	}
	seen := map[string]bool{}
	for _, w := range m.list {
		seen[w.ID] = true
		if _, ok := m.subs[w.ID]; !ok {
			m.follow(ctx, w.ID, -1)
		}
	}
	for id, cancel := range m.subs {
		if !seen[id] {
			cancel()
			delete(m.subs, id)
		}
	}
	m.refreshPaired()
}

func (m *Menu) refreshPaired() {
	m.paired = map[string]bool{}
	for _, w := range m.list {
		if _, ok := m.cfg.Pairing.Paired(w.ID); ok {
			m.paired[w.ID] = true
		}
	}
}

// onEvent handles a stream event and reports whether the menu may show
// something new.
func (m *Menu) onEvent(ctx context.Context, ev wsEvent) bool {
	if ev.dropped {
		if cancel, ok := m.subs[ev.id]; ok {
			cancel()
			m.follow(ctx, ev.id, ev.last)
		}
		return false
	}
	m.remember(ev.id, ev.e)
	if ev.e.Sidechain {
		return false
	}
	key := sessKey{ev.id, ev.e.SessionID}
	w, _ := m.workspace(ev.id)
	tab := findSession(w, ev.e.SessionID)
	if tab == nil && ev.e.SessionID != "" && len(w.Sessions) > 0 {
		// A session the list does not hold yet: one that started and
		// finished between two reads of it (a one-second Codex run beside
		// a Claude tab). The engine publishes its events before its new
		// picture, so the event itself names the tab.
		w.Sessions = append(slices.Clone(w.Sessions), engine.SessionInfo{SessionID: ev.e.SessionID, Agent: ev.e.Agent, Label: m.cfg.Engine.Label(ev.e.Agent)})
		tab = &w.Sessions[len(w.Sessions)-1]
	}
	switch {
	case ev.e.Type == event.TurnComplete:
		if ev.e.ID != 0 && ev.e.ID <= m.notified[key] {
			return true // seen before (a resumed subscriber): noted once already
		}
		m.notified[key] = ev.e.ID
		m.notify(finishedNote(w, tab, m.agentOf(tab, ev.e), ev.e, m.answer[key]), time.Duration(ev.e.DurationMS)*time.Millisecond)
	case ev.e.Type == event.Status && ev.e.State == event.StateNeedsInput:
		if ev.e.Reason == "permission_prompt" && launchedByConductor(w, tab) {
			// Conductor answers most permission prompts itself (it runs
			// claude with --permission-prompt-tool stdio): not by itself
			// worth a notification. A question or a plan is.
			return false
		}
		m.notify(needsInputNote(w, tab, m.agentOf(tab, ev.e), ev.e.Reason), 0)
	case ev.e.Type == event.Status && ev.e.State == event.StateError:
		m.notify(failedNote(w, tab, m.agentOf(tab, ev.e), ev.e.Reason), 0)
	}
	return ev.e.Type == event.TurnComplete
}

// workspace returns the listed workspace with that id; one not listed
// (yet) is named by its id.
func (m *Menu) workspace(id string) (engine.Info, bool) {
	for _, w := range m.list {
		if w.ID == id {
			return w, true
		}
	}
	return engine.Info{Workspace: discover.Workspace{ID: id, Name: id}}, false
}

// checkHooks works out, off the loop, which workspaces the hooks offer is
// about: after the list changes, and now and then (hooks can be installed
// from the command line meanwhile).
func (m *Menu) checkHooks(force bool) {
	act := m.cfg.Actions
	if m.settings.HooksOffer != "" || act.MissingHooks == nil || m.checking {
		return
	}
	if !force && m.cfg.Now().Sub(m.checked) < 30*time.Second {
		return
	}
	m.checking, m.checked = true, m.cfg.Now()
	list := m.list
	m.async(func() func() {
		dirs := act.MissingHooks(list)
		return func() { m.noHooks, m.checking = dirs, false }
	})
}

// render redraws the menu if anything in it changed.
func (m *Menu) render() {
	if m.cfg.Shell == nil {
		return
	}
	v := view{now: m.cfg.Now(), workspaces: m.list, paired: m.paired, cost: m.cost,
		settings: m.settings, loginItem: m.login, trouble: m.trouble, noHooks: m.noHooks}
	items := buildMenu(v)
	icon, title, tip := overall(v)
	if reflect.DeepEqual(items, m.shown) {
		return
	}
	m.shown = items
	m.cfg.Shell.SetIcon(icon)
	m.cfg.Shell.SetTitle(title)
	m.cfg.Shell.SetTooltip(tip)
	m.cfg.Shell.SetMenu(items)
}

// async runs work off the loop; what it returns runs back on the loop.
func (m *Menu) async(work func() func()) {
	go func() {
		then := work()
		if then != nil {
			m.done <- then
		}
	}()
}

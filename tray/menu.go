package tray

import (
	"context"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
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
	cost     map[string]float64 // today's cost per workspace
	costDay  string
	answer   map[string]string // each workspace's latest answer, for its notification
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
	clicks    <-chan string // from the shell
	save      chan Settings // to the saver
	troubleCh chan string   // from SetTrouble
	quiet     chan struct{} // closed when Run returns
}

// wsEvent is an event of a workspace's stream, or word that its
// subscriber was cut loose (resubscribe after last).
type wsEvent struct {
	id      string
	e       event.Event
	dropped bool
	last    int64
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
		paired: map[string]bool{}, cost: map[string]float64{}, answer: map[string]string{},
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
		case id := <-m.clicks:
			m.click(ctx, id)
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

// follow subscribes to a workspace's stream. after < 0 means "from now":
// what is kept only sets today's cost and the latest answer, and notifies
// nobody; after >= 0 resumes a subscriber that was cut loose.
func (m *Menu) follow(ctx context.Context, id string, after int64) {
	t, ok := m.cfg.Engine.Topic(id)
	if !ok {
		return
	}
	from := after
	if from < 0 {
		from = 0
	}
	replay, _, sub := t.Subscribe(from)
	if after < 0 {
		for _, it := range replay {
			m.remember(id, it.Event)
		}
		replay = nil
	}
	sctx, cancel := context.WithCancel(ctx)
	m.subs[id] = cancel
	go forward(sctx, t, sub, id, replay, m.events)
}

// forward hands a subscriber's events to the loop until ctx ends.
func forward(ctx context.Context, t *stream.Topic, sub *stream.Subscriber, id string, replay []stream.Item, out chan<- wsEvent) {
	defer t.Unsubscribe(sub)
	var last int64
	send := func(ev wsEvent) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, it := range replay {
		last = it.ID
		if !send(wsEvent{id: id, e: it.Event}) {
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case it, ok := <-sub.C:
			if !ok {
				send(wsEvent{id: id, dropped: true, last: last})
				return
			}
			last = it.ID
			if !send(wsEvent{id: id, e: it.Event}) {
				return
			}
		}
	}
}

// remember keeps what a notification and the menu need from an event.
func (m *Menu) remember(id string, e event.Event) {
	switch {
	case e.Sidechain:
	case e.Type == event.Assistant:
		m.answer[id] = e.Content
	case e.Type == event.TurnComplete:
		day := m.cfg.Now().Format(time.DateOnly)
		if m.costDay != day {
			m.cost, m.costDay = map[string]float64{}, day
		}
		ts := e.TS
		if ts.IsZero() {
			ts = m.cfg.Now()
		}
		if ts.Local().Format(time.DateOnly) == day {
			m.cost[id] += e.CostUSD
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
	name := m.name(ev.id)
	switch {
	case ev.e.Sidechain:
	case ev.e.Type == event.TurnComplete:
		m.notify(finishedNote(ev.id, name, ev.e, m.answer[ev.id]), time.Duration(ev.e.DurationMS)*time.Millisecond)
	case ev.e.Type == event.Status && ev.e.State == event.StateNeedsInput:
		m.notify(needsInputNote(ev.id, name, ev.e.Reason), 0)
	}
	return ev.e.Type == event.TurnComplete
}

func (m *Menu) name(id string) string {
	for _, w := range m.list {
		if w.ID == id {
			return w.Name
		}
	}
	return id
}

// notify shows a note if the settings want it, folding storms into one.
func (m *Menu) notify(n note, turn time.Duration) {
	if m.cfg.Notifier == nil {
		return
	}
	viewing := m.cfg.Actions.Viewing != nil && m.cfg.Actions.Viewing(n.workspace)
	if !worthNotifying(m.settings, n, m.paired[n.workspace], viewing, turn) {
		return
	}
	show, now, at := m.coal.add(m.cfg.Now(), n)
	if now {
		m.show(show)
		return
	}
	m.flush.Reset(max(at.Sub(m.cfg.Now()), 0))
}

// show sends a notification off the loop (a notification service can be
// slow); a failure is logged once, not once per turn.
func (m *Menu) show(n note) {
	go func() {
		err := m.cfg.Notifier.Notify(n.title, n.body)
		m.done <- func() {
			switch {
			case err != nil && !m.failed:
				m.failed = true
				m.cfg.Log.Warn().Err(err).Msg("desktop notifications are not working; the bridge carries on without them")
			case err == nil && m.failed:
				m.failed = false
				m.cfg.Log.Info().Msg("desktop notifications work again")
			}
		}
	}()
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

// click handles a menu click. Nothing here waits: slow work goes async.
func (m *Menu) click(ctx context.Context, id string) {
	act := m.cfg.Actions
	logErr := func(what string, err error) {
		if err != nil {
			m.cfg.Log.Warn().Err(err).Msg(what)
		}
	}
	switch {
	case strings.HasPrefix(id, "ws/"):
		action, ws, _ := strings.Cut(strings.TrimPrefix(id, "ws/"), "/")
		switch action {
		case "pair":
			paired := m.paired[ws]
			m.async(func() func() {
				var err error
				if paired {
					err = m.cfg.Pairing.Unpair(ws)
				} else {
					err = m.cfg.Pairing.Pair(ws)
				}
				logErr("pairing from the menu failed", err)
				return m.refreshPaired
			})
		case "conductor":
			m.async(func() func() {
				logErr("open in Conductor", call(act.OpenURL, "conductor://workspace?id="+url.QueryEscape(ws)))
				return nil
			})
		case "viewer":
			m.async(func() func() {
				if act.ViewerLink == nil {
					return nil
				}
				link, err := act.ViewerLink(ctx, ws)
				if err == nil {
					err = call(act.OpenURL, link)
				}
				logErr("open the session viewer", err)
				return m.refreshPaired
			})
		case "copy":
			m.async(func() func() { logErr("copy the workspace id", call(act.CopyText, ws)); return nil })
		case "mute":
			m.settings.ToggleMute(ws)
			m.saveSettings()
		}
	case id == clickHooksSetup && act.InstallHooks != nil:
		dirs := m.noHooks
		m.async(func() func() {
			err := act.InstallHooks(dirs)
			logErr("set up hooks", err)
			return func() {
				if err == nil {
					m.settings.HooksOffer, m.noHooks = "accepted", nil
					m.saveSettings()
				}
			}
		})
	case id == clickHooksNever:
		m.settings.HooksOffer, m.noHooks = "declined", nil
		m.saveSettings()
	case strings.HasPrefix(id, clickNotifyPrefix):
		m.settings.Notifications = strings.TrimPrefix(id, clickNotifyPrefix)
		m.saveSettings()
	case id == clickLogin && m.cfg.LoginItem != nil:
		want := !*m.login
		m.async(func() func() {
			var err error
			if want {
				err = m.cfg.LoginItem.Install()
			} else {
				err = m.cfg.LoginItem.Uninstall()
			}
			logErr("change Start at login", err)
			on := m.cfg.LoginItem.Installed()
			return func() { m.login = &on }
		})
	case id == clickExtension && act.InstallExtension != nil:
		m.async(func() func() {
			dir, err := act.InstallExtension()
			if err != nil {
				logErr("write the Chrome extension", err)
				return nil
			}
			logErr("show the Chrome extension's folder", call(act.OpenURL, dir))
			m.cfg.Log.Info().Str("dir", dir).Msg("Chrome extension written; load it from chrome://extensions")
			if m.cfg.Notifier != nil {
				// The two clicks only the person can make, where they will see them.
				m.cfg.Notifier.Notify("Install the Chrome side panel",
					"In Chrome, open chrome://extensions, turn on Developer mode, click Load unpacked and choose "+dir)
			}
			return nil
		})
	case id == clickLogs:
		m.async(func() func() { logErr("open the logs", call(act.OpenURL, act.LogDir)); return nil })
	case id == clickQuit:
		if act.Quit != nil {
			act.Quit()
		}
	}
}

// saveSettings hands a copy of the settings to the saver. A copy still
// waiting is replaced: the file ends with the newest settings, whatever
// order the clicks came in.
func (m *Menu) saveSettings() {
	s := m.settings
	s.Muted = slices.Clone(s.Muted)
	select {
	case <-m.save:
	default:
	}
	m.save <- s
}

// saver writes settings off the loop, one at a time, in order. At the end
// it still writes a change that was waiting: a click just before Quit
// counts.
func (m *Menu) saver(ctx context.Context) {
	save := func(s Settings) {
		if err := s.Save(); err != nil {
			m.cfg.Log.Warn().Err(err).Msg("tray settings not saved")
		}
	}
	for {
		select {
		case <-ctx.Done():
			select {
			case s := <-m.save:
				save(s)
			default:
			}
			return
		case s := <-m.save:
			save(s)
		}
	}
}

func call(f func(string) error, arg string) error {
	if f == nil {
		return nil
	}
	return f(arg)
}

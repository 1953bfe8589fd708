package tray

import (
	"cmp"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// A note is one notification, waiting to be shown.
type note struct {
	workspace string
	session   string // the agent session it is about ("" when the stream named none)
	kind      string // event.TurnComplete, event.StateNeedsInput or event.StateError
	title     string
	body      string
	line      string // how it reads as one line of a summary
}

// noteName names a note as the menu's tab line and the viewer label a
// tab: the workspace, then, when it has several tabs, the tab's title
// (else the start of its id), then the agent — "tokyo · Claude", "Login
// revamp · Fix CSS · Cursor".
func noteName(w engine.Info, tab *engine.SessionInfo, agent string) string {
	name := displayName(w)
	if tab != nil && len(w.Sessions) > 1 {
		name += " · " + tabTitle(*tab)
	}
	if agent != "" {
		name += " · " + agent
	}
	return name
}

// agentOf names the agent of an event's session: the tab's, else the one
// the event itself names (a session the workspace's list does not hold
// yet), else the engine's default; "" when none is known.
func (m *Menu) agentOf(tab *engine.SessionInfo, e event.Event) string {
	if tab != nil && agentName(*tab) != "" {
		return agentName(*tab)
	}
	if e.Agent != "" {
		if l := m.cfg.Engine.Label(e.Agent); l != "" {
			return l
		}
	}
	return m.cfg.Engine.Label("")
}

func sessionOf(tab *engine.SessionInfo) string {
	if tab == nil {
		return ""
	}
	return tab.SessionID
}

func finishedNote(w engine.Info, tab *engine.SessionInfo, agent string, e event.Event, answer string) note {
	name := noteName(w, tab, agent)
	facts := turnCost(e) + " · " + duration(time.Duration(e.DurationMS)*time.Millisecond)
	words := firstWords(answer, 90)
	body := facts
	if words != "" {
		body = words + "\n" + facts
	}
	return note{workspace: w.ID, session: sessionOf(tab), kind: event.TurnComplete, title: name + " finished", body: body,
		line: name + " finished · " + facts}
}

// turnCost is a turn's cost as a notification says it: "$0.42", or "cost
// unknown (no price for kimi-k2-turbo)" rather than a made-up $0.00.
func turnCost(e event.Event) string {
	if !e.CostKnown {
		if e.Model != "" {
			return "cost unknown (no price for " + e.Model + ")"
		}
		return "cost unknown"
	}
	return fmt.Sprintf("$%.2f", e.CostUSD)
}

func needsInputNote(w engine.Info, tab *engine.SessionInfo, agent, reason string) note {
	name := noteName(w, tab, agent)
	agent = cmp.Or(agent, "The agent")
	why := agent + " is waiting for you"
	switch reason {
	case "permission_prompt":
		why = agent + " asks for permission"
	case "idle_prompt":
		why = agent + " is waiting for your reply"
	case "question":
		why = agent + " asks you a question"
	case "plan":
		why = agent + " has a plan for you to review"
	}
	return note{workspace: w.ID, session: sessionOf(tab), kind: event.StateNeedsInput, title: name + " needs your input", body: why,
		line: name + " needs your input"}
}

func failedNote(w engine.Info, tab *engine.SessionInfo, agent, reason string) note {
	name := noteName(w, tab, agent)
	body := cmp.Or(agent, "The agent") + " stopped with an error"
	if reason != "" {
		body += ": " + strings.ReplaceAll(reason, "_", " ")
	}
	return note{workspace: w.ID, session: sessionOf(tab), kind: event.StateError, title: name + " failed", body: body,
		line: name + " failed"}
}

// launchedByConductor reports whether Conductor runs this session itself
// (and so answers its permission prompts): a tab it knows by id, or, where
// the session is not known, a workspace read from Conductor's database.
func launchedByConductor(w engine.Info, tab *engine.SessionInfo) bool {
	if w.Source != discover.SourceConductorDB {
		return false
	}
	return tab == nil || tab.ConductorID != ""
}

// worthNotifying applies the person's settings to a note.
func worthNotifying(s Settings, n note, paired, viewing bool, turn time.Duration) bool {
	switch {
	case s.Notifications == NotifyOff:
		return false
	case s.Notifications == NotifyPaired && !paired:
		return false
	case s.IsMuted(n.workspace):
		return false
	case s.QuietWhenViewing && paired && viewing:
		return false // they are looking at it in the browser
	case n.kind == event.TurnComplete && turn < time.Duration(s.MinTurnSeconds)*time.Second:
		return false // a quick turn: they were probably still watching
	}
	return true
}

// coalescer keeps a burst of notes from becoming a storm: the first note of
// a quiet spell shows at once, and whatever follows within the window is
// folded into one summary when the window ends.
type coalescer struct {
	window     time.Duration
	quietUntil time.Time
	held       []note
}

// add returns the note to show now, or false when it is held for the
// summary; then the caller flushes at the returned time.
func (c *coalescer) add(now time.Time, n note) (show note, ok bool, flushAt time.Time) {
	if len(c.held) == 0 && !now.Before(c.quietUntil) {
		c.quietUntil = now.Add(c.window)
		return n, true, time.Time{}
	}
	c.held = append(c.held, n)
	return note{}, false, c.quietUntil
}

// flush returns the summary of the held notes, if any.
func (c *coalescer) flush(now time.Time) (note, bool) {
	if len(c.held) == 0 {
		return note{}, false
	}
	held := c.held
	c.held = nil
	c.quietUntil = now.Add(c.window)
	return summary(held), true
}

func summary(ns []note) note {
	if len(ns) == 1 {
		return ns[0]
	}
	needs := 0
	for _, n := range ns {
		if n.kind == event.StateNeedsInput || n.kind == event.StateError {
			needs++
		}
	}
	title := fmt.Sprintf("%d agents finished", len(ns))
	if needs > 0 {
		title = fmt.Sprintf("%d agents need your attention", len(ns))
	}
	var lines []string
	for i, n := range ns {
		if i == 4 {
			lines = append(lines, fmt.Sprintf("and %d more", len(ns)-i))
			break
		}
		lines = append(lines, n.line)
	}
	return note{kind: "summary", title: title, body: strings.Join(lines, "\n")}
}

// firstWords returns about n characters of s, cut at a word.
func firstWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, _ := event.Cut(s, n)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

// duration is a short human duration: 45s, 3m 05s, 1h 02m.
func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
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

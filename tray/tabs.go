package tray

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// liveWindow is how recently a tab must have been active to get a line of
// its own (the engine's default active window).
const liveWindow = 10 * time.Minute

// displayName is the name a person sees: Conductor's workspace name (or
// the PR title, the branch), else the codename.
func displayName(w engine.Info) string {
	if w.DisplayName != "" {
		return w.DisplayName
	}
	return w.Name
}

// agentName is how the menu names a session's agent: the engine's label
// (its driver's), else the agent's name capitalised.
func agentName(s engine.SessionInfo) string {
	if s.Label != "" || s.Agent == "" {
		return s.Label
	}
	return strings.ToUpper(s.Agent[:1]) + s.Agent[1:]
}

// tabTitle is a tab's title, else the start of its id (a tab line adds
// the agent: "0b0b0b0b · Claude", as the viewer labels it).
func tabTitle(s engine.SessionInfo) string {
	if t := strings.TrimSpace(s.Title); t != "" {
		return t
	}
	return shortID(s)
}

func shortID(s engine.SessionInfo) string {
	id := s.SessionID
	if id == "" {
		id = s.ConductorID
	}
	if len(id) > 8 {
		id = id[:8]
	}
	return id
}

// findSession returns the workspace's session with that agent session id.
func findSession(w engine.Info, id string) *engine.SessionInfo {
	if id == "" {
		return nil
	}
	for i := range w.Sessions {
		if w.Sessions[i].SessionID == id {
			return &w.Sessions[i]
		}
	}
	return nil
}

// activeTab is the session the workspace's line opens in Conductor:
// Conductor's tab on screen, else the first (most recently active) one.
func activeTab(w engine.Info) *engine.SessionInfo {
	for i := range w.Sessions {
		if w.Sessions[i].Active {
			return &w.Sessions[i]
		}
	}
	if len(w.Sessions) > 0 {
		return &w.Sessions[0]
	}
	return nil
}

// liveTabs are the sessions worth a line: ones the bridge streams or
// Conductor reports a status for, that are busy, on screen or were active
// within the window.
func liveTabs(now time.Time, w engine.Info) []engine.SessionInfo {
	var out []engine.SessionInfo
	for _, s := range w.Sessions {
		if !s.Streamed && s.Status == "" {
			continue
		}
		last := s.LastActivity
		if last.IsZero() {
			last = s.StatusSince
		}
		busy := s.Status == event.StateWorking || s.Status == event.StateNeedsInput || s.Status == event.StateError
		if busy || s.Active || (!last.IsZero() && now.Sub(last) < liveWindow) {
			out = append(out, s)
		}
	}
	return out
}

// stateText says what an agent is doing, why, and for how long.
func stateText(now time.Time, status, reason string, since time.Time) string {
	s := strings.ReplaceAll(status, "_", " ")
	if s == "" {
		s = "no session"
	}
	if status == event.StateNeedsInput {
		if r := reasonText(reason); r != "" {
			s += " (" + r + ")"
		}
	}
	if since.IsZero() {
		return s
	}
	d := now.Sub(since)
	switch {
	case d < time.Minute:
		return s + " now"
	case d < time.Hour:
		return fmt.Sprintf("%s %dm", s, int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%s %dh", s, int(d.Hours()))
	}
	return fmt.Sprintf("%s %dd", s, int(d.Hours()/24))
}

// reasonText is why an agent waits, in a few words.
func reasonText(reason string) string {
	switch reason {
	case "question":
		return "question"
	case "plan":
		return "plan to review"
	case "permission_prompt":
		return "permission"
	case "idle_prompt":
		return "waiting for reply"
	}
	return strings.ReplaceAll(reason, "_", " ")
}

// costText is a cost as the menu shows it, and a tooltip that explains
// it. Unknown stays unknown: "?" when no turn had a price, "≈$x" (at
// least x) when some had none; the tooltip names the models.
func costText(s spend) (text, tip string) {
	var tips []string
	if s.subagent > 0 {
		tips = append(tips, fmt.Sprintf("incl. $%.2f subagents", s.subagent))
	}
	if s.unknown > 0 {
		models := "an unknown model"
		if len(s.models) > 0 {
			ms := slices.Clone(s.models)
			slices.Sort(ms)
			models = strings.Join(ms, ", ")
		}
		tips = append(tips, fmt.Sprintf("%d turn(s) not priced: no price for %s", s.unknown, models))
	}
	tip = strings.Join(tips, "; ")
	switch {
	case s.unknown > 0 && s.usd > 0:
		return fmt.Sprintf("≈$%.2f today", s.usd), tip
	case s.unknown > 0:
		return "? today", tip
	case s.usd > 0:
		return fmt.Sprintf("$%.2f today", s.usd), tip
	}
	return "", tip
}

// workspaceSpend is today's cost of all a workspace's sessions.
func workspaceSpend(cost map[sessKey]spend, ws string) spend {
	var total spend
	for k, s := range cost {
		if k.ws == ws {
			total = total.add(s)
		}
	}
	return total
}

// tabItem is one tab's line under its workspace: what it is, what it is
// doing and what it cost today. Clicking it opens that tab in Conductor
// (or the viewer, outside Conductor).
func tabItem(v view, w engine.Info, s engine.SessionInfo, conductor bool) Item {
	title := glyph(s.Status) + tabTitle(s) + " · " + agentName(s) + " — " + stateText(v.now, s.Status, s.Reason, s.StatusSince)
	c, tip := costText(v.cost[sessKey{w.ID, s.SessionID}])
	if c != "" {
		title += " · " + c
	}
	if !s.Streamed {
		tip = strings.TrimPrefix(tip+"; status from Conductor only (the bridge cannot read this agent's record yet)", "; ")
	}
	it := Item{Title: title, Tooltip: tip, Click: Action{Kind: actViewer, Workspace: w.ID, Session: s.SessionID}}
	if conductor && s.ConductorID != "" {
		it.Click = Action{Kind: actConductor, Workspace: w.ID, Session: s.ConductorID}
	}
	return it
}

package tray

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// view is everything the menu shows, gathered by the event loop. The menu
// is a pure function of it (buildMenu), which is what the tests check.
type view struct {
	now        time.Time
	workspaces []engine.Info
	paired     map[string]bool
	cost       map[string]float64 // today's cost per workspace
	settings   Settings
	loginItem  *bool    // nil when there is no login item support
	trouble    string   // the bridge's own problem, shown first
	noHooks    []string // workspaces to offer hooks to (the offer is still open)
}

// groupAbove is how many workspaces fit in the menu before they are
// grouped by repository.
const groupAbove = 8

// maxOthers bounds the submenu of plain Claude Code projects that are not
// in use: every folder claude ever ran in would otherwise be listed.
const maxOthers = 30

// Click ids. Workspace items are "ws/<action>/<id>".
const (
	clickHooksSetup   = "hooks/setup"
	clickHooksNever   = "hooks/never"
	clickNotifyPrefix = "notify/"
	clickLogin        = "login"
	clickLogs         = "logs"
	clickExtension    = "extension"
	clickQuit         = "quit"
)

func wsClick(action, id string) string { return "ws/" + action + "/" + id }

// overall is the icon, the short title beside it and the tooltip.
func overall(v view) (IconState, string, string) {
	working, needs := 0, 0
	for _, w := range v.workspaces {
		switch w.Status {
		case event.StateWorking:
			working++
		case event.StateNeedsInput:
			needs++
		}
	}
	var parts []string
	if needs > 0 {
		parts = append(parts, fmt.Sprintf("%d needs input", needs))
	}
	if working > 0 {
		parts = append(parts, fmt.Sprintf("%d working", working))
	}
	summary := strings.Join(parts, ", ")
	if summary == "" {
		summary = "all idle"
	}
	switch {
	case v.trouble != "":
		return IconError, "!", "Conductor Bridge: " + v.trouble
	case needs > 0:
		return IconNeedsInput, fmt.Sprintf("%d needs input", needs), "Conductor Bridge: " + summary
	case working > 0:
		return IconWorking, fmt.Sprintf("%d working", working), "Conductor Bridge: " + summary
	}
	return IconIdle, "", "Conductor Bridge: " + summary
}

// buildMenu builds the whole menu from the view.
func buildMenu(v view) []Item {
	_, _, tip := overall(v)
	header := strings.TrimPrefix(tip, "Conductor Bridge: ")
	if len(v.workspaces) == 0 {
		header = "no workspaces found yet"
	}
	items := []Item{{Title: "Conductor Bridge — " + header, Disabled: true}}
	if v.trouble != "" {
		items = append(items, Item{Title: "⚠ " + v.trouble, Disabled: true})
	}
	if n := len(v.noHooks); n > 0 && v.settings.HooksOffer == "" {
		// The one-time offer: nothing in anyone's repository changes
		// until they click it.
		word := "workspaces"
		if n == 1 {
			word = "workspace"
		}
		items = append(items, Item{Title: fmt.Sprintf("Set up hooks for %d %s…", n, word),
			Tooltip: "so messages from the side panel reach the agents",
			Children: []Item{
				{ID: clickHooksSetup, Title: fmt.Sprintf("Set up (adds the bridge's hooks to .claude/settings.local.json in %d %s)", n, word)},
				{ID: clickHooksNever, Title: "Don't ask again"},
			}})
	}
	items = append(items, Item{Separator: true})

	var main, others []engine.Info
	for _, w := range v.workspaces {
		if inUse(v, w) {
			main = append(main, w)
		} else {
			others = append(others, w)
		}
	}
	if len(main) > groupAbove {
		items = append(items, byRepo(v, main)...)
	} else {
		for _, w := range main {
			items = append(items, workspaceItem(v, w))
		}
	}
	if len(others) > 0 {
		sort.Slice(others, func(i, j int) bool { return others[i].StatusSince.After(others[j].StatusSince) })
		sub := Item{Title: fmt.Sprintf("Other Claude Code projects (%d)", len(others))}
		for i, w := range others {
			if i == maxOthers {
				sub.Children = append(sub.Children, Item{Title: fmt.Sprintf("and %d more (see: conductor-bridge workspaces)", len(others)-i), Disabled: true})
				break
			}
			sub.Children = append(sub.Children, workspaceItem(v, w))
		}
		items = append(items, sub)
	}
	items = append(items, Item{Separator: true})

	mode := Item{Title: "Notifications"}
	for _, m := range []struct{ id, title string }{
		{NotifyOn, "On"}, {NotifyPaired, "Paired workspaces only"}, {NotifyOff, "Off"},
	} {
		mode.Children = append(mode.Children, Item{ID: clickNotifyPrefix + m.id, Title: m.title,
			Checkable: true, Checked: v.settings.Notifications == m.id})
	}
	items = append(items, mode)
	if v.loginItem != nil {
		items = append(items, Item{ID: clickLogin, Title: "Start at login", Checkable: true, Checked: *v.loginItem})
	}
	items = append(items,
		Item{ID: clickExtension, Title: "Install Chrome extension…", Tooltip: "the side panel that shows the paired workspace next to the page"},
		Item{ID: clickLogs, Title: "Open logs"},
		Item{Separator: true},
		Item{ID: clickQuit, Title: "Quit Conductor Bridge"},
	)
	return items
}

// inUse decides who gets a line of their own: Conductor's and registered
// workspaces, and plain projects with a live agent, a pairing or a recent
// session.
func inUse(v view, w engine.Info) bool {
	return w.Source != discover.SourceClaude || w.Active || v.paired[w.ID] ||
		w.Status == event.StateWorking || w.Status == event.StateNeedsInput ||
		(!w.StatusSince.IsZero() && v.now.Sub(w.StatusSince) < 24*time.Hour)
}

func byRepo(v view, ws []engine.Info) []Item {
	groups := map[string][]engine.Info{}
	var names []string
	for _, w := range ws {
		r := w.Repo
		if r == "" {
			r = "Other"
		}
		if _, ok := groups[r]; !ok {
			names = append(names, r)
		}
		groups[r] = append(groups[r], w)
	}
	sort.Strings(names)
	var out []Item
	for _, r := range names {
		_, _, tip := overall(view{workspaces: groups[r]})
		it := Item{Title: fmt.Sprintf("%s — %s", r, strings.TrimPrefix(tip, "Conductor Bridge: "))}
		for _, w := range groups[r] {
			it.Children = append(it.Children, workspaceItem(v, w))
		}
		out = append(out, it)
	}
	return out
}

// workspaceItem is a workspace's line and its submenu.
func workspaceItem(v view, w engine.Info) Item {
	name := w.Name
	if w.Repo != "" && w.Repo != w.Name {
		name = w.Repo + " / " + w.Name
	}
	title := glyph(w.Status) + name
	if w.Branch != "" {
		title += " · " + w.Branch
	}
	title += " — " + stateText(v.now, w)
	if c := v.cost[w.ID]; c > 0 {
		title += fmt.Sprintf(" · $%.2f today", c)
	}
	it := Item{Title: title, Tooltip: w.Directory}
	it.Children = append(it.Children, Item{ID: wsClick("pair", w.ID), Title: "Paired with Chrome", Checkable: true, Checked: v.paired[w.ID]})
	if w.Source == discover.SourceConductorDB || w.Source == discover.SourceConductorFolder {
		it.Children = append(it.Children, Item{ID: wsClick("conductor", w.ID), Title: "Open in Conductor"})
	}
	it.Children = append(it.Children,
		Item{ID: wsClick("viewer", w.ID), Title: "Open session viewer"},
		Item{ID: wsClick("copy", w.ID), Title: "Copy workspace id"},
		Item{ID: wsClick("mute", w.ID), Title: "Notify for this workspace", Checkable: true, Checked: !v.settings.IsMuted(w.ID)},
	)
	return it
}

func glyph(status string) string {
	switch status {
	case event.StateWorking:
		return "● "
	case event.StateNeedsInput:
		return "⚠ "
	case event.StateError:
		return "✕ "
	}
	return "○ "
}

// stateText says what the agent is doing and for how long.
func stateText(now time.Time, w engine.Info) string {
	s := strings.ReplaceAll(w.Status, "_", " ")
	if s == "" {
		s = "no session"
	}
	if w.StatusSince.IsZero() {
		return s
	}
	d := now.Sub(w.StatusSince)
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

// sameShape reports whether two menus have the same items, clicks and
// nesting, whatever their titles and checkmarks say.
func sameShape(a, b []Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Separator != b[i].Separator || a[i].ID != b[i].ID || a[i].Checkable != b[i].Checkable ||
			!sameShape(a[i].Children, b[i].Children) {
			return false
		}
	}
	return true
}

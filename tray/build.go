package tray

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/hooks"
)

// view is everything the menu shows, gathered by the event loop. The menu
// is a pure function of it (buildMenu), which is what the tests check.
type view struct {
	now        time.Time
	workspaces []engine.Info
	paired     map[string]bool
	cost       map[sessKey]spend // today's cost per session
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

// counts are how many workspaces work or wait, each counted once by its
// most urgent session (the engine's Info.Status already is), and why
// they wait.
func counts(ws []engine.Info) (working, needs int, reasons []string) {
	for _, w := range ws {
		switch w.Status {
		case event.StateWorking:
			working++
		case event.StateNeedsInput:
			needs++
			if r := reasonText(w.Reason); r != "" && !slices.Contains(reasons, r) {
				reasons = append(reasons, r)
			}
		}
	}
	sort.Strings(reasons)
	return working, needs, reasons
}

// summaryOf says in a few words what the agents are doing:
// "1 needs input (question), 2 working".
func summaryOf(v view) string {
	working, needs, reasons := counts(v.workspaces)
	var parts []string
	if needs > 0 {
		p := fmt.Sprintf("%d needs input", needs)
		if len(reasons) > 0 {
			p += " (" + strings.Join(reasons, ", ") + ")"
		}
		parts = append(parts, p)
	}
	if working > 0 {
		parts = append(parts, fmt.Sprintf("%d working", working))
	}
	if len(parts) == 0 {
		return "all idle"
	}
	return strings.Join(parts, ", ")
}

// overall is the icon, the short title beside it and the tooltip.
func overall(v view) (IconState, string, string) {
	working, needs, _ := counts(v.workspaces)
	tip := "Conductor Bridge: " + summaryOf(v)
	switch {
	case v.trouble != "":
		return IconError, "!", "Conductor Bridge: " + v.trouble
	case needs > 0:
		return IconNeedsInput, fmt.Sprintf("%d needs input", needs), tip
	case working > 0:
		return IconWorking, fmt.Sprintf("%d working", working), tip
	}
	return IconIdle, "", tip
}

// buildMenu builds the whole menu from the view.
func buildMenu(v view) []Item {
	header := summaryOf(v)
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
				{Click: Action{Kind: actHooksSetup}, Title: fmt.Sprintf("Set up (adds the bridge's hooks to %s in %d %s)", hooks.WorkspaceFile, n, word)},
				{Click: Action{Kind: actHooksNever}, Title: "Don't ask again"},
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
		sub := Item{Title: fmt.Sprintf("Other projects (%d)", len(others))}
		for i, w := range others {
			if i == maxOthers {
				sub.Children = append(sub.Children, Item{Title: fmt.Sprintf("and %d more (see: conductor-bridge workspaces)", len(others)-i), Disabled: true})
				break
			}
			sub.Children = append(sub.Children, workspaceItem(v, w))
		}
		items = append(items, sub)
	}
	items = append(items, Item{Separator: true}, usageItem(v))

	mode := Item{Title: "Notifications"}
	for _, m := range []struct {
		kind  ActionKind
		mode  string
		title string
	}{
		{actNotifyOn, NotifyOn, "On"}, {actNotifyPaired, NotifyPaired, "Paired workspaces only"}, {actNotifyOff, NotifyOff, "Off"},
	} {
		mode.Children = append(mode.Children, Item{Click: Action{Kind: m.kind}, Title: m.title,
			Checkable: true, Checked: v.settings.Notifications == m.mode})
	}
	items = append(items, mode)
	if v.loginItem != nil {
		items = append(items, Item{Click: Action{Kind: actLogin}, Title: "Start at login", Checkable: true, Checked: *v.loginItem})
	}
	items = append(items,
		Item{Click: Action{Kind: actExtension}, Title: "Install Chrome extension…", Tooltip: "the side panel that shows the paired workspace next to the page"},
		Item{Click: Action{Kind: actLogs}, Title: "Open logs"},
		Item{Separator: true},
		Item{Click: Action{Kind: actQuit}, Title: "Quit Conductor Bridge"},
	)
	return items
}

// browserMark marks a workspace whose gstack browse server is live.
const browserMark = "🌐 browser"

// inUse decides who gets a line of their own: Conductor's and registered
// workspaces, and plain projects (a folder only a Claude Code or Codex run
// found) with a live agent, a pairing, a live browser or a recent session.
func inUse(v view, w engine.Info) bool {
	plain := w.Source != discover.SourceConductorDB && w.Source != discover.SourceConductorFolder && w.Source != discover.SourceRegistered
	return !plain || w.Active || v.paired[w.ID] || w.Browser ||
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
		it := Item{Title: fmt.Sprintf("%s — %s", r, summaryOf(view{workspaces: groups[r]}))}
		for _, w := range groups[r] {
			it.Children = append(it.Children, workspaceItem(v, w))
		}
		out = append(out, it)
	}
	return out
}

// workspaceItem is a workspace's line and its submenu: a line per live
// tab first when it has several, then what can be done with it.
func workspaceItem(v view, w engine.Info) Item {
	name := displayName(w)
	if w.Repo != "" && w.Repo != name {
		name = w.Repo + " / " + name
	}
	title := glyph(w.Status) + name
	if w.Branch != "" && w.Branch != displayName(w) {
		title += " · " + w.Branch
	}
	title += " — " + stateText(v.now, w.Status, w.Reason, w.StatusSince)
	tabs := liveTabs(v.now, w)
	if len(tabs) > 1 {
		title += fmt.Sprintf(" · %d tabs", len(tabs))
	}
	if w.Browser {
		title += " · " + browserMark
	}
	c, costTip := costText(workspaceSpend(v.cost, w.ID))
	if c != "" {
		title += " · " + c
	}
	tip := w.Directory
	if w.Browser {
		tip += "\ndriving a browser: gstack's browse server is live, its actions are in the session stream"
	}
	if costTip != "" {
		tip += "\n" + costTip
	}
	it := Item{Title: title, Tooltip: tip}
	conductor := w.Source == discover.SourceConductorDB || w.Source == discover.SourceConductorFolder
	if len(tabs) > 1 {
		for _, s := range tabs {
			it.Children = append(it.Children, tabItem(v, w, s, conductor))
		}
		it.Children = append(it.Children, Item{Separator: true})
	}
	it.Children = append(it.Children, Item{Click: wsAction(actPair, w.ID), Title: "Paired with Chrome", Checkable: true, Checked: v.paired[w.ID]})
	if conductor {
		open := wsAction(actConductor, w.ID)
		if t := activeTab(w); t != nil {
			open.Session = t.ConductorID
		}
		it.Children = append(it.Children, Item{Click: open, Title: "Open in Conductor"})
	}
	it.Children = append(it.Children,
		Item{Click: wsAction(actViewer, w.ID), Title: "Open session viewer"},
		Item{Click: wsAction(actCopy, w.ID), Title: "Copy workspace id"},
		Item{Click: wsAction(actMute, w.ID), Title: "Notify for this workspace", Checkable: true, Checked: !v.settings.IsMuted(w.ID)},
	)
	return it
}

// usageItem is today's cost over every session, leading to the usage page.
func usageItem(v view) Item {
	var total spend
	for _, s := range v.cost {
		total = total.add(s)
	}
	c, tip := costText(total)
	if c == "" {
		c = "$0.00 today"
	}
	if tip != "" {
		tip += "; "
	}
	return Item{Click: Action{Kind: actUsage}, Title: "Today's cost: " + strings.TrimSuffix(c, " today") + " — usage…",
		Tooltip: tip + "cost per day, workspace and model, in the browser"}
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

// sameShape reports whether two menus have the same items, clicks and
// nesting, whatever their titles and checkmarks say.
func sameShape(a, b []Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Separator != b[i].Separator || a[i].Click != b[i].Click || a[i].Checkable != b[i].Checkable ||
			!sameShape(a[i].Children, b[i].Children) {
			return false
		}
	}
	return true
}

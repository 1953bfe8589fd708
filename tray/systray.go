//go:build linux || (darwin && cgo)

package tray

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"fyne.io/systray"
)

// systrayShell draws the menu with fyne.io/systray.
type systrayShell struct {
	clicks chan Action
	mu     sync.Mutex
	cancel context.CancelFunc // stops the click watchers of the menu on screen
	icon   IconState
	title  string
	shown  []Item      // the menu on screen …
	live   []*liveItem // … and its systray items, in the same shape
}

// liveItem is a drawn Item (nil mi for a separator).
type liveItem struct {
	mi       *systray.MenuItem
	children []*liveItem
}

func (s *systrayShell) Clicks() <-chan Action { return s.clicks }

func (s *systrayShell) SetIcon(st IconState) {
	s.mu.Lock()
	s.icon = st
	s.mu.Unlock()
	setIcon(st)
}

func setIcon(st IconState) {
	// Template icons follow light and dark menu bars on macOS; other
	// platforms take the regular one.
	systray.SetTemplateIcon(IconPNG(st, true, 32), IconPNG(st, false, 32))
}

func (s *systrayShell) SetTitle(t string) {
	s.mu.Lock()
	s.title = t
	s.mu.Unlock()
	systray.SetTitle(t)
}

// reassert sets the icon and title again. On Linux, fyne.io/systray v1.12.2
// drops values set while it is still exporting its D-Bus objects (the
// first moments after ready), and nothing else would set them again until
// the state changes.
func (s *systrayShell) reassert() {
	s.mu.Lock()
	icon, title := s.icon, s.title
	s.mu.Unlock()
	setIcon(icon)
	systray.SetTitle(title)
}
func (s *systrayShell) SetTooltip(t string) { systray.SetTooltip(t) }

// SetMenu shows the menu the Menu built from state. When only words and
// checkmarks changed ("working 3m" becoming "working 4m"), the items on
// screen are updated in place: rebuilding a menu that is open would close
// it under the person's pointer and lose their click. Anything else —
// a workspace come or gone — rebuilds it.
func (s *systrayShell) SetMenu(items []Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live != nil && sameShape(s.shown, items) {
		update(s.live, s.shown, items)
		s.shown = items
		return
	}
	if s.cancel != nil {
		s.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	systray.ResetMenu()
	s.live = s.live[:0]
	for _, it := range items {
		s.live = append(s.live, s.add(ctx, nil, it))
	}
	s.shown = items
}

// update changes the drawn items whose words or state differ.
func update(live []*liveItem, old, items []Item) {
	for i, it := range items {
		l, o := live[i], old[i]
		if l.mi == nil {
			continue
		}
		if it.Title != o.Title {
			l.mi.SetTitle(label(it.Title))
		}
		if it.Tooltip != o.Tooltip {
			l.mi.SetTooltip(it.Tooltip)
		}
		switch {
		case it.Checked && !o.Checked:
			l.mi.Check()
		case !it.Checked && o.Checked:
			l.mi.Uncheck()
		}
		switch {
		case it.Disabled && !o.Disabled:
			l.mi.Disable()
		case !it.Disabled && o.Disabled:
			l.mi.Enable()
		}
		update(l.children, o.Children, it.Children)
	}
}

func (s *systrayShell) add(ctx context.Context, parent *systray.MenuItem, it Item) *liveItem {
	if it.Separator {
		if parent == nil {
			systray.AddSeparator()
		} else {
			parent.AddSeparator()
		}
		return &liveItem{}
	}
	title := label(it.Title)
	var mi *systray.MenuItem
	switch {
	case parent == nil && it.Checkable:
		mi = systray.AddMenuItemCheckbox(title, it.Tooltip, it.Checked)
	case parent == nil:
		mi = systray.AddMenuItem(title, it.Tooltip)
	case it.Checkable:
		mi = parent.AddSubMenuItemCheckbox(title, it.Tooltip, it.Checked)
	default:
		mi = parent.AddSubMenuItem(title, it.Tooltip)
	}
	if it.Disabled {
		mi.Disable()
	}
	l := &liveItem{mi: mi}
	for _, c := range it.Children {
		l.children = append(l.children, s.add(ctx, mi, c))
	}
	if it.Click != (Action{}) {
		go onClick(ctx, mi, func() {
			select {
			case s.clicks <- it.Click:
			case <-ctx.Done():
			}
		})
	}
	return l
}

// label escapes a title for the menu: in com.canonical.dbusmenu an
// underscore marks a keyboard shortcut, so "conductor_bridge" would show as
// "conductorbridge". macOS shows titles as they are.
func label(title string) string {
	if runtime.GOOS == "linux" {
		return strings.ReplaceAll(title, "_", "__")
	}
	return title
}

// onClick calls fn for each click on item until ctx ends (the menu it
// belongs to was replaced). ResetMenu closes the old items' channels: a
// closed channel is the end, not a click.
func onClick(ctx context.Context, item *systray.MenuItem, fn func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-item.ClickedCh:
			if !ok || ctx.Err() != nil {
				return
			}
			fn()
		}
	}
}

// RunSystray shows the menu-bar icon and blocks until ctx ends. ready
// receives the Shell once the icon exists. It must be called from the
// main goroutine: macOS runs its UI on the main thread. onExit is
// systray's exit callback: on macOS AppKit runs it when it terminates the
// app (logout, restart, a quit Apple event) and exits the process when it
// returns, without returning here; on Linux it runs after Quit.
func RunSystray(ctx context.Context, ready func(Shell), onExit func()) (err error) {
	shell := &systrayShell{clicks: make(chan Action, 16)}
	defer func() {
		// fyne.io/systray v1.12.2 panics when it quits without the D-Bus
		// connection it failed to make; Available is checked first, and
		// this is the guard for whatever slips through.
		if r := recover(); r != nil {
			err = fmt.Errorf("menu bar stopped: %v", r)
		}
	}()
	if ctx.Err() != nil {
		return ctx.Err() // stopped before it began: never start what cannot be stopped
	}
	// Set before Run: values set in the first moments after ready can be
	// lost (see reassert).
	setIcon(IconIdle)
	systray.SetTitle("")
	systray.Run(func() {
		// Quit only once Run is ready for it: on macOS a Quit before the
		// app has started is lost, and Run would never return.
		go func() {
			<-ctx.Done()
			systray.Quit()
		}()
		ready(shell)
		go func() {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
				shell.reassert()
			}
		}()
	}, onExit)
	return nil
}

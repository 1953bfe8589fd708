//go:build linux || (darwin && cgo)

package tray

import (
	"context"
	"fmt"
	"sync"

	"fyne.io/systray"
)

// systrayShell draws the menu with fyne.io/systray.
type systrayShell struct {
	clicks chan string
	mu     sync.Mutex
	cancel context.CancelFunc // stops the click watchers of the menu on screen
}

func (s *systrayShell) Clicks() <-chan string { return s.clicks }

func (s *systrayShell) SetIcon(st IconState) {
	// Template icons follow light and dark menu bars on macOS; other
	// platforms take the regular one.
	systray.SetTemplateIcon(IconPNG(st, true, 32), IconPNG(st, false, 32))
}

func (s *systrayShell) SetTitle(t string)   { systray.SetTitle(t) }
func (s *systrayShell) SetTooltip(t string) { systray.SetTooltip(t) }

// SetMenu replaces the whole menu: rebuilt from state, never patched.
func (s *systrayShell) SetMenu(items []Item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	systray.ResetMenu()
	for _, it := range items {
		s.add(ctx, nil, it)
	}
}

func (s *systrayShell) add(ctx context.Context, parent *systray.MenuItem, it Item) {
	if it.Separator {
		if parent == nil {
			systray.AddSeparator()
		} else {
			parent.AddSeparator()
		}
		return
	}
	var mi *systray.MenuItem
	switch {
	case parent == nil && it.Checkable:
		mi = systray.AddMenuItemCheckbox(it.Title, it.Tooltip, it.Checked)
	case parent == nil:
		mi = systray.AddMenuItem(it.Title, it.Tooltip)
	case it.Checkable:
		mi = parent.AddSubMenuItemCheckbox(it.Title, it.Tooltip, it.Checked)
	default:
		mi = parent.AddSubMenuItem(it.Title, it.Tooltip)
	}
	if it.Disabled {
		mi.Disable()
	}
	for _, c := range it.Children {
		s.add(ctx, mi, c)
	}
	if it.ID != "" {
		go onClick(ctx, mi, func() {
			select {
			case s.clicks <- it.ID:
			case <-ctx.Done():
			}
		})
	}
}

// onClick calls fn for each click on item until ctx ends (the menu it
// belongs to was replaced).
func onClick(ctx context.Context, item *systray.MenuItem, fn func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-item.ClickedCh:
			fn()
		}
	}
}

// RunSystray shows the menu-bar icon and blocks until ctx ends. ready
// receives the Shell once the icon exists. It must be called from the
// main goroutine: macOS runs its UI on the main thread.
func RunSystray(ctx context.Context, ready func(Shell)) (err error) {
	shell := &systrayShell{clicks: make(chan string, 16)}
	defer func() {
		// fyne.io/systray v1.12.2 panics when it quits without the D-Bus
		// connection it failed to make; Available is checked first, and
		// this is the guard for whatever slips through.
		if r := recover(); r != nil {
			err = fmt.Errorf("menu bar stopped: %v", r)
		}
	}()
	go func() {
		<-ctx.Done()
		systray.Quit()
	}()
	systray.Run(func() { ready(shell) }, nil)
	return nil
}

// Package tray is the menu bar: one icon that says whether any agent is
// working or waiting for the person, a menu with a line per workspace
// (pair it with Chrome, open it, mute it), and a desktop notification when
// a turn completes or an agent needs input (DESIGN.md, "Tray,
// notifications, login item").
//
// The shape follows Tailscale's client/systray: one Menu owns the state;
// one event loop selects over clicks, engine changes and stream events; the
// whole menu is built from state (buildMenu), never patched piecemeal by
// the logic. The tray sees the engine only through the Engine and Pairing
// interfaces, and draws through a Shell — fyne.io/systray for real, a fake
// in tests. The real shell redraws in place when only words and
// checkmarks changed, so an open menu is not closed under the pointer.
package tray

package tray

import (
	"context"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/pairing"
	"conductorbridge/bridge/stream"
)

// Engine is what the tray needs from the engine.
type Engine interface {
	Workspaces() []engine.Info
	Topic(id string) (*stream.Topic, bool)
	// Changes receives (coalesced) when the list or a workspace's state changes.
	Changes() <-chan struct{}
	// Label is how a person reads an agent's name ("" the default
	// agent's, as events carry it).
	Label(agent string) string
}

// Pairing is the pairing store the API uses: the tray's checkbox and the
// API change the same thing.
type Pairing interface {
	Paired(id string) (pairing.Pair, bool)
	Pair(id string) error
	Unpair(id string) error
	Watch() (<-chan struct{}, func())
}

// Item is one menu line. A menu is a tree of Items built from state.
type Item struct {
	Click     Action // what a click reports; the zero Action for a line that does nothing
	Title     string
	Tooltip   string
	Checkable bool
	Checked   bool
	Disabled  bool
	Separator bool // a divider line; the other fields are ignored
	Children  []Item
}

// IconState is what the menu-bar icon shows.
type IconState int

const (
	IconIdle       IconState = iota // no agent is working
	IconWorking                     // some agent is working
	IconNeedsInput                  // some agent waits for the person
	IconError                       // the bridge itself is in trouble
)

func (s IconState) String() string {
	return [...]string{"idle", "working", "needs input", "error"}[s]
}

// Shell draws the menu and reports clicks by Item.Click.
type Shell interface {
	SetIcon(IconState)
	SetTitle(string)
	SetTooltip(string)
	SetMenu([]Item)
	Clicks() <-chan Action
}

// Notifier shows a desktop notification.
type Notifier interface {
	Notify(title, body string) error
}

// LoginItem starts the bridge when the person logs in.
type LoginItem interface {
	Installed() bool
	Install() error
	Uninstall() error
}

// Actions are what menu clicks do outside the menu. Each may be slow (it
// may start a program): the menu calls them off its event loop.
type Actions struct {
	OpenURL    func(url string) error
	CopyText   func(text string) error
	ViewerLink func(ctx context.Context, workspace string) (string, error) // a one-time viewer link (pairs the workspace)
	// UsageLink is a one-time link that signs a browser in and lands on
	// the bridge's usage page (/usage), where "Today's cost" leads.
	UsageLink func(ctx context.Context) (string, error)
	Viewing   func(workspace string) bool // a browser is showing this workspace's stream
	LogDir    string
	Quit      func()

	// MissingHooks returns the directories, among the workspaces given,
	// that should have the message hooks and do not (it reads settings
	// files). InstallHooks installs them there. Both run off the loop, and
	// InstallHooks only ever after the person said yes in the menu.
	MissingHooks func(ws []engine.Info) []string
	InstallHooks func(dirs []string) error

	// InstallExtension writes the Chrome side panel where Chrome can load
	// it and returns that folder (the menu reveals it and explains the
	// clicks left to do in Chrome).
	InstallExtension func() (string, error)
}

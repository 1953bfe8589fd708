package tray

// Action is what a menu line does when clicked: a kind, and the workspace
// and session it is about. It is comparable, so the shell reports it as is
// and the loop switches on Kind (clicks.go), never parsing a string. The
// zero Action is a line that does nothing.
type Action struct {
	Kind      ActionKind
	Workspace string // workspace id, for per-workspace actions
	Session   string // Conductor session id (Open in Conductor) or agent session id
}

// ActionKind names one click action.
type ActionKind int

// Click actions. Each has one method in clicks.go.
const (
	actNone ActionKind = iota
	actPair
	actConductor
	actViewer
	actCopy
	actMute
	actUsage
	actHooksSetup
	actHooksNever
	actNotifyOn
	actNotifyPaired
	actNotifyOff
	actLogin
	actExtension
	actLogs
	actQuit
)

func wsAction(kind ActionKind, ws string) Action { return Action{Kind: kind, Workspace: ws} }

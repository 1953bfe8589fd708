package event

// Limits, in runes, on the strings an event carries besides its text
// (MaxText). A transcript is written by whatever the agent ran: a tool
// name, an id or a model can be megabytes, and one such line must not
// become a megabyte event on every subscriber's wire and in the journal.
const (
	MaxID   = 256  // ids and names: session, message, tool use, tool, model, agent, type, state, workspace
	MaxPath = 1024 // a transcript path
	MaxNote = 1024 // a status reason
)

// Bound cuts every string of e to its limit, so nothing unbounded reaches
// the wire. Text, tool input and output get MaxText and their truncated
// flag, should a parser have missed the cut; the rest are cut silently.
// The stream calls it on every event it publishes.
func (e *Event) Bound() {
	cut := func(s *string, n int) bool {
		var c bool
		*s, c = Cut(*s, n)
		return c
	}
	if cut(&e.Content, MaxText) {
		e.Truncated = true
	}
	if cut(&e.Input, MaxText) {
		e.TruncIn = true
	}
	if cut(&e.Output, MaxText) {
		e.TruncOut = true
	}
	for _, s := range []*string{&e.Type, &e.SessionID, &e.Agent, &e.MessageID, &e.Name, &e.ToolUseID,
		&e.Model, &e.State, &e.Workspace, &e.Action, &e.Command} {
		cut(s, MaxID)
	}
	cut(&e.Path, MaxPath)
	cut(&e.URL, MaxPath)
	cut(&e.Reason, MaxNote)
	cut(&e.Error, MaxNote)
	cut(&e.Args, MaxText)
	cut(&e.Result, MaxText)
}

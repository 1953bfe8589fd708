package engine

import (
	"fmt"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/agent"
)

// agents are the engine's drivers (Config.Agents). The first is the
// default: the agent of a journal mark that names none (journals from
// before agents were named) and of a record no other agent owns.
type agents []agent.Agent

// named is the agent called name ("" the default), nil when the bridge
// has no reader for it.
func (as agents) named(name string) agent.Agent {
	if len(as) == 0 {
		return nil
	}
	if name == "" {
		return as[0]
	}
	for _, a := range as {
		if a.Name() == name {
			return a
		}
	}
	return nil
}

// of is the agent of a session known only by its record's path (a hook
// named it before any scan did).
func (as agents) of(record string) agent.Agent {
	for _, a := range as[min(1, len(as)):] {
		if a.Owns(record) {
			return a
		}
	}
	return as.named("")
}

// tag is the agent name an event carries: none for the default agent's.
func (as agents) tag(name string) string {
	if d := as.named(""); d != nil && d.Name() == name {
		return ""
	}
	return name
}

// label is how a person reads an agent's name: its driver's Label, else
// (an agent the bridge has no reader for) the name capitalised.
func (as agents) label(name string) string {
	if a := as.named(name); a != nil {
		return a.Label()
	}
	if name == "" {
		return ""
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// unreadBlocks says why messages cannot reach a session the bridge lists
// but does not read: an agent it reads whose record is not on disk yet (a
// tab nothing was sent in), or an agent it does not read at all.
func (as agents) unreadBlocks(name string) string {
	a := as.named(name)
	if a == nil {
		return "the bridge does not read " + name + " sessions, so it cannot hand them messages"
	}
	if _, ok := a.(agent.Rows); ok && !routed(a) {
		return as.rowBlocks(name, name)
	}
	noun := "record"
	if n, ok := a.(agent.RecordNamed); ok {
		noun = n.RecordName()
	}
	return "this " + a.Label() + " session has no " + noun + " yet (nothing has been sent in it): send its first message in Conductor, then the bridge can deliver"
}

// rowBlocks says why messages cannot reach a session of agent name read
// from a log of rows (rows.go) by the driver source: the bridge has no
// route into it, unless that driver has one of its own (agent.Routed).
func (as agents) rowBlocks(name, source string) string {
	if routed(as.named(source)) {
		return ""
	}
	return "the bridge streams " + as.label(name) + " sessions from their record but cannot hand them messages yet"
}

// projects is the records root of the first agent keeping one folder per
// working directory ("" if none), which the engine watches for new
// folders, and that agent's name: the source of a workspace found by
// those folders alone.
func (as agents) projects() (root, source string) {
	for _, a := range as {
		if p, ok := a.(agent.PerDirectory); ok {
			if root = p.RecordsRoot(); root != "" {
				root = filepath.Clean(root)
			}
			return root, a.Name()
		}
	}
	return "", ""
}

// perDirectory is the first agent keeping one folder per working
// directory, whose folder a workspace's ProjectDir is; nil if none does.
func (as agents) perDirectory() agent.PerDirectory {
	for _, a := range as {
		if p, ok := a.(agent.PerDirectory); ok {
			return p
		}
	}
	return nil
}

// dated is the root and depth of the first agent writing its records in
// dated folders ("" if none).
func (as agents) dated() (string, int) {
	for _, a := range as {
		if d, ok := a.(agent.Dated); ok {
			if root, depth := d.DatedRoot(); root != "" {
				return filepath.Clean(root), depth
			}
		}
	}
	return "", 0
}

// isProcess reports whether a process, by its name and arguments, is an
// agent the engine can tell (agent.Process).
func (as agents) isProcess(comm string, argv []string) bool {
	for _, a := range as {
		if h, ok := a.(agent.Process); ok && h.IsProcess(comm, argv) {
			return true
		}
	}
	return false
}

// newParser makes the parser for an agent's record, resumed from saved.
// Every agent prices its turns with the one table (Config.Prices), so
// each one's dollars come from the same rates and the same override.
func (e *Engine) newParser(agentName string, saved []byte) (agent.Parser, error) {
	a := e.agents.named(agentName)
	if a == nil {
		return nil, fmt.Errorf("no reader for agent %q", agentName)
	}
	return a.NewParser(saved, e.cfg.Prices)
}

// readable reports whether the bridge has a parser for an agent's record.
func (e *Engine) readable(agentName string) bool { return e.agents.named(agentName) != nil }

// routed reports whether a's sessions take messages by a route of its own.
func routed(a agent.Agent) bool {
	_, ok := a.(agent.Routed)
	return ok
}

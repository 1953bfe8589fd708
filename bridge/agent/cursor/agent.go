package cursor

import (
	"encoding/json"
	"flag"
	"sync"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/paths"
	"conductorbridge/bridge/price"
)

// Agent is the value of event.Event.Agent for Cursor sessions: the name
// Conductor's sessions.agent_type gives its Cursor tabs.
const Agent = "cursor"

var (
	_ agent.Rows       = (*Driver)(nil)
	_ agent.Configured = (*Driver)(nil)
)

// Driver is the Cursor SDK's driver: an SDK agent run in a plain folder,
// read from the store the SDK keeps for that folder (StoreDir) after its
// parser's mark (agent.Rows), and listed for discovery (Runs). A
// Conductor Cursor tab is not read here: Conductor keeps its SDK store
// elsewhere and nothing known ties a tab to its SDK agent, so FindRows
// has no record of a tab, and the tab streams from Conductor's own
// record. Make it with NewDriver, or as the bridge does: a zero Driver
// Resolve'd.
type Driver struct {
	home string // the user's: the stores are under ~/.cursor/projects
	mu   sync.Mutex
	// stores is each agent's store as the last Runs found it.
	stores map[string]string
}

// NewDriver reads the stores under home's ~/.cursor/projects.
func NewDriver(home string) *Driver {
	d := &Driver{}
	d.Resolve(paths.Roots{Home: home}, nil)
	return d
}

// Flags declares nothing: the stores are in the user's home.
func (*Driver) Flags(*flag.FlagSet) {}

// Resolve takes the stores' root from the user's home.
func (d *Driver) Resolve(r paths.Roots, _ func(string) string) {
	d.home = r.Home
}

// Name is Conductor's agent_type for Cursor tabs.
func (*Driver) Name() string { return Agent }

// Label is how a person reads it.
func (*Driver) Label() string { return "Cursor" }

// Owns is false: the SDK writes no record file of its own per session.
func (*Driver) Owns(string) bool { return false }

// NewParser resumes an SDK agent's parser from saved (nil: a fresh one),
// pricing its turns with prices (nil: the built-in table); a model the
// table does not know (the SDK's "auto") leaves the cost unknown.
func (*Driver) NewParser(saved json.RawMessage, prices *price.Table) (agent.Parser, error) {
	p, err := NewParser(saved)
	if err != nil {
		return nil, err
	}
	p.Price = price.FuncOf(prices)
	return p, nil
}

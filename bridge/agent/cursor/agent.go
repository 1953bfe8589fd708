package cursor

import (
	"encoding/json"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/price"
)

// Agent is the value of event.Event.Agent for Cursor sessions: the name
// Conductor's sessions.agent_type gives its Cursor tabs.
const Agent = "cursor"

var _ agent.Agent = Driver{}

// Driver is the Cursor SDK's driver: it reads an SDK agent's runs from
// the SDK's store (Store, Parser). It is not in the bridge's agent list
// yet: a Conductor Cursor tab is read from Conductor's own record, as no
// row of either store is known to tie the tab to its SDK agent.
type Driver struct{}

// Name is Conductor's agent_type for Cursor tabs.
func (Driver) Name() string { return Agent }

// Label is how a person reads it.
func (Driver) Label() string { return "Cursor" }

// Owns is false: the SDK writes no record file of its own per session.
func (Driver) Owns(string) bool { return false }

// NewParser resumes an SDK agent's parser from saved (nil: a fresh one),
// pricing its turns with prices (nil: the built-in table); a model the
// table does not know (the SDK's "auto") leaves the cost unknown.
func (Driver) NewParser(saved json.RawMessage, prices *price.Table) (agent.Parser, error) {
	p, err := NewParser(saved)
	if err != nil {
		return nil, err
	}
	if prices == nil {
		prices = price.Embedded()
	}
	p.Price = prices.ModelCost
	return p, nil
}

package main

import (
	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/claude"
	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/agent/conductor"
	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/agent/opencode"
)

// agentList is the agents whose records the bridge reads: each one's
// driver package, one line each, the first the default (an old journal's
// sessions, a record no other agent owns). Adding an agent is its package
// and its line here; the rest follows from the list, each use finding
// what the driver offers by type assertion (listAs): its flags and
// defaults (agent.Configured, which every command's config applies), its
// sessions (discover.Agent and the engine's interfaces), its hooks
// (inject.HookAgent), its route for messages (agent.Pushing), its usage
// (driver.Format). No other file of this package imports a driver.
//
// The values are fresh and unset: config.register declares their flags
// and config.resolve sets them up (agent.Configured).
func agentList() []agent.Agent {
	return []agent.Agent{
		&claude.Agent{},
		&codexagent.Agent{},
		&opencode.Driver{},
		// The Cursor SDK run in a plain folder, from the SDK's own store;
		// a Conductor Cursor tab is not its (cursor.Driver).
		&cursor.Driver{},
		// Conductor's own record: the source of a tab whose agent has no
		// reader of its own (a Cursor tab, an unknown agent_type).
		&conductor.Agent{},
	}
}

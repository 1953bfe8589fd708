// Package codex is Codex's driver for the engine (agent.Agent): its
// rollout files, read by bridge/codex, in dated folders under its home.
package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/agent"
	rollout "conductorbridge/bridge/codex"
	"conductorbridge/bridge/price"
)

// Agent is Codex as the engine follows it and discovery finds it. Home is
// Codex's home ($CODEX_HOME); "" watches no sessions folder and finds no
// sessions (tabs are still read). Make it with New to find sessions
// remembering what was read.
type Agent struct {
	Home  string
	found *found
}

var (
	_ agent.Agent         = Agent{}
	_ agent.Dated         = Agent{}
	_ agent.Placer        = Agent{}
	_ agent.Process       = Agent{}
	_ agent.ProcessArgs   = Agent{}
	_ agent.DirectoryHeld = Agent{}
	_ agent.Serving       = Agent{}
	_ agent.RecordNamed   = Agent{}
)

// Placeable reports whether the rollout's session_meta line is whole.
func (Agent) Placeable(record string) bool { return rollout.MetaReady(record) }

// Name is Conductor's sessions.agent_type for Codex tabs.
func (Agent) Name() string { return "codex" }

// Label is how a person reads it.
func (Agent) Label() string { return "Codex" }

// RecordName is what Codex calls its record.
func (Agent) RecordName() string { return "rollout" }

// Owns reports whether record is a rollout (rollout-<time>-<thread>.jsonl).
func (Agent) Owns(record string) bool {
	return strings.HasPrefix(filepath.Base(record), "rollout-") && filepath.Ext(record) == ".jsonl"
}

// NewParser resumes a rollout's parser. Codex's dollars and Claude's come
// from the same table (prices nil: the built-in one).
func (Agent) NewParser(saved json.RawMessage, prices *price.Table) (agent.Parser, error) {
	p, err := rollout.NewParser(saved)
	if err != nil {
		return nil, err
	}
	p.Price = price.FuncOf(prices)
	return p, nil
}

// NotifyEvent is the hook event Codex's notify program calls the bridge
// as (rollout.NotifyEvent).
const NotifyEvent = rollout.NotifyEvent

// NotifyHook is the hook event of Codex's notify (inject.Notifier).
func (Agent) NotifyHook() string { return NotifyEvent }

// DatedRoot is the sessions folder: sessions/YYYY/MM/DD.
func (a Agent) DatedRoot() (string, int) {
	if a.Home == "" {
		return "", 0
	}
	return rollout.SessionsDir(filepath.Clean(a.Home)), 3
}

package usage

import (
	"conductorbridge/bridge/agent/claude"
	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// The agents the tests' histories are of, as the app names them.
const (
	AgentClaude = "claude"
	AgentCodex  = "codex"
)

// agentsAt is the formats of a Claude projects folder and a Codex home
// ("": none), as the app lists them.
func agentsAt(projects, codexHome string) []driver.Format {
	return []driver.Format{claude.Agent{Projects: projects}, codexagent.Agent{Home: codexHome}}
}

// groupsAt lists the groups of the histories at projects and codexHome.
func groupsAt(projects, codexHome string) ([]group, error) {
	return Source{Formats: agentsAt(projects, codexHome)}.groups()
}

// readGroupParsed reads one group whole with the readers' fast path
// (lean) or without, and returns the bytes read.
func readGroupParsed(g group, prices *price.Table, lean bool, bufs *buffers, fn func(Turn)) (int64, error) {
	out, err := readLines(g.format.(driver.Lines), g, prices, lean, bufs, nil, false, fn, func([]Limit) {})
	return out.bytes, err
}

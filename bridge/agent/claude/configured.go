package claude

import (
	"flag"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/paths"
)

var _ agent.Configured = (*Agent)(nil)

// Flags declares none: the projects folder's --claude-projects is the
// bridge's own (paths.Roots), since doctor and the demo read it too.
func (*Agent) Flags(*flag.FlagSet) {}

// Resolve takes the projects folder from the bridge's roots, unless set.
func (a *Agent) Resolve(r paths.Roots, _ func(string) string) {
	if a.Projects == "" {
		a.Projects = r.ClaudeProjects
	}
}

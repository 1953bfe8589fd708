package conductor

import (
	"flag"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/paths"
)

var _ agent.Configured = (*Agent)(nil)

// Flags declares none: Conductor's database and folder are the bridge's
// own (paths.Roots), since discovery reads them too.
func (*Agent) Flags(*flag.FlagSet) {}

// Resolve takes Conductor's database and folder from the bridge's roots,
// unless set.
func (a *Agent) Resolve(r paths.Roots, _ func(string) string) {
	if a.DB == "" {
		a.DB = r.ConductorDB
	}
	if a.Root == "" {
		a.Root = r.ConductorRoot
	}
}

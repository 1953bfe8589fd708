package opencode

import (
	"flag"
	"os/exec"
	"path/filepath"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/paths"
)

var (
	_ agent.Configured = (*Driver)(nil)
	_ agent.Pushing    = (*Driver)(nil)
)

// Flags declares --opencode-db, the database the sessions are read from.
func (d *Driver) Flags(fs *flag.FlagSet) {
	fs.StringVar(&d.db, "opencode-db", "", "OpenCode's database (default $XDG_DATA_HOME/opencode/opencode.db or ~/.local/share/opencode/opencode.db)")
}

// Resolve makes the driver read the database --opencode-db named, else
// DefaultDB's, as NewDriver's does.
func (d *Driver) Resolve(r paths.Roots, getenv func(string) string) {
	db := d.db
	if db == "" {
		db = DefaultDB(r.Home, getenv)
	}
	if abs, err := filepath.Abs(db); err == nil {
		db = abs
	}
	d.db, d.st = db, NewStore(db)
}

// NewPusher is how messages reach OpenCode sessions: the opencode on PATH
// runs `run --session` on an idle one, in the bridge's own environment
// (the user's OpenCode configuration and providers apply); a busy one's
// message waits until it is idle.
func (*Driver) NewPusher() agent.Pusher {
	bin, _ := exec.LookPath("opencode")
	return Pusher{Bin: bin}
}

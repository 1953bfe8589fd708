package codex

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"conductorbridge/bridge/agent"
	rollout "conductorbridge/bridge/codex"
	"conductorbridge/bridge/paths"
)

var (
	_ agent.Configured = (*Agent)(nil)
	_ agent.Pushing    = (*Agent)(nil)
)

// Flags declares none: Codex's home's --codex-home is the bridge's own
// (paths.Roots), since `hooks install --codex` and doctor read it too.
func (*Agent) Flags(*flag.FlagSet) {}

// Resolve takes Codex's home from the bridge's roots, unless set, and
// remembers what it reads between scans from then on, as New's does.
func (a *Agent) Resolve(r paths.Roots, _ func(string) string) {
	if a.Home == "" {
		a.Home = r.CodexHome
	}
	if a.found == nil {
		a.found = &found{}
	}
}

// NewPusher is how messages reach Codex sessions: the codex on PATH
// resumes idle ones, in the bridge's own environment (the user's Codex
// login and settings apply), and the Stop hook in Codex's config.toml,
// when `hooks install --codex` put it there, takes them in a busy one.
func (a *Agent) NewPusher() agent.Pusher {
	bin, _ := exec.LookPath("codex")
	return Pusher{Agent: Agent{Home: a.Home}, Bin: bin, Hooked: HookedOnce(a.Home)}
}

// HookedOnce reports whether Codex's config.toml under home holds the
// bridge's trusted Stop hook, parsing the file again only when its
// modification time or size changed: a message waiting for a busy Codex
// session asks on every line any agent writes.
func HookedOnce(home string) func() bool {
	var (
		mu     sync.Mutex
		mod    time.Time
		size   int64 = -1
		hooked bool
	)
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		info, err := os.Stat(rollout.ConfigPath(home))
		if err != nil {
			mod, size, hooked = time.Time{}, -1, false
			return false
		}
		if info.ModTime().Equal(mod) && info.Size() == size {
			return hooked
		}
		st, err := rollout.HooksStatus(home)
		mod, size, hooked = info.ModTime(), info.Size(), err == nil && st.Stop != "" && st.Trusted
		return hooked
	}
}

// NotifyInput turns the arguments Codex calls its notify program with
// (the last one, a JSON object) into the hook's input: the thread is the
// session. Only a turn's end is relayed.
func (Agent) NotifyInput(args []string) ([]byte, error) {
	if len(args) == 0 {
		return nil, errors.New("codex notify: no argument")
	}
	n, err := rollout.ParseNotify(args[len(args)-1])
	if err != nil {
		return nil, err
	}
	if n.Type != rollout.NotifyTurnComplete {
		return nil, fmt.Errorf("codex notify: %s is not a turn's end", n.Type)
	}
	// The fields of a hook's input (inject.HookInput) it fills.
	return json.Marshal(struct {
		SessionID     string `json:"session_id"`
		Cwd           string `json:"cwd"`
		HookEventName string `json:"hook_event_name"`
	}{n.ThreadID, n.Cwd, NotifyEvent})
}

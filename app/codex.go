package main

import (
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/rs/zerolog"

	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/inject"
)

// newCodexDelivery sets up how messages reach Codex sessions: the codex on
// PATH resumes idle ones, in the bridge's own environment (the user's
// Codex login and settings apply), and the Stop hook in Codex's
// config.toml, when `hooks install --codex` put it there, takes them in a
// busy one.
func newCodexDelivery(c config, q *inject.Queue, eng *engine.Engine, log zerolog.Logger) *inject.Delivery {
	bin, _ := exec.LookPath("codex")
	return &inject.Delivery{
		Queue: q, Engine: eng, Log: log,
		Pusher: codexagent.Pusher{Agent: codexagent.Agent{Home: c.CodexHome}, Bin: bin, Hooked: hookedOnce(c.CodexHome)},
	}
}

// hookedOnce reports whether Codex's config.toml holds the bridge's
// trusted Stop hook, parsing the file again only when its modification
// time or size changed: a message waiting for a busy Codex session asks
// on every line any agent writes.
func hookedOnce(home string) func() bool {
	var (
		mu     sync.Mutex
		mod    time.Time
		size   int64 = -1
		hooked bool
	)
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		info, err := os.Stat(codex.ConfigPath(home))
		if err != nil {
			mod, size, hooked = time.Time{}, -1, false
			return false
		}
		if info.ModTime().Equal(mod) && info.Size() == size {
			return hooked
		}
		st, err := codex.HooksStatus(home)
		mod, size, hooked = info.ModTime(), info.Size(), err == nil && st.Stop != "" && st.Trusted
		return hooked
	}
}

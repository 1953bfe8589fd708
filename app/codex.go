package main

import (
	"os/exec"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/inject"
)

// newCodexDelivery sets up how messages reach Codex sessions: the codex on
// PATH resumes idle ones, in the bridge's own environment (the user's
// Codex login and settings apply), and the Stop hook in Codex's
// config.toml, when `hooks install --codex` put it there, takes them in a
// busy one.
func newCodexDelivery(c config, q *inject.Queue, eng *engine.Engine, log zerolog.Logger) *inject.CodexDelivery {
	bin, _ := exec.LookPath("codex")
	return &inject.CodexDelivery{
		Queue: q, Engine: eng, Bin: bin, Home: c.CodexHome, Log: log,
		Hooked: func() bool {
			st, err := codex.HooksStatus(c.CodexHome)
			return err == nil && st.Stop != "" && st.Trusted
		},
	}
}

package main

import (
	"os/exec"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/inject"
)

// newOpenCodeDelivery sets up how messages reach OpenCode sessions: the
// opencode on PATH runs `run --session` on an idle one, in the bridge's
// own environment (the user's OpenCode configuration and providers
// apply); a busy one's message waits until it is idle.
func newOpenCodeDelivery(q *inject.Queue, eng *engine.Engine, log zerolog.Logger) *inject.Delivery {
	bin, _ := exec.LookPath("opencode")
	return &inject.Delivery{Queue: q, Engine: eng, Log: log, Pusher: opencode.Pusher{Bin: bin}}
}

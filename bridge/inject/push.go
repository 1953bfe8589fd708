package inject

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/proc"
)

// Some agents take no hook call while idle (Codex), so a message for an
// idle session of theirs is pushed rather than pulled: the bridge runs the
// agent on the session with the message (Codex's `exec resume`), a new
// turn in the same record. A busy session gets it from the bridge's Stop
// hook at the end of its turn, where the agent runs one, or keeps it
// queued until it is idle, where the agent would run a second turn beside
// the first. Either way the
// message is confirmed when the record shows it, as for a hook's.

// Pusher is an agent whose idle sessions take a message by running the
// agent on them (agent.Pusher: each such driver makes one, agent.Pushing).
type Pusher = agent.Pusher

// Pushed is a running push (agent.Pushed).
type Pushed = agent.Pushed

// PushEngine is what pushing needs from the engine.
type PushEngine interface {
	Workspace(id string) (engine.Info, bool)
	Changes() <-chan struct{}
}

// Delivery pushes queued messages to the idle sessions of one Pusher's
// agent.
type Delivery struct {
	Queue  *Queue
	Engine PushEngine
	Pusher Pusher
	Log    zerolog.Logger
	// RetryAfter is how long a session whose push failed is left alone
	// (default 30 s), so a session held by a process the bridge cannot
	// see is not hammered.
	RetryAfter time.Duration

	mu      sync.Mutex
	running map[string]bool      // session → a push of ours is running
	backoff map[string]time.Time // session → not before
	held    map[string]bool      // session → its message's wait is logged
}

// Agent is the agent whose sessions d serves.
func (d *Delivery) Agent() string { return d.Pusher.Name() }

// Refusal says why a message cannot reach si now, "" when it can (pushed
// or taken by its Stop hook).
func (d *Delivery) Refusal(si engine.SessionInfo) string {
	if _, refusal := d.route(si); refusal != "" {
		return "messages cannot reach this " + d.Pusher.Label() + " session now: " + refusal
	}
	return ""
}

// route asks the Pusher for si's route. The pid is from the last scan,
// which may be a while ago: a process that has exited since (a finished
// run, a push of ours) holds nothing.
func (d *Delivery) route(si engine.SessionInfo) (bool, string) {
	held := si.PID != 0 && proc.Alive(si.PID)
	busy := held || si.Status == event.StateWorking || si.Status == event.StateNeedsInput
	return d.Pusher.Route(si.SessionID, si.Version, busy)
}

// Run delivers until ctx ends: whenever the queue or the engine's picture
// changes, every idle session of the agent with a message waiting is
// pushed it.
func (d *Delivery) Run(ctx context.Context) {
	changes := d.Engine.Changes()
	for {
		queued := d.Queue.Changed()
		next := d.pass(ctx)
		var retry <-chan time.Time
		var timer *time.Timer
		if next > 0 {
			timer = time.NewTimer(next)
			retry = timer.C
		}
		select {
		case <-ctx.Done():
		case <-queued:
		case <-changes:
		case <-retry:
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// pass starts a push for each session that can take one now and returns
// when a backed-off session is due again (0: none is waiting).
func (d *Delivery) pass(ctx context.Context) time.Duration {
	var due time.Duration
	now := time.Now()
	// The engine changes with every line an agent writes: only the
	// workspaces where a message waits are looked at (building every
	// workspace's picture each time took a quarter of the bridge's CPU at
	// 200 busy sessions).
	for _, ws := range d.Queue.Workspaces() {
		waiting := d.Queue.Waiting(ws)
		if len(waiting) == 0 {
			continue
		}
		in, ok := d.Engine.Workspace(ws)
		if !ok {
			continue
		}
		for _, si := range in.Sessions {
			if si.Agent != d.Pusher.Name() || !si.Streamed || !waiting[si.SessionID] {
				continue
			}
			push, refusal := d.route(si)
			d.mu.Lock()
			if d.running == nil {
				d.running, d.backoff, d.held = make(map[string]bool), make(map[string]time.Time), make(map[string]bool)
			}
			if !push {
				// The Stop hook takes it, or the session is pushed once
				// it is idle, or nothing can yet.
				if refusal == "" && !d.held[si.SessionID] {
					d.held[si.SessionID] = true
					d.Log.Info().Str("workspace", in.ID).Str("session", si.SessionID).Str("agent", si.Agent).
						Msg("a message waits while the session is busy")
				}
				d.mu.Unlock()
				continue
			}
			delete(d.held, si.SessionID)
			if wait := d.backoff[si.SessionID].Sub(now); wait > 0 {
				if due == 0 || wait < due {
					due = wait
				}
				d.mu.Unlock()
				continue
			}
			if d.running[si.SessionID] {
				d.mu.Unlock()
				continue
			}
			d.running[si.SessionID] = true
			d.mu.Unlock()
			go d.deliver(ctx, in.ID, in.Directory, si.SessionID)
		}
	}
	return due
}

// deliver pushes the session's next message and waits for the turn. A
// push that cannot start, or finds the session held by another process,
// puts the message back and backs off.
func (d *Delivery) deliver(ctx context.Context, ws, dir, session string) {
	failed := false
	defer func() {
		d.mu.Lock()
		delete(d.running, session)
		if failed {
			d.backoff[session] = time.Now().Add(cmp.Or(d.RetryAfter, 30*time.Second))
		}
		d.mu.Unlock()
		d.Queue.wake()
	}()
	m, ok, err := d.Queue.Take(ws, d.Pusher.Via(), session)
	if err != nil || !ok {
		return
	}
	log := d.Log.With().Str("workspace", ws).Str("session", session).Str("agent", d.Pusher.Name()).Str("msg_id", m.ID).Logger()
	r, err := d.Pusher.Push(ctx, dir, session, Frame(m))
	if err != nil {
		failed = true
		d.putBack(ws, m, log, err)
		return
	}
	log.Info().Int("pid", r.PID()).Str("via", d.Pusher.Via()).Msg("message pushed")
	if err := r.Wait(); err != nil {
		if ctx.Err() != nil {
			return // shutting down: requeueLost puts it back if it never arrived
		}
		failed = true
		d.putBack(ws, m, log, err)
		return
	}
}

// putBack returns a message no push delivered to the queue. A push that
// failed after the agent recorded the message (a model error mid-turn)
// finds it confirmed, and it stays so.
func (d *Delivery) putBack(ws string, m Message, log zerolog.Logger, cause error) {
	if d.Pusher.Held(cause) {
		log.Info().Msg("the session is held by another process; the message waits for its turn to end")
	} else {
		log.Warn().Err(cause).Str("via", d.Pusher.Via()).Msg("push failed")
	}
	if _, err := d.Queue.Return(ws, m.ID); err != nil && !errors.Is(err, ErrNotQueued) {
		log.Error().Err(fmt.Errorf("put the message back: %w", err)).Msg("push delivery")
	}
}

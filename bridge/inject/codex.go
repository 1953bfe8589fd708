package inject

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/proc"
)

// Codex takes no hook call while it is idle, so a message for an idle Codex
// session is pushed rather than pulled: the bridge runs `codex exec resume
// <thread> <message>`, a new turn in the same thread, recorded in the same
// rollout. A busy 0.169 session gets it from the bridge's Stop hook, the
// same HookStop as Claude's, at the end of its turn. Either way the message
// is confirmed when the rollout shows it, as for Claude.

// CodexEngine is what the Codex deliverer needs from the engine.
type CodexEngine interface {
	Workspace(id string) (engine.Info, bool)
	Changes() <-chan struct{}
}

// CodexDelivery delivers queued messages to Codex sessions.
type CodexDelivery struct {
	Queue  *Queue
	Engine CodexEngine
	Bin    string   // the codex binary; "" means no route for idle sessions
	Home   string   // CODEX_HOME the sessions live in
	Args   []string // extra arguments after `exec` (tests: the sandbox)
	Env    []string // the resumed process's environment (default: the bridge's)
	// Hooked reports whether the bridge's Stop hook is in Codex's
	// config.toml and trusted (codex.HooksStatus).
	Hooked func() bool
	Log    zerolog.Logger
	// RetryAfter is how long a session whose resume failed is left alone
	// (default 30 s), so a thread held by a process the bridge cannot see
	// is not hammered.
	RetryAfter time.Duration

	mu      sync.Mutex
	running map[string]bool      // thread → a resume of ours is running
	backoff map[string]time.Time // thread → not before
}

// Route says how a message reaches a Codex session now, or why it cannot
// (a *codex.DeliverError, which the API answers with 409).
func (d *CodexDelivery) Route(si engine.SessionInfo) (codex.Route, error) {
	// The pid is from the last scan, which may be a while ago: a process
	// that has exited since (a finished `codex exec`, a resume of ours)
	// holds nothing.
	held := si.PID != 0 && proc.Alive(si.PID)
	busy := held || si.Status == event.StateWorking || si.Status == event.StateNeedsInput
	// Reading Codex's config only matters for a busy session (the Stop
	// hook's route); this runs on every pass while a message waits.
	hooked := busy && d.Hooked != nil && d.Hooked()
	route, err := codex.RouteFor(si.Version, busy, hooked)
	if err == nil && route == codex.RouteResume && d.Bin == "" {
		return "", &codex.DeliverError{Reason: "no codex binary found on PATH to resume the session with"}
	}
	return route, err
}

// Run delivers until ctx ends: whenever the queue or the engine's picture
// changes, every idle Codex session with a message waiting is resumed
// with it.
func (d *CodexDelivery) Run(ctx context.Context) {
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

// pass starts a delivery for each Codex session that can take one now and
// returns when a backed-off session is due again (0: none is waiting).
func (d *CodexDelivery) pass(ctx context.Context) time.Duration {
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
			if si.Agent != discover.AgentCodex || !si.Streamed || !waiting[si.SessionID] {
				continue
			}
			if route, err := d.Route(si); err != nil || route != codex.RouteResume {
				continue // the Stop hook takes it, or nothing can yet
			}
			d.mu.Lock()
			if d.running == nil {
				d.running, d.backoff = make(map[string]bool), make(map[string]time.Time)
			}
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

// deliver hands the session's next message to `codex exec resume` and
// waits for the turn. A resume that cannot start, or finds the thread held
// by another process, puts the message back and backs off.
func (d *CodexDelivery) deliver(ctx context.Context, ws, dir, thread string) {
	failed := false
	defer func() {
		d.mu.Lock()
		delete(d.running, thread)
		if failed {
			d.backoff[thread] = time.Now().Add(cmp.Or(d.RetryAfter, 30*time.Second))
		}
		d.mu.Unlock()
		d.kick()
	}()
	m, ok, err := d.Queue.Take(ws, ViaCodexResume, thread)
	if err != nil || !ok {
		return
	}
	log := d.Log.With().Str("workspace", ws).Str("session", thread).Str("msg_id", m.ID).Logger()
	r, err := codex.Resume(ctx, codex.ResumeOptions{
		Bin: d.Bin, CodexHome: d.Home, ThreadID: thread, Message: Frame(m), Dir: dir, Env: d.Env, Args: d.Args,
	})
	if err != nil {
		failed = true
		d.putBack(ws, m, log, err)
		return
	}
	log.Info().Int("pid", r.PID()).Msg("message handed to codex exec resume")
	if err := r.Wait(); err != nil {
		if ctx.Err() != nil {
			return // shutting down: requeueLost puts it back if it never arrived
		}
		failed = true
		d.putBack(ws, m, log, err)
		return
	}
}

// putBack returns a message no resume delivered to the queue. A resume
// that failed after Codex recorded the message (a model error mid-turn)
// finds it confirmed, and it stays so.
func (d *CodexDelivery) putBack(ws string, m Message, log zerolog.Logger, cause error) {
	if errors.Is(cause, codex.ErrSessionBusy) {
		log.Info().Msg("the Codex session is held by another process; the message waits for its turn to end")
	} else {
		log.Warn().Err(cause).Msg("codex exec resume failed")
	}
	if _, err := d.Queue.Return(ws, m.ID); err != nil && !errors.Is(err, ErrNotQueued) {
		log.Error().Err(fmt.Errorf("put the message back: %w", err)).Msg("codex delivery")
	}
}

// kick wakes Run for the next message once a delivery ended.
func (d *CodexDelivery) kick() {
	d.Queue.mu.Lock()
	defer d.Queue.mu.Unlock()
	d.Queue.wakeLocked()
}

// ViaCodexResume is the Via of a message `codex exec resume` carried.
const ViaCodexResume = "codex_exec_resume"

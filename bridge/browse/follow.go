package browse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"conductorbridge/bridge/event"
)

// cursor is where a workspace's browse stream stands, journaled with the
// events it made: the browse server's run and the last entry id taken
// (or passed over) in it. Another run's ids start from 1 again.
type cursor struct {
	Run string `json:"run"`
	ID  int64  `json:"id"`
}

// after is the id to resume run after: 0 for a run not seen before.
func (c cursor) after(run string) int64 {
	if c.Run == run {
		return c.ID
	}
	return 0
}

// maxBatch bounds the events published at once (one journal line).
const maxBatch = 256

// watch is one workspace: its state file, and while there is a browse
// server to follow, the goroutine that follows it. Like the engine's
// workspaces it has a goroutine only while there is work: a look at the
// state file, or a stream to read.
type watch struct {
	f     *Finder
	id    string
	root  string
	topic Topic
	ctx   context.Context
	stop  context.CancelFunc
	kick  chan struct{} // look at the state file again

	mu      sync.Mutex
	running bool
	live    bool
	relook  relook // attempts the sweep gives a server given up on (relook.go)

	// The sweep's (one goroutine).
	stamp  stamp
	hasDir bool

	// The goroutine's (one at a time).
	cur      cursor
	warned   map[string]bool
	last     State // the state file as last read
	failures int   // attempts at last's server that failed in a row
}

func newWatch(f *Finder, id, root string, t Topic) *watch {
	ctx, cancel := context.WithCancel(f.ctx)
	w := &watch{f: f, id: id, root: root, topic: t, ctx: ctx, kick: make(chan struct{}, 1), warned: map[string]bool{}}
	w.stop = func() {
		cancel()
		// Told apart from the caller, who may hold the engine's lock,
		// which OnChange's readers take.
		go w.setLive(false)
	}
	if raw := t.Side(SideKey); raw != nil {
		if err := json.Unmarshal(raw, &w.cur); err != nil {
			w.warn("cursor", fmt.Errorf("browse resume point unreadable, starting over: %w", err))
		}
	}
	return w
}

// look asks for the state file to be read again; it never blocks.
func (w *watch) look() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
	w.mu.Lock()
	start := !w.running && w.ctx.Err() == nil
	w.running = w.running || start
	w.mu.Unlock()
	if start {
		go w.run()
	}
}

// done ends the goroutine unless a look came meanwhile.
func (w *watch) done() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.kick) > 0 && w.ctx.Err() == nil {
		return false
	}
	w.running = false
	return true
}

func (w *watch) isLive() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.live
}

func (w *watch) setLive(live bool) {
	w.mu.Lock()
	changed := w.live != live
	w.live = live
	w.mu.Unlock()
	if changed {
		w.f.changed()
	}
}

// run reads the state file and follows the server it names, again after
// each end of its stream, until there is none to follow.
func (w *watch) run() {
	for {
		select {
		case <-w.kick:
		default:
		}
		st, err := ReadState(w.root)
		if err == nil && !w.f.alive(st.PID) {
			err = fmt.Errorf("%w: pid %d", errStale, st.PID)
		}
		if err != nil {
			if !errors.Is(err, ErrNoState) {
				w.warn(reason(err), err)
			}
			if w.done() {
				return
			}
			continue
		}
		if st != w.last {
			if st.run() != w.last.run() {
				clear(w.warned) // a new server: what it does wrong is said again
			}
			w.last, w.failures = st, 0
			w.recovered()
		}
		if w.failures >= w.f.retries() {
			if !w.takeGrant() {
				w.warn("given up", fmt.Errorf("browse server on port %d not followed after %d failed attempts; tried again on later sweeps, less and less often, and at once if its state file changes", st.Port, w.failures))
				w.giveUp()
				if w.done() {
					return
				}
				continue
			}
			w.failures = w.f.retries() - 1 // the sweep's leave: one attempt more
		}
		began := w.f.now()
		err = w.follow(st)
		if w.ctx.Err() != nil {
			w.done()
			return
		}
		if w.f.now().Sub(began) > time.Minute {
			w.failures = 0 // a stream that ran a while was not a failed attempt
			w.recovered()
		}
		w.failures++
		if err != nil && !errors.Is(err, context.Canceled) {
			w.warn(reason(err), err)
		}
		if w.failures >= w.f.retries() {
			continue // given up on: no wait before saying so
		}
		if !w.wait(w.f.retryAfter() << min(w.failures-1, 5)) {
			w.done()
			return
		}
	}
}

// wait waits d, or less if the state file changes; false if the
// workspace is no longer watched.
func (w *watch) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.ctx.Done():
		return false
	case <-t.C:
	case <-w.kick:
	}
	return true
}

// follow opens the server's activity stream (see open) and reads it
// until it ends, the workspace is dropped, or the state file names
// another server (or none).
func (w *watch) follow(st State) error {
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	body, err := open(ctx, st, w.cur.after(st.run()), os.Geteuid(), w.f.peerUID(), w.f.stallAfter())
	if err != nil {
		return err
	}
	defer body.Close()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.kick:
				if now, err := ReadState(w.root); err != nil || now.run() != st.run() {
					cancel() // replaced, or gone: run reads the file again
					return
				}
			}
		}
	}()
	w.f.Log.Info().Str("workspace", w.id).Int("port", st.Port).Int("pid", st.PID).Msg("following the workspace's gstack browse server")
	w.setLive(true)
	defer w.setLive(false)
	err = w.read(body, st)
	if ctx.Err() != nil {
		return context.Canceled
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		w.f.Log.Info().Str("workspace", w.id).Int("port", st.Port).Msg("the workspace's browse server ended its stream")
		return nil
	}
	return err
}

// read turns the stream's entries into browse events, publishing them a
// batch at a time: whatever has arrived when the next read would wait.
func (w *watch) read(body io.Reader, st State) error {
	run := st.run()
	began, err := time.Parse(time.RFC3339Nano, st.StartedAt)
	if err != nil {
		began = w.f.now().Add(-24 * time.Hour) // no run start to bound it by: a day
	}
	r := newSSEReader(body)
	if w.cur.Run != run {
		w.cur = cursor{Run: run}
	}
	limit := newBucket(w.f.now())
	var (
		batch []event.Event
		// dropped is the run of entries passed over for the flood limit
		// (AvailableFrom 0: none), told by one gap event once entries
		// pass again or the stream ends.
		dropped event.Event
	)
	flush := func(final bool) {
		if final && dropped.AvailableFrom > 0 {
			batch = append(batch, dropped)
		}
		if len(batch) == 0 {
			return
		}
		raw, _ := json.Marshal(w.cur)
		if _, err := w.topic.PublishSide(batch, SideKey, raw); err != nil {
			w.warn("publish", fmt.Errorf("browse events not journaled: %w", err))
		}
		batch = batch[:0]
	}
	defer flush(true)
	for {
		name, data, err := r.next()
		if r.oversized > 0 {
			w.warn("oversized", fmt.Errorf("browse server sent an event over %d bytes; skipped", maxLine))
		}
		if err != nil {
			return err
		}
		now := w.f.now()
		switch name {
		case "activity":
			var en entry
			if err := json.Unmarshal(data, &en); err != nil || en.ID <= 0 {
				w.warn("malformed", fmt.Errorf("browse server sent an activity that is not gstack's; skipped (%.80q)", data))
				break
			}
			if en.ID <= w.cur.ID {
				break // had it (a replay overlapping what came live)
			}
			w.cur.ID = en.ID
			e, ok := en.event(now, began)
			if !ok {
				w.warn("type "+en.Type, fmt.Errorf("browse server sent an activity of unknown type %.40q; skipped", en.Type))
				break
			}
			if dropped.AvailableFrom > 0 {
				if !limit.ready(now, resumeTokens) {
					dropped.AvailableFrom = en.ID + 1
					break
				}
				limit.take(now) // the gap event's own
				batch, dropped = append(batch, dropped), event.Event{}
			}
			if !limit.take(now) {
				dropped = event.Event{Type: event.Browse, TS: now, Action: event.BrowseGap, GapFrom: en.ID, AvailableFrom: en.ID + 1}
				w.warn("flood", fmt.Errorf("browse server sends more than %d entries a second; the excess is passed over (a gap event says which)", EntriesPerSecond))
				break
			}
			batch = append(batch, e)
		case "gap":
			var g gapJSON
			if json.Unmarshal(data, &g) != nil || g.AvailableFrom <= w.cur.ID+1 {
				break
			}
			batch = append(batch, event.Event{Type: event.Browse, TS: now, Action: event.BrowseGap,
				GapFrom: max(g.GapFrom, w.cur.ID+1), AvailableFrom: g.AvailableFrom})
		default:
			w.warn("event "+name, fmt.Errorf("browse server sent an event %.40q gstack does not; skipped", name))
		}
		if len(batch) >= maxBatch || !r.buffered() {
			flush(false)
		}
	}
}

// warn logs err once per reason for this server run: a state file or a
// server that keeps doing wrong says so once, not on every look.
func (w *watch) warn(why string, err error) {
	if len(w.warned) > 64 {
		return // a server inventing a new reason each time says no more
	}
	if w.warned[why] {
		return
	}
	w.warned[why] = true
	w.f.Log.Warn().Err(err).Str("workspace", w.id).Str("state", statePath(w.root)).Msg("browse server ignored")
}

// reason names an error for warn: the kind, not the details.
func reason(err error) string {
	for _, e := range []error{errUnsafe, errPartial, errHostile, errStale, errForeign, errUnhealthy, errNotGstack, errStalled} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	return "connect"
}

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
	"conductorbridge/bridge/transcript"
)

// cursor is what a follower journals with its events to resume exactly
// where it stopped: the live transcript, how far it was read, the parser's
// memory, and the last status it announced.
type cursor struct {
	Path   string               `json:"path"`
	Offset int64                `json:"offset"`
	Parser transcript.State     `json:"parser"`
	Status string               `json:"status,omitempty"`
	Since  time.Time            `json:"since,omitzero"`
	Subs   map[string]subCursor `json:"subs,omitempty"` // subagent transcripts of the session
	// Others are where the workspace's other recent sessions were left,
	// so switching between two live sessions resumes each in place.
	Others map[string]fileState `json:"others,omitempty"`
}

// fileState is where reading one session transcript stopped.
type fileState struct {
	Offset int64                `json:"offset"`
	Parser transcript.State     `json:"parser"`
	Subs   map[string]subCursor `json:"subs,omitempty"`
	Left   time.Time            `json:"left"`
}

// maxOthers bounds how many other sessions' positions a workspace keeps.
const maxOthers = 4

// follower tails one workspace's live transcript into its topic. All its
// work happens on its own goroutine; the API reads a snapshot under mu.
type follower struct {
	eng   *Engine
	topic *stream.Topic
	kick  chan struct{}
	do    chan func() // work from other goroutines, run on the follower's
	ctx   context.Context
	stop  context.CancelFunc
	// relook asks the next sync to look for the live session file again
	// (the folder changed) rather than only read the current one, which is
	// all a write to it needs: listing a folder per line would cost more
	// than parsing the line.
	relook atomic.Bool
	// subCount is how many subagent transcripts it follows, for the sweep.
	subCount atomic.Int32

	// Owned by the follower's goroutine.
	reader    transcript.Reader
	parser    transcript.Parser
	quiet     *time.Timer
	evs       []event.Event
	warned    map[string]bool
	subs      map[string]*subTail // the live session's subagent transcripts
	subDirMod time.Time
	others    map[string]fileState // by transcript path

	mu        sync.Mutex // guards the fields below
	ws        discover.Workspace
	status    string
	since     time.Time
	path      string
	liveMod   time.Time
	liveSize  int64
	dirMod    time.Time
	malformed int
	oversized int
	needs     string // why the agent waits for the person (a hook said so), "" if it does not
	version   string // the Claude Code version writing the live transcript
}

func (f *follower) workspace() discover.Workspace {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ws
}

// poke asks the follower to read its live file again, and with relook to
// look for a newer session file too; it never blocks.
func (f *follower) poke(relook bool) {
	if relook {
		f.relook.Store(true)
	}
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

func (f *follower) run(ctx context.Context) {
	f.quiet = time.NewTimer(time.Hour)
	f.quiet.Stop()
	defer f.quiet.Stop()
	f.restore()
	f.sync()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.kick:
			f.sync()
		case fn := <-f.do:
			fn()
		case <-f.quiet.C:
			f.sync()
			f.evs = f.parser.Quiet(f.evs[:0])
			f.publish(f.statusChange(f.evs), true)
		}
	}
}

// restore resumes from the cursor journaled with the topic's last events.
func (f *follower) restore() {
	raw := f.topic.Cursor()
	if raw == nil {
		return
	}
	var c cursor
	if err := json.Unmarshal(raw, &c); err != nil {
		f.eng.log.Warn().Err(err).Str("workspace", f.topic.ID).Msg("journal cursor unreadable; starting from the transcript's tail")
		return
	}
	f.reader = transcript.Reader{Path: c.Path, Offset: c.Offset}
	f.parser = transcript.Parser{State: c.Parser}
	f.restoreSubs(c.Subs)
	f.others = c.Others
	f.mu.Lock()
	f.status, f.since, f.path = c.Status, c.Since, c.Path
	f.mu.Unlock()
}

// sync reads whatever the live transcript gained and publishes its events.
func (f *follower) sync() {
	path := f.reader.Path
	if f.relook.Swap(false) || path == "" {
		ws := f.workspace()
		var err error
		path, _, err = discover.LiveSession(ws.ProjectDir, ws.Directory)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				f.warnOnce("live", "find live session", err)
			}
			f.publish(f.statusChange(f.evs[:0]), true)
			return
		}
	}
	evs := f.evs[:0]
	cold := false
	if path != f.reader.Path {
		if f.reader.Path != "" {
			// Finish the old session before following the new one.
			evs = f.read(evs)
			evs = f.readSubagents(evs, false)
			evs = f.parser.Flush(evs)
			f.publish(evs, true)
			evs = f.evs[:0]
		}
		cold = f.switchTo(path)
		f.mu.Lock()
		f.path = path
		f.mu.Unlock()
		evs = append(evs, event.Event{Type: event.Session, TS: time.Now(),
			SessionID: sessionID(path), Path: path})
	}
	evs = f.read(evs)
	evs = f.readSubagents(evs, cold)
	evs = f.parser.Flush(evs)
	f.publish(f.statusChange(evs), true)
	f.armQuiet()
}

// switchTo makes path the followed session, resuming it where it was left
// if it was followed before; it reports whether path is new to the
// follower (and so read from its tail only when it is already large).
func (f *follower) switchTo(path string) (fresh bool) {
	if old := f.reader.Path; old != "" {
		if f.others == nil {
			f.others = make(map[string]fileState)
		}
		f.others[old] = fileState{Offset: f.reader.Offset, Parser: f.parser.State, Subs: f.subCursors(), Left: time.Now()}
		for len(f.others) > maxOthers {
			oldest := ""
			for p, st := range f.others {
				if oldest == "" || st.Left.Before(f.others[oldest].Left) {
					oldest = p
				}
			}
			delete(f.others, oldest)
		}
	}
	f.subs, f.subDirMod = nil, time.Time{}
	if st, ok := f.others[path]; ok {
		delete(f.others, path)
		f.reader = transcript.Reader{Path: path, Offset: st.Offset}
		f.parser = transcript.Parser{State: st.Parser}
		f.restoreSubs(st.Subs)
		return false
	}
	f.reader = transcript.Reader{Path: path}
	f.parser = transcript.Parser{}
	if info, err := os.Stat(path); err == nil && info.Size() > f.eng.cfg.TailBytes {
		// An old transcript seen for the first time: only its tail
		// matters. A session that just began is still small.
		f.reader.SkipTo(info.Size() - f.eng.cfg.TailBytes)
	}
	return true
}

// read hands every new complete line to the parser.
func (f *follower) read(evs []event.Event) []event.Event {
	var bad int
	res, err := f.reader.Read(func(line []byte, _ int64) {
		n := len(evs)
		var perr error
		evs, perr = f.parser.Line(line, evs)
		if perr != nil {
			bad++
		}
		if on := f.eng.cfg.OnUser; on != nil {
			for i := n; i < len(evs); i++ {
				if evs[i].Type == event.User {
					on(f.topic.ID, &evs[i])
				}
			}
		}
	})
	if res.Reset {
		f.eng.log.Info().Str("workspace", f.topic.ID).Str("path", f.reader.Path).Msg("transcript shrank or was replaced; reading it again from the start")
		f.parser = transcript.Parser{}
	}
	if err != nil {
		f.warnOnce("read", "read transcript", err)
		f.relook.Store(true) // deleted or replaced: find the live file again
	}
	if bad > 0 || res.Oversized > 0 {
		f.eng.log.Warn().Str("workspace", f.topic.ID).Str("path", f.reader.Path).
			Int("malformed", bad).Int("oversized", res.Oversized).Msg("skipped transcript lines")
	}
	f.mu.Lock()
	f.version = f.parser.State.Version
	f.malformed += bad
	f.oversized += res.Oversized
	if res.Size > 0 || err == nil {
		f.liveSize = res.Size
	}
	f.mu.Unlock()
	return evs
}

// statusChange appends a status event when the agent's state changed.
func (f *follower) statusChange(evs []event.Event) []event.Event {
	st, reason := event.StateIdle, ""
	if f.parser.InTurn() {
		st = event.StateWorking
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.needs != "" {
		if len(evs) > 0 {
			f.needs = "" // the agent moved on: it has its answer
		} else {
			st, reason = event.StateNeedsInput, f.needs
		}
	}
	if st == f.status {
		return evs
	}
	f.status, f.since = st, time.Now()
	return append(evs, event.Event{Type: event.Status, TS: f.since, SessionID: f.parser.State.SessionID, State: st, Reason: reason})
}

// needsInput marks the agent as waiting for the person until it moves on.
func (f *follower) needsInput(reason string) {
	f.sync()
	f.mu.Lock()
	f.needs = reason
	f.mu.Unlock()
	f.publish(f.statusChange(f.evs[:0]), true)
}

// turnEnded is the Stop hook's word that the agent finished its turn. For
// versions that write no stop reason it ends the turn now instead of
// after a quiet spell.
func (f *follower) turnEnded() {
	f.sync()
	f.evs = f.parser.Quiet(f.evs[:0])
	f.publish(f.statusChange(f.evs), true)
}

// publish sends evs to the topic, journaled with the current cursor when
// withCursor is set (the reader and parser moved).
func (f *follower) publish(evs []event.Event, withCursor bool) {
	if len(evs) == 0 && !withCursor {
		return
	}
	var raw json.RawMessage
	if withCursor {
		f.mu.Lock()
		c := cursor{Path: f.reader.Path, Offset: f.reader.Offset, Parser: f.parser.State, Status: f.status, Since: f.since,
			Subs: f.subCursors(), Others: f.others}
		f.mu.Unlock()
		b, err := json.Marshal(c)
		if err != nil {
			f.warnOnce("cursor", "encode cursor", err)
		} else if len(evs) > 0 || string(b) != string(f.topic.Cursor()) {
			raw = b
		}
	}
	if len(evs) == 0 && raw == nil {
		return
	}
	if _, err := f.topic.Publish(evs, raw); err != nil {
		f.warnOnce("publish", "journal events", err)
	}
	f.evs = evs[:0]
	f.eng.changed()
}

// armQuiet starts the quiet-spell timer while a turn's end can only be
// inferred (versions that write no stop reason).
func (f *follower) armQuiet() {
	if t := f.parser.State.Turn; t != nil && t.Unsure {
		f.quiet.Reset(f.eng.cfg.QuietAfter)
	}
}

// warnOnce logs one line per kind of trouble and workspace, not one per poll.
func (f *follower) warnOnce(kind, what string, err error) {
	key := kind + ":" + err.Error()
	if f.warned == nil {
		f.warned = make(map[string]bool)
	}
	if f.warned[key] {
		return
	}
	f.warned[key] = true
	f.eng.log.Warn().Err(err).Str("workspace", f.topic.ID).Msg(what)
}

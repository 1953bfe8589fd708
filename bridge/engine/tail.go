package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/transcript"
)

// tail follows one agent session's record: its reader, its parser and the
// state it announced. It belongs to its workspace's goroutine.
type tail struct {
	id     string // the agent's session id (the transcript's base name)
	agent  string // discover.Agent*
	reader transcript.Reader
	parser agent.Parser
	meta   discover.Session // what discovery knows of it (Conductor's tab)

	subs      map[string]*subTail // 2.1 subagent transcripts of the session
	subDirMod time.Time
	// lookedAt is Engine.folders when the session's folders were last
	// looked at, if they are watched such that a new subagent file in
	// them is a file event (quiet); see look.
	lookedAt   uint64
	quiet      bool
	lookedOnce bool
	coldSubs   bool      // first sight of a large session: read its subagents' tails only
	subsDone   time.Time // from the journal: subagent files last changed before it were read
	beside     *besideAgents

	status, reason string
	since          time.Time
	needs          string // a hook said the agent waits for the person, and why
	liveMod        time.Time
	liveSize       int64
	malformed      int
	oversized      int
	lastID         int64 // the last event id this session published
	hinted         bool  // adopted from a hook call, not found by a listing
	agentPID       int   // the live agent last seen running the open turn (orphan.go)

	journaled journaled // what the journal's last line holds of it (see delta)
	rewound   bool      // read again from its start since: the bytes no longer explain its state
	stale     bool      // a restart could not parse its journaled bytes again (see replay)
}

// tailCursor is a session's resume point in the workspace's journal.
type tailCursor struct {
	Path   string          `json:"path"`
	Agent  string          `json:"agent,omitempty"`
	Offset int64           `json:"offset"`
	Parser json.RawMessage `json:"parser,omitempty"`
	Status string          `json:"status,omitempty"`
	Reason string          `json:"reason,omitempty"`
	// Needs is what a hook said the agent waits for (a permission
	// prompt), which its record does not show: kept across a restart.
	Needs string               `json:"needs,omitempty"`
	Since time.Time            `json:"since,omitzero"`
	Subs  map[string]subCursor `json:"subs,omitempty"`
	// SubsDone: subagent files not in Subs and last changed before it
	// were read to their end (subIdle).
	SubsDone time.Time `json:"subs_done,omitzero"`
	LastID   int64     `json:"last_id,omitempty"`
	Left     time.Time `json:"left,omitzero"` // retired: when it stopped being followed
}

// newParser makes the parser for an agent's format, resumed from saved.
// Both price their turns with the one table (Config.Prices), so Codex's
// dollars and Claude's come from the same rates and the same override.
func (e *Engine) newParser(agentName string, saved json.RawMessage) (agent.Parser, error) {
	switch agentName {
	case discover.AgentCodex:
		p, err := codex.NewParser(saved)
		if err != nil {
			return nil, err
		}
		prices := e.cfg.Prices
		if prices == nil {
			prices = price.Embedded()
		}
		p.Price = func(model string, u event.Usage) (float64, bool) {
			return prices.Cost(price.Request{Model: model, Usage: u})
		}
		return p, nil
	default:
		p, err := transcript.NewParser(saved)
		if err == nil && e.cfg.Prices != nil {
			p.SetPrices(e.cfg.Prices)
		}
		return p, err
	}
}

// readable reports whether the bridge has a parser for an agent's record.
func readable(agentName string) bool {
	return agentName == "" || agentName == discover.AgentClaude || agentName == discover.AgentCodex
}

// agentOf is the agent of a session known only by its record's path (a
// hook named it before any scan did): Codex names its rollouts
// rollout-<time>-<thread>.jsonl, Claude Code <session>.jsonl.
func agentOf(path string) string {
	if strings.HasPrefix(filepath.Base(path), "rollout-") {
		return discover.AgentCodex
	}
	return discover.AgentClaude
}

func (t *tail) cursor() tailCursor {
	raw, _ := t.parser.Save()
	subs, done := t.subCursors()
	return tailCursor{Path: t.reader.Path, Agent: t.agent, Offset: t.reader.Offset, Parser: raw,
		Status: t.status, Reason: t.reason, Needs: t.needs, Since: t.since, Subs: subs, SubsDone: done, LastID: t.lastID}
}

// stamp marks events from index n on as this session's.
func (t *tail) stamp(evs []event.Event, n int) {
	for i := n; i < len(evs); i++ {
		evs[i].SessionID = t.id
		if t.agent != "" && t.agent != discover.AgentClaude {
			evs[i].Agent = t.agent
		}
	}
}

// state is the session's status from everything known about it, most
// telling first: a hook saying the agent waits, the record itself (an
// unanswered question, an open turn), then Conductor's own word.
func (t *tail) state() (string, string) {
	if t.needs != "" {
		return event.StateNeedsInput, t.needs
	}
	if w, ok := t.parser.(agent.Waiter); ok {
		if r := w.Waiting(); r != "" {
			return event.StateNeedsInput, r
		}
	}
	switch t.meta.ConductorStatus {
	case "needs_user_input":
		return event.StateNeedsInput, "question"
	case "needs_plan_response":
		return event.StateNeedsInput, "plan"
	}
	if t.parser.InTurn() {
		return event.StateWorking, ""
	}
	if t.meta.ConductorStatus == "error" {
		return event.StateError, ""
	}
	return event.StateIdle, ""
}

// statusChange appends a status event when the session's state changed.
func (t *tail) statusChange(evs []event.Event, moved bool) []event.Event {
	if t.needs != "" && moved {
		t.needs = "" // the agent moved on: it has its answer
	}
	st, reason := t.state()
	if st == t.status && reason == t.reason {
		return evs
	}
	t.status, t.reason, t.since = st, reason, time.Now()
	return append(evs, event.Event{Type: event.Status, TS: t.since, SessionID: t.id, Agent: agentTag(t.agent), State: st, Reason: reason})
}

func agentTag(a string) string {
	if a == discover.AgentClaude {
		return ""
	}
	return a
}

// statFile records the live file's modification time and size, for the
// sweep and for "most recently active".
func (t *tail) statFile() {
	if info, err := os.Stat(t.reader.Path); err == nil {
		t.liveMod, t.liveSize = info.ModTime(), info.Size()
	}
}

// claude reports whether the session is Claude Code's: only its sessions
// have subagent files and Claude's hooks.
func (t *tail) claude() bool { return t.agent == "" || t.agent == discover.AgentClaude }

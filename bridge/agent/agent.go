// Package agent is the seam between the engine and each agent's record
// format. One package per format (bridge/transcript for Claude Code,
// bridge/codex for Codex) turns that format's lines into the bridge's
// events behind Parser (and SubParser, for subagents' files); the engine
// follows files (bridge/linefile) and never looks inside a line itself.
package agent

import (
	"encoding/json"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Parser turns one session's record, line by line, into events. It is fed
// complete lines in file order by one goroutine; it is not safe for
// concurrent use. Events it returns carry no ID (the stream assigns them)
// and need not carry SessionID or Agent (the engine stamps both).
type Parser interface {
	// Line parses one line and appends its events to out. A line that is
	// not JSON returns an error and leaves the state untouched.
	Line(line []byte, out []event.Event) ([]event.Event, error)
	// Flush is called when the reader caught up with the end of the file.
	Flush(out []event.Event) []event.Event
	// Quiet is called after the file has been quiet for a while: a format
	// whose turn ends are only inferred ends the turn here.
	Quiet(out []event.Event) []event.Event
	// EndTurn is a hook's word that the agent finished its turn.
	EndTurn(out []event.Event) []event.Event
	// Interrupt ends the open turn because its agent is gone (killed,
	// crashed, its terminal closed) or the record is read to its end for
	// good: a turn that spent anything ends with a turn_complete marked
	// Interrupted, carrying every token and dollar spent so far; one
	// that spent nothing ends with none. The streams and `usage` both end
	// cut-off turns here, so they count them alike.
	Interrupt(out []event.Event) []event.Event
	// InTurn reports whether a turn is open (the agent is working).
	InTurn() bool
	// Unsure reports whether the open turn's end can only be inferred
	// from a quiet spell, so the engine arms its quiet timer.
	Unsure() bool
	// Version is the agent's version writing the record, "" if unknown.
	Version() string
	// Save returns the parser's state to journal with the events, so that
	// a restart resumes exactly where it stopped. It must stay small:
	// O(1) in the length of a turn.
	Save() (json.RawMessage, error)
}

// Waiter is a Parser that can tell from the record alone that the agent
// waits for the person: a question tool call with no answer yet, an
// approval request. Waiting returns the reason ("question", "approval"),
// or "" when the agent does not wait.
type Waiter interface {
	Waiting() string
}

// Asker is a Parser that keeps a wait a hook announced (Codex's
// PermissionRequest hook: the record never says Codex asks) in its own
// state, saved with it, and ends it when the record moves on.
type Asker interface {
	Ask(reason string)
}

// StopHooked is a Parser whose record's end of a turn a Stop hook can take
// back (Claude Code goes on with the turn from the hook's answer). Told
// that the session's hooks call the bridge, it holds each end until the
// hook says the turn is over (StopEnded), so one turn is one
// turn_complete. StopGoesOn is told when a Stop hook went on with the turn
// (handed a message over): a later Stop hook's word can reach the bridge
// before the record of that, and must not end the turn at the reply the
// hook went on from. Held reports that the open turn's end, which only a
// quiet spell would infer, waits for the hook's word instead (a pause
// mid-response is no end); the engine ends such a turn with Backstop
// after a long quiet should the word never come.
type StopHooked interface {
	HookedStops()
	StopGoesOn()
	StopEnded(out []event.Event) []event.Event
	Held() bool
	Backstop(out []event.Event) []event.Event
}

// Agent is one agent's driver: everything the engine needs to know of an
// agent, in the agent's own package (bridge/agent/<name>). The bridge
// lists its agents in one place (app's agentList), explicitly; the engine
// names none of them. What only some agents have (subagent files,
// hooks, a dated folder of records) is an optional interface below,
// found by type assertion.
type Agent interface {
	// Name is the agent as Conductor's sessions.agent_type names it
	// ("claude", "codex", "acp"); it is what events and listings carry.
	Name() string
	// Label is how a person reads it: "Claude", "Codex", "OpenCode".
	Label() string
	// Owns reports whether a record file, known only by its path (a hook
	// named it), is this agent's.
	Owns(record string) bool
	// NewParser makes the parser of one session's record, resumed from
	// saved (nil: from the start), pricing turns with prices (nil: the
	// built-in table).
	NewParser(saved json.RawMessage, prices *price.Table) (Parser, error)
}

// RecordNamed is an agent whose record a person knows by a name of its
// own ("transcript", "rollout"); others' is a "record".
type RecordNamed interface {
	RecordName() string
}

// Nested is an agent whose sessions write each subagent's record to a
// file of its own (Claude Code 2.0 and 2.1): secondary records, which the
// engine follows with the session's own, shows as the subagent's and
// counts into the session's turns. The agent says where they are and
// reads them (SubParser); the engine finds, follows and journals them.
type Nested interface {
	// SubagentGlob is a pattern of the files the session writing record
	// puts its subagents' records in, all in one folder of their own
	// (which the engine watches), "" if none.
	SubagentGlob(record string) string
	// BesideGlob is a pattern of files beside record that may be a
	// subagent's of any session in the folder (BesideSession says
	// whose); "" if none.
	BesideGlob(record string) string
	// BesideSession is the session a file BesideGlob matched belongs to,
	// "" for none; decided is false while that cannot be told yet (the
	// file was just made and says nothing yet).
	BesideSession(file string) (session string, decided bool)
	// NewSubParser makes the parser of one subagent file, resumed from
	// what its Save returned (nil: from the start).
	NewSubParser(saved json.RawMessage) (SubParser, error)
}

// SubParser turns one subagent's record into events. Its events are the
// subagent's (Sidechain) and end no turn: the subagent has none of its
// own. What it spent counts in the session's open turn (CountInto). Its
// state after a line depends on the bytes read alone, so that a restart
// replaying them reaches it again.
type SubParser interface {
	// Line parses one line and appends its events to out.
	Line(line []byte, out []event.Event) ([]event.Event, error)
	// CountInto counts what the lines read from now on spent into
	// session's open turn, session being the parser the agent's
	// NewParser made for the session's record; nil, or another agent's,
	// counts it nowhere (a subagent's history, spent in turns long over).
	CountInto(session Parser)
	// Busy reports whether the subagent waits on a tool call of its own,
	// so is at work however long its file stays unchanged: the engine
	// keeps journaling its cursor meanwhile.
	Busy() bool
	// Save returns the state to journal, O(1) in the file's length.
	Save() (json.RawMessage, error)
}

// PerDirectory is an agent that keeps its records in one folder per
// working directory under one root (Claude Code's projects folder): the
// engine watches the root for new folders. Folder names are lossy, so a
// folder's records say which directory each serves.
type PerDirectory interface {
	RecordsRoot() string
	// RecordCwd is the working directory the record names, "" when it
	// names none (yet).
	RecordCwd(record string) (string, error)
}

// Dated is an agent that writes every session's record under one root in
// dated folders depth deep (Codex's sessions/YYYY/MM/DD): the engine
// watches the root down to the newest folder for new records.
type Dated interface {
	DatedRoot() (root string, depth int)
}

// Placer is an agent whose new record says where its session runs only
// after it is made (Claude Code's cwd, Codex's session_meta line): until
// Placeable, every event on a record no workspace follows asks for a scan.
type Placer interface {
	Placeable(record string) bool
}

// Process is an agent whose running process the engine can tell by its
// command name and arguments (never its environment).
type Process interface {
	IsProcess(comm string, argv []string) bool
}

// ProcessArgs is a Process whose command line may name the session it
// runs (Claude Code's --resume <id>, Codex's resume <thread>): a process
// that names one is that session's, whatever its directory.
type ProcessArgs interface {
	Process
	// SessionArg is the session argv names, "" if none.
	SessionArg(argv []string) string
}

// Serving is a Process whose process may run sessions of any directory,
// told over its own protocol rather than its command line (Codex's
// app-server): while one runs, the process table cannot rule it out as
// the writer of any session of its agent.
type Serving interface {
	Process
	// Serves reports whether argv runs such a server.
	Serves(argv []string) bool
}

// DirectoryHeld is an agent whose process naming no session holds every
// session of its directory that has no process of its own: which one it
// writes cannot be told, so none is resumed under it (Codex 0.47 would
// interleave two writers).
type DirectoryHeld interface {
	HoldsDirectory()
}

// Hooked is an agent that runs the bridge's hooks in the sessions of a
// directory: a hook's call names its process and its record.
type Hooked interface {
	Process
	// RecordFolder is the folder of dir's records when record is where
	// the agent itself would write one for dir; ok is false otherwise,
	// so a hook cannot make the bridge follow arbitrary paths.
	RecordFolder(dir, record string) (folder string, ok bool)
}

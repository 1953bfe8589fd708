// Package claude is Claude Code's driver for the engine (agent.Agent):
// its transcripts, read by bridge/transcript, one folder per working
// directory under its projects folder; its subagents' files; its hooks.
package claude

import (
	"encoding/json"
	"path/filepath"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/transcript"
)

// Agent is Claude Code as the engine follows it. Projects is its
// projects folder (~/.claude/projects); "" watches none and adopts no
// hooked folder.
type Agent struct {
	Projects string
}

var (
	_ agent.Agent        = Agent{}
	_ agent.Nested       = Agent{}
	_ agent.PerDirectory = Agent{}
	_ agent.Hooked       = Agent{}
	_ agent.Placer       = Agent{}
	_ agent.ProcessArgs  = Agent{}
	_ agent.RecordNamed  = Agent{}
)

// Placeable reports whether the transcript records its cwd yet.
func (a Agent) Placeable(record string) bool {
	cwd, err := a.RecordCwd(record)
	return err == nil && cwd != ""
}

// Type is Conductor's sessions.agent_type for Claude Code tabs, and the
// Source of a workspace found only by its transcripts.
const Type = "claude"

// Name is Conductor's sessions.agent_type for Claude Code tabs.
func (Agent) Name() string { return Type }

// Label is how a person reads it.
func (Agent) Label() string { return "Claude" }

// stopContextSince is the first Claude Code release whose Stop hook can
// go on with the turn by hookSpecificOutput.additionalContext without it
// counting as a hook error (its changelog for 2.1.163; the bridge checks
// the behaviour on 2.1.328). Older releases reject a Stop hook's
// hookSpecificOutput (2.1) or ignore it (2.0), and the message would be
// lost: they get the block, which every release takes, and show it as a
// hook error.
var stopContextSince = [3]int{2, 1, 163}

// StopContext reports whether the Stop hook of a session at version goes
// on with the turn by additional context (inject.StopContext).
func (Agent) StopContext(version string) bool { return agent.AtLeast(version, stopContextSince) }

// RecordName is what Claude Code calls its record.
func (Agent) RecordName() string { return "transcript" }

// Owns reports whether record is a transcript (<session>.jsonl).
func (Agent) Owns(record string) bool { return filepath.Ext(record) == ".jsonl" }

// NewParser resumes a transcript's parser; prices nil keeps the built-in
// table.
func (Agent) NewParser(saved json.RawMessage, prices *price.Table) (agent.Parser, error) {
	p, err := transcript.NewParser(saved)
	if err == nil && prices != nil {
		p.SetPrices(prices)
	}
	return p, err
}

// RecordsRoot is the projects folder.
func (a Agent) RecordsRoot() string { return a.Projects }

// RecordFolder is dir's project folder when record lies in it: the
// encoding of dir itself, inside the projects folder.
func (a Agent) RecordFolder(dir, record string) (string, bool) {
	folder := filepath.Dir(record)
	if a.Projects == "" || dir == "/" || filepath.Dir(folder) != filepath.Clean(a.Projects) ||
		filepath.Base(folder) != EncodeProjectDir(dir) {
		return "", false
	}
	return folder, true
}

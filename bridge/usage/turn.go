// Package usage reads the whole history of every agent the bridge reads
// (Claude Code transcripts, Codex rollouts) through the same parsers the
// streams use, and sums what each completed turn cost by day, week,
// month, session, workspace, model or 5-hour block.
//
// It counts turns, not lines: every number here is the sum of the
// turn_complete events the streams would send for the same files, so the
// usage command, the usage page and the menu bar cannot disagree.
package usage

import (
	"time"

	"conductorbridge/bridge/event"
)

// Agents the report names.
const (
	AgentClaude = "claude"
	AgentCodex  = "codex"
)

// Turn is one turn_complete as the report counts it, with where it ran.
type Turn struct {
	Start     time.Time // the turn's first message: blocks are metered from it
	End       time.Time // the turn_complete's time: days are counted by it
	Agent     string
	Workspace string // the session's working directory
	Session   string
	Model     string
	Usage     event.Usage
	CostUSD   float64
	CostKnown bool
	SubUsage  event.Usage
	SubCost   float64
}

// fromEvent makes a Turn of a turn_complete event.
func fromEvent(e event.Event, agent, workspace, session string) Turn {
	t := Turn{End: e.TS, Start: e.TS, Agent: agent, Workspace: workspace, Session: session, Model: e.Model,
		Usage: e.Usage, CostUSD: e.CostUSD, CostKnown: e.CostKnown, SubUsage: e.SubagentUsage, SubCost: e.SubagentCostUSD}
	if e.DurationMS > 0 {
		t.Start = e.TS.Add(-time.Duration(e.DurationMS) * time.Millisecond)
	}
	if e.SessionID != "" {
		t.Session = e.SessionID
	}
	return t
}

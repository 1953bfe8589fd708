// Package driver is the seam between bridge/usage and each agent's
// history, as database/sql/driver is database/sql's: usage declares here
// what it needs of an agent's records, each agent's package implements
// it (bridge/agent/<name>), and the app hands usage the list. usage itself
// names no agent.
//
// An agent's history is a Format: it lists its record groups (the unit
// usage reads and caches), and is either Lines (records appended to line
// by line, which usage reads merged in time order and goes on reading
// from where it stopped) or Whole (records read whole whenever they
// changed, a database).
package driver

import (
	"io/fs"
	"os"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Format is one agent's history. It is also a Lines or a Whole. Its
// methods may be called by several reads at once (the usage page's and
// the menu's); a Reader is one read's.
type Format interface {
	// Name is the agent its turns carry: Conductor's sessions.agent_type.
	Name() string
	// UsageHome is where its records are, as one string: what a cache
	// holds of another home is let go.
	UsageHome() string
	// UsageGroups lists the record groups, each read as one unit (and
	// cached as one, by its first file). A missing home lists none.
	UsageGroups() ([]Group, error)
}

// Group is one unit of an agent's history: a session's record and the
// files read with it (its subagents').
type Group struct {
	// Files are the group's files, the session's own record first (the
	// group's key), each with its FileInfo as listed (Infos).
	Files []string
	Infos []fs.FileInfo
	// Session is the session's id until its lines say.
	Session string
	// Orphan: Files[0] is not a session's own record but a file counted
	// into one whose own record is gone (a subagent's).
	Orphan bool
}

// Lines is a Format whose records are JSON lines, appended to. usage
// reads a group's files merged by each line's "timestamp", the order a
// live follower would have seen them in, hands each line to the group's
// Reader, and keeps where it stopped: a later read of files that only
// grew goes on from there with the state Reader.Save gave.
type Lines interface {
	Format
	// OpenUsage makes the reader of group g, going on from saved (nil:
	// from the files' start).
	OpenUsage(g Group, saved *Saved, o Options) (Reader, error)
	// Reprice works out turn t's cost (and the model it names) again with
	// prices from what made it (Reader.Charges), without its files.
	Reprice(t *Turn, p Pricing, prices *price.Table)
}

// Whole is a Format whose records are read whole whenever any of a
// group's files changed (a SQLite database and its WAL, which change in
// place): usage keeps their turns while the files' identities hold.
type Whole interface {
	Format
	// ReadUsage reads every turn of group g. elsewhere names the agents
	// the other Formats count (their names, and their Aliases): a Format
	// whose record holds every agent's sessions (Conductor's own record
	// of its tabs) leaves theirs out, so no turn counts twice.
	ReadUsage(g Group, prices *price.Table, elsewhere []string) ([]Turn, error)
}

// RunsOnly is a Format that counts only its agent's runs outside
// Conductor (a plain folder's), not its Conductor tabs: the Format that
// keeps every tab's record (Conductor's own) still counts them, so its
// name is not among another Whole's elsewhere.
type RunsOnly interface {
	CountsNoTab()
}

// Aliased is a Format whose agent Conductor's sessions.agent_type also
// names otherwise.
type Aliased interface {
	Aliases() []string
}

// SQLiteGroups is a SQLite database and its WAL as one group of a Whole
// (none when there is no database).
func SQLiteGroups(db string) []Group {
	info, err := os.Stat(db)
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	g := Group{Files: []string{db}, Infos: []fs.FileInfo{info}}
	if wal, err := os.Stat(db + "-wal"); err == nil && wal.Mode().IsRegular() {
		g.Files, g.Infos = append(g.Files, db+"-wal"), append(g.Infos, wal)
	}
	return []Group{g}
}

// Options are what a read asks of a Reader.
type Options struct {
	Prices *price.Table // the table turns are priced with, never nil
	// Lean: only turn_complete events are used (no content need be
	// copied, lines need not be read in full).
	Lean bool
	// Keep: the read is cached; Charges must tell what made each turn's
	// cost.
	Keep bool
}

// Saved is where an earlier read of a group stopped.
type Saved struct {
	State     []byte            // Reader.Save's group state
	Files     map[string][]byte // each file's own state, by path (Reader.Save's)
	Workspace string            // Reader.Where's then
	Limits    []Limit           // Reader.Limits's then
}

// Reader reads one group's lines. It is used by one goroutine.
type Reader interface {
	// Line reads the next line of Files[file] and appends the events it
	// makes. A line that is not JSON is skipped, as the streams skip it.
	Line(file int, line []byte, out []event.Event) []event.Event
	// End is the end of the record for good (history is read to its
	// end): it appends what that completes (a turn cut off mid-way ends
	// as the streams end it, interrupted).
	End(out []event.Event) []event.Event
	// Where is the session's workspace and id as the lines said so far
	// (the group's Session when they said none).
	Where() (workspace, session string)
	// Charges is, with Options.Keep, what made the cost of each
	// turn_complete made since the last call, in their order.
	Charges() []Pricing
	// Leftover is usage read after the group's last turn (a background
	// subagent's, a subagent file whose session is gone): it was spent,
	// so it counts, as a turn at the time of the newest line read. ok is
	// false when there is none.
	Leftover() (e event.Event, p Pricing, ok bool)
	// Limits are the newest plan limits the lines recorded (nil: none).
	Limits() []Limit
	// Save is the state to go on from: the group's, and each file's own
	// (files[i] for Files[i]; nil where it has none).
	Save() (state []byte, files [][]byte, err error)
}

// Pricing is what made one turn's cost, so that another price table
// reprices it without the files.
type Pricing struct {
	Model   string         // the turn's own model
	Charges []price.Charge // each response as priced
	// Leftover: the Reader's Leftover (named only by an unpriced model).
	Leftover bool
}

// Turn is one turn_complete as a report counts it, with where it ran.
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

// TurnOf makes a Turn of a turn_complete event, in session (the event's
// own SessionID, when it has one) of workspace.
func TurnOf(e event.Event, agent, workspace, session string) Turn {
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

// Ender is a parser whose record can be read to its end (agent.Parser's
// end calls).
type Ender interface {
	Flush(out []event.Event) []event.Event
	Quiet(out []event.Event) []event.Event
	Interrupt(out []event.Event) []event.Event
}

// EndTurns ends p's record for good, as usage ends every record (a turn
// cut off mid-way ends interrupted, with what it spent), and appends to
// turns a Turn of each turn_complete of evs and of that end, with where()
// asked after the end.
func EndTurns(turns []Turn, p Ender, evs []event.Event, agent string, where func() (workspace, session string)) []Turn {
	evs = p.Interrupt(p.Quiet(p.Flush(evs)))
	ws, session := where()
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			turns = append(turns, TurnOf(e, agent, ws, session))
		}
	}
	return turns
}

// Limit is a plan limit as an agent records it: how much of a window's
// allowance was used when Seen.
type Limit struct {
	Agent         string    `json:"agent"`
	Name          string    `json:"name"` // primary (the short window), secondary (the weekly one)
	UsedPercent   float64   `json:"used_percent"`
	WindowMinutes int64     `json:"window_minutes,omitempty"`
	ResetsAt      time.Time `json:"resets_at,omitzero"`
	Plan          string    `json:"plan,omitempty"`
	Seen          time.Time `json:"seen"`
	// Workspace is the folder of the session that recorded it: a browser
	// is shown the limits recorded in workspaces it may see only.
	Workspace string `json:"-"`
}

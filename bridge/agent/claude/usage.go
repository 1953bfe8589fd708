package claude

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/transcript"
	"conductorbridge/bridge/usage/driver"
)

// Claude Code's history for bridge/usage: every transcript under the
// projects folder, each session with its subagents' files.
var _ driver.Lines = Agent{}

// UsageHome is the projects folder.
func (a Agent) UsageHome() string { return a.Projects }

// UsageGroups walks the projects folder. A session is <project>/<id>.jsonl;
// its subagents write <project>/<id>/subagents/*.jsonl (2.1) or
// <project>/agent-*.jsonl naming the session inside (2.0). 1.0 writes
// them inline, which the parser reads as it reads the session. A subagent
// file whose session file is gone is a group of its own (Orphan).
func (a Agent) UsageGroups() ([]driver.Group, error) {
	root := a.Projects
	if root == "" {
		return nil, nil
	}
	sessions := map[string]*driver.Group{} // by session file path minus .jsonl
	var loose []string                     // subagent files, attached once all sessions are known
	infos := map[string]fs.FileInfo{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		infos[path] = info
		rel, _ := filepath.Rel(root, path)
		depth := strings.Count(rel, string(filepath.Separator))
		if depth == 1 && !strings.HasPrefix(d.Name(), "agent-") {
			key := strings.TrimSuffix(path, ".jsonl")
			sessions[key] = &driver.Group{Files: []string{path}, Session: strings.TrimSuffix(d.Name(), ".jsonl")}
			return nil
		}
		loose = append(loose, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list claude transcripts in %s: %w", root, err)
	}
	var orphans []driver.Group
	for _, path := range loose {
		key := ""
		dir := filepath.Dir(path)
		if filepath.Base(dir) == "subagents" {
			key = filepath.Dir(dir) // <project>/<id>/subagents/x.jsonl → <project>/<id>
		} else if sid := besideGroup(path); sid != "" {
			key = filepath.Join(dir, sid) // 2.0: agent-*.jsonl names its session
		}
		if g, ok := sessions[key]; ok {
			g.Files = append(g.Files, path)
			continue
		}
		sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		if key != "" {
			sid = filepath.Base(key)
		}
		orphans = append(orphans, driver.Group{Files: []string{path}, Orphan: true, Session: sid})
	}
	out := make([]driver.Group, 0, len(sessions)+len(orphans))
	for _, g := range sessions {
		if infos[g.Files[0]].Size() == 0 {
			// A record with nothing in it is no session: nothing was
			// asked there. 2.0.77's `--resume` leaves one, the id it
			// started under, with warm-ups that count in the resumed
			// session (besideOwner); the streams show no such session.
			continue
		}
		slices.Sort(g.Files[1:])
		out = append(out, *g)
	}
	out = append(out, orphans...)
	for i := range out {
		g := &out[i]
		g.Infos = make([]fs.FileInfo, len(g.Files))
		for j, f := range g.Files {
			g.Infos[j] = infos[f]
		}
	}
	return out, nil
}

// OpenUsage reads a session's transcript and its subagents' files, merged
// by time: subagent lines count into the session's turns through
// Parser.CountInto, the way the streams count them, so a response relayed
// in a progress record and written again in its subagent's file is
// counted once.
func (a Agent) OpenUsage(g driver.Group, saved *driver.Saved, o driver.Options) (driver.Reader, error) {
	newParser := func(state []byte) (*transcript.Parser, error) {
		p, err := transcript.NewParser(state)
		if err != nil {
			return nil, err
		}
		p.SetPrices(o.Prices)
		if o.Lean {
			// The report reads turn_complete events only: no content is copied.
			p.CountOnly()
		}
		return p, nil
	}
	r := &usageReader{session: g.Session, keep: o.Keep}
	var state []byte
	if saved != nil {
		state, r.cwd = saved.State, saved.Workspace
	}
	var err error
	if r.main, err = newParser(state); err != nil {
		return nil, err
	}
	if o.Keep {
		r.main.RecordCharges()
	}
	r.parsers = make([]*transcript.Parser, len(g.Files))
	for i, path := range g.Files {
		if i == 0 && !g.Orphan {
			r.parsers[i] = r.main
			continue
		}
		var own []byte
		if saved != nil {
			own = saved.Files[path]
		}
		if r.parsers[i], err = newParser(own); err != nil {
			return nil, err
		}
		r.parsers[i].CountInto(r.main)
	}
	return r, nil
}

// Reprice works out a turn's cost with prices from its charges, and the
// model it names as the parser would (an unpriced one, if any).
func (Agent) Reprice(t *driver.Turn, p driver.Pricing, prices *price.Table) {
	var unknown []string
	t.CostUSD, t.SubCost, unknown = transcript.Reprice(p.Charges, prices)
	t.CostKnown = len(unknown) == 0
	switch {
	case !p.Leftover:
		t.Model = transcript.EventModel(p.Model, unknown)
	case len(unknown) > 0:
		t.Model = unknown[0]
	default:
		t.Model = ""
	}
}

// usageReader reads one session's files for bridge/usage.
type usageReader struct {
	main    *transcript.Parser
	parsers []*transcript.Parser // by file: main for the session's own
	cwd     string
	session string
	keep    bool
}

func (r *usageReader) Line(file int, line []byte, out []event.Event) []event.Event {
	if r.cwd == "" {
		r.cwd = cwdOf(line)
	}
	p := r.parsers[file]
	if p != r.main {
		// Its own events belong to no turn of the session's; the usage it
		// reads goes to the session's parser.
		p.Line(line, nil)
		p.State.Turn = nil
		return out
	}
	out, _ = p.Line(line, out) // a line that is not JSON is skipped, as the streams skip it
	return out
}

func (r *usageReader) End(out []event.Event) []event.Event {
	out = r.main.Flush(out)
	out = r.main.Quiet(out)
	// A prompt still unanswered spent nothing yet and is no turn.
	return r.main.Interrupt(out)
}

func (r *usageReader) Where() (string, string) { return r.cwd, r.session }

func (r *usageReader) Charges() []driver.Pricing {
	if !r.keep {
		return nil
	}
	var out []driver.Pricing
	for _, tc := range r.main.TakeCharges() {
		out = append(out, driver.Pricing{Model: tc.Model, Charges: tc.Charges})
	}
	return out
}

func (r *usageReader) Leftover() (event.Event, driver.Pricing, bool) {
	c := r.main.State.Carry
	if c == nil || c.Usage == (event.Usage{}) {
		return event.Event{}, driver.Pricing{}, false
	}
	e := event.Event{Type: event.TurnComplete, SessionID: r.main.State.SessionID, Usage: c.Usage,
		CostUSD: c.Cost, CostKnown: len(c.Unknown) == 0, SubagentUsage: c.SubUsage, SubagentCostUSD: c.SubCost}
	if len(c.Unknown) > 0 {
		e.Model = c.Unknown[0]
	}
	return e, driver.Pricing{Charges: c.Log}, true
}

func (r *usageReader) Limits() []driver.Limit { return nil }

func (r *usageReader) Save() ([]byte, [][]byte, error) {
	st, err := r.main.Save()
	if err != nil {
		return nil, nil, err
	}
	own := make([][]byte, len(r.parsers))
	for i, p := range r.parsers {
		if p == r.main {
			continue
		}
		if own[i], err = p.Save(); err != nil {
			return nil, nil, err
		}
	}
	return st, own, nil
}

var cwdKey = []byte(`"cwd":"`)

// cwdOf finds a line's working directory without parsing the line: Claude
// Code writes "cwd" near the start of every user and assistant line.
func cwdOf(line []byte) string {
	i := bytes.Index(line, cwdKey)
	if i < 0 {
		return ""
	}
	rest := line[i+len(cwdKey):]
	for j := 0; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			j++
		case '"':
			raw := rest[:j]
			if bytes.IndexByte(raw, '\\') < 0 {
				return string(raw)
			}
			s, err := strconv.Unquote(`"` + string(raw) + `"`)
			if err != nil {
				return ""
			}
			return s
		}
	}
	return ""
}

// besideGroup is the session a 2.0 agent-*.jsonl counts in: its owner as
// the streams tell it (besideOwner), else (a warm-up never answered) the
// session its first lines name.
func besideGroup(path string) string {
	if sid, decided := besideOwner(path); decided && sid != "" {
		return sid
	}
	sid, _ := firstSessionID(path)
	return sid
}

var sidKey = []byte(`"sessionId":"`)

// firstSessionID reads the sessionId of the first of the first 8 lines
// that has one (a 2.0 agent-*.jsonl beside its session file names its
// session only there).
func firstSessionID(path string) (string, error) {
	f, err := transcript.OpenRegular(path)
	if err != nil {
		return "", fmt.Errorf("session of %s: %w", path, err)
	}
	defer f.Close()
	sid := ""
	err = firstLines(f, 8, func(line []byte) bool {
		i := bytes.Index(line, sidKey)
		if i < 0 {
			return true
		}
		rest := line[i+len(sidKey):]
		j := bytes.IndexByte(rest, '"')
		if j <= 0 {
			return true
		}
		sid = string(rest[:j])
		return false
	})
	if err != nil {
		return "", fmt.Errorf("session of %s: %w", path, err)
	}
	return sid, nil
}

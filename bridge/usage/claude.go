package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/transcript"
)

// readClaude reads one Claude session: its own file (main, "" for a
// subagent file whose session file is gone) and its subagents' files, and
// calls fn with each turn the stream would complete. Subagent lines count
// into the session's turns through Parser.CountInto, the way the streams
// count them, so a response relayed in a progress record and written again
// in its subagent's file is counted once.
func readClaude(g group, prices *price.Table, bufs *buffers, fn func(Turn)) (int64, error) {
	return readClaudeParsed(g, prices, true, bufs, fn)
}

// readClaudeParsed is readClaude with the parsers' CountOnly fast path
// and lazy line times (lean) or without: the tests prove both give the
// same turns.
func readClaudeParsed(g group, prices *price.Table, lean bool, bufs *buffers, fn func(Turn)) (int64, error) {
	out, err := readClaudeFrom(g, prices, lean, bufs, nil, false, fn)
	return out.bytes, err
}

// readOut is what one read of a group gave besides its turns.
type readOut struct {
	bytes int64
	done  int      // the turns before this many were complete before the files' end
	snap  *resume  // where a later read may go on (nil: from the start only)
	whole bool     // every file listed was read
	ids   []fileID // with keep: what each file was when read
	// priced is what made each turn's cost, in the order the turns came
	// (with keep; nil when a turn's could not be told).
	priced []pricing
	lost   bool // a turn's pricing was not told
}

// pricing is what made one turn's cost, so that another price table
// reprices it without the files.
type pricing struct {
	model  string              // the turn's own model
	claude []transcript.Charge // a Claude turn's charges
	codex  []price.Request     // a Codex turn's responses as priced
	carry  bool                // usage after a session's last turn: named by an unpriced model only
}

// pair records the pricings of the turn_complete events in evs.
func (o *readOut) pair(evs []event.Event, ends []pricing) {
	j := 0
	for _, e := range evs {
		if e.Type != event.TurnComplete {
			continue
		}
		if j >= len(ends) {
			o.lost = true
			return
		}
		o.priced = append(o.priced, ends[j])
		j++
	}
	if j != len(ends) {
		o.lost = true
	}
}

// errNoResume: the files changed in a way a read from the saved state
// cannot follow exactly; they are read from the start.
var errNoResume = errors.New("cannot resume")

// readClaudeFrom reads a Claude group from its start (from nil) or on
// from where an earlier read stopped (from, the files having only grown
// since). With keep it says where it stopped (readOut.snap).
//
// Lines of several files are merged by time, so going on is exact only
// when every new line comes after every line already read: the first new
// line of each file must say a time later than any line before it said.
// Otherwise errNoResume.
func readClaudeFrom(g group, prices *price.Table, lean bool, bufs *buffers, from *resume, keep bool, fn func(Turn)) (readOut, error) {
	out := readOut{whole: true}
	newParser := func(saved []byte) (*transcript.Parser, error) {
		p, err := transcript.NewParser(saved)
		if err != nil {
			return nil, err
		}
		p.SetPrices(prices)
		if lean {
			// The report reads turn_complete events only: no content is copied.
			p.CountOnly()
		}
		return p, nil
	}
	var marks map[string]*mark
	var saved []byte
	if from != nil {
		marks = from.byPath()
		saved = from.Main
	}
	main, err := newParser(saved)
	if err != nil {
		return out, err
	}
	if keep {
		main.RecordCharges()
	}
	multi := len(g.files) > 1
	// A resumed read, and one kept for resuming a session of several
	// files, reads every line's time: the next read needs the latest.
	m := merged{eager: !lean || from != nil || (keep && multi)}
	parsers := make([]*transcript.Parser, 0, len(g.files))
	var readers []*lineReader
	var srcs []*source
	var offs []int64
	var paths []string
	var olds []*mark
	var before time.Time // the latest time a line read before said
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	for i, path := range g.files {
		var mk *mark
		if from != nil {
			if mk = marks[path]; mk == nil && i == 0 {
				return out, errNoResume
			}
			if mk != nil {
				if !mk.MaxKnown && multi {
					return out, errNoResume
				}
				if mk.Max.After(before) {
					before = mk.Max
				}
			}
		}
		r, err := bufs.open(path)
		if err != nil {
			if i == 0 {
				return out, err
			}
			out.whole = false
			continue // a subagent file gone since it was listed
		}
		readers = append(readers, r)
		p := main
		if i > 0 || g.orphan {
			var state []byte
			if mk != nil {
				state = mk.Parser
			}
			if p, err = newParser(state); err != nil {
				return out, err
			}
			p.CountInto(main)
		}
		parsers = append(parsers, p)
		var s *source
		off := int64(0)
		if mk != nil {
			off = mk.Off
			if err := r.seek(off); err != nil {
				return out, err
			}
			s, err = m.addFrom(r, mk.Last, mk.Max, mk.LastKnown)
		} else {
			s, err = m.addFrom(r, time.Time{}, time.Time{}, true)
		}
		if err != nil {
			return out, err
		}
		srcs, offs, paths, olds = append(srcs, s), append(offs, off), append(paths, path), append(olds, mk)
	}
	if from != nil {
		if multi {
			for _, s := range srcs {
				if s.done {
					continue
				}
				if ts, ok := s.ownTime(); !ok || !ts.After(before) {
					return out, errNoResume
				}
			}
		}
	}
	var (
		evs  []event.Event
		cwd  string
		last time.Time
		sid  = g.session
		n    int
	)
	if from != nil {
		cwd = from.Cwd
	}
	emit := func() {
		for _, e := range evs {
			if e.Type == event.TurnComplete {
				fn(fromEvent(e, AgentClaude, cwd, sid))
				n++
			}
		}
		if keep {
			var ends []pricing
			for _, tc := range main.TakeCharges() {
				ends = append(ends, pricing{model: tc.Model, claude: tc.Charges})
			}
			out.pair(evs, ends)
		}
		evs = evs[:0]
	}
	for {
		ok, err := m.next(func(line []byte, idx int) {
			if cwd == "" {
				cwd = cwdOf(line)
			}
			p := parsers[idx]
			if p != main {
				// Its own events belong to no turn of the session's; the
				// usage it reads goes to the session's parser.
				p.Line(line, nil)
				p.State.Turn = nil
				return
			}
			evs, _ = p.Line(line, evs) // a line that is not JSON is skipped, as the streams skip it
			if len(evs) > 0 {
				emit()
			}
		})
		if err != nil {
			out.bytes = bytesOf(readers) + sum(offs)
			return out, err
		}
		if !ok {
			break
		}
	}
	out.bytes = bytesOf(readers) + sum(offs)
	out.done = n
	if keep && out.whole {
		out.snap = claudeResume(main, parsers, srcs, readers, olds, paths, cwd, m.eager)
		for i, r := range readers {
			id, err := identify(r.f, paths[i], offs[i]+r.bytes)
			if err != nil {
				out.ids = nil
				break
			}
			out.ids = append(out.ids, id)
		}
	}
	evs = main.Flush(evs)
	evs = main.Quiet(evs)
	// The file ends here for good: a turn cut off mid-way (the agent was
	// killed) still spent what it spent, and ends as the streams end it
	// (Interrupt). A prompt still unanswered spent nothing yet and is no
	// turn.
	evs = main.Interrupt(evs)
	emit()
	if c := main.State.Carry; c != nil && c.Usage != (event.Usage{}) {
		if from != nil {
			for _, s := range srcs {
				if !s.known {
					return out, errNoResume // the time of the last line is not known
				}
			}
		}
		if last, err = m.latest(); err != nil {
			return out, err
		}
		// Usage read after the last turn (a background subagent, a
		// subagent file whose session is gone): it was spent, so it counts.
		t := Turn{End: last, Start: last, Agent: AgentClaude, Workspace: cwd, Session: main.State.SessionID,
			Usage: c.Usage, CostUSD: c.Cost, CostKnown: len(c.Unknown) == 0, SubUsage: c.SubUsage, SubCost: c.SubCost}
		if t.Session == "" {
			t.Session = sid
		}
		if len(c.Unknown) > 0 {
			t.Model = c.Unknown[0]
		}
		if t.End.IsZero() {
			t.End, t.Start = g.mod, g.mod
		}
		fn(t)
		if keep {
			out.priced = append(out.priced, pricing{claude: c.Log, carry: true})
		}
	}
	return out, nil
}

// claudeResume saves where a Claude read stopped: each parser's state,
// and each file's offset and times. Nothing is saved when a file ends
// mid-line (the rest of that line may come), or when a parser's state
// cannot be saved.
func claudeResume(main *transcript.Parser, parsers []*transcript.Parser, srcs []*source, readers []*lineReader,
	olds []*mark, paths []string, cwd string, eager bool) *resume {
	st, err := main.Save()
	if err != nil {
		return nil
	}
	res := &resume{Main: st, Cwd: cwd}
	for i, s := range srcs {
		r, old := readers[i], olds[i]
		mk := mark{Path: paths[i], Off: r.bytes}
		if old != nil {
			mk.Off += old.Off
		}
		if mk.Off > 0 && !r.nl {
			return nil
		}
		if parsers[i] != main {
			if mk.Parser, err = parsers[i].Save(); err != nil {
				return nil
			}
		}
		if eager && !s.lazy {
			mk.Last, mk.LastKnown = s.ts, s.known
			mk.Max, mk.MaxKnown = s.max, old == nil || old.MaxKnown
		}
		res.Files = append(res.Files, mk)
	}
	return res
}

func sum(ns []int64) int64 {
	var t int64
	for _, n := range ns {
		t += n
	}
	return t
}

func bytesOf(rs []*lineReader) int64 {
	var n int64
	for _, r := range rs {
		n += r.bytes
	}
	return n
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

// firstSessionID reads the sessionId of the first line that has one (a
// 2.0 agent-*.jsonl beside its session file names its session only there).
func firstSessionID(path string) (string, error) {
	r, err := openLines(path)
	if err != nil {
		return "", err
	}
	defer r.Close()
	for range 8 {
		line, err := r.next()
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("session of %s: %w", path, err)
		}
		if resp, ok := sessionOf(line); ok {
			return resp, nil
		}
	}
	return "", nil
}

var sidKey = []byte(`"sessionId":"`)

func sessionOf(line []byte) (string, bool) {
	i := bytes.Index(line, sidKey)
	if i < 0 {
		return "", false
	}
	rest := line[i+len(sidKey):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 {
		return "", false
	}
	return string(rest[:j]), true
}

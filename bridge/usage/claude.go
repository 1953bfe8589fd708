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
	main, err := transcript.NewParser(nil)
	if err != nil {
		return 0, err
	}
	main.SetPrices(prices)
	if lean {
		// The report reads turn_complete events only: no content is copied.
		main.CountOnly()
	}
	m := merged{eager: !lean}
	parsers := make([]*transcript.Parser, 0, len(g.files))
	var readers []*lineReader
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	for i, path := range g.files {
		r, err := bufs.open(path)
		if err != nil {
			if i == 0 {
				return 0, err
			}
			continue // a subagent file gone since it was listed
		}
		readers = append(readers, r)
		p := main
		if i > 0 || g.orphan {
			p = &transcript.Parser{}
			p.SetPrices(prices)
			p.CountInto(main)
			if lean {
				p.CountOnly()
			}
		}
		parsers = append(parsers, p)
		if err := m.add(r); err != nil {
			return 0, err
		}
	}
	var (
		evs  []event.Event
		cwd  string
		last time.Time
		sid  = g.session
	)
	emit := func() {
		for _, e := range evs {
			if e.Type == event.TurnComplete {
				fn(fromEvent(e, AgentClaude, cwd, sid))
			}
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
			return bytesOf(readers), err
		}
		if !ok {
			break
		}
	}
	evs = main.Flush(evs)
	evs = main.Quiet(evs)
	// The file ends here for good: a turn cut off mid-way (the agent was
	// killed) still spent what it spent. A prompt still unanswered spent
	// nothing yet and is no turn.
	if t := main.State.Turn; t != nil && t.Sum.Usage != (event.Usage{}) {
		evs = main.EndTurn(evs)
	}
	emit()
	if c := main.State.Carry; c != nil && c.Usage != (event.Usage{}) {
		if last, err = m.latest(); err != nil {
			return bytesOf(readers), err
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
	}
	return bytesOf(readers), nil
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

package engine

import "encoding/json"

// pubScratch is what a workspace's publish reuses from one line to the
// next. A live agent's line goes through publish alone, and making its
// mark, its delta and the delta's encoding anew for each line was most
// of what the engine allocated per line, all of it garbage by the next.
// None of it outlives the publish that fills it: the journal copies the
// delta's bytes into its line, and the whole mark is encoded during the
// call (see Topic.PublishLazy).
type pubScratch struct {
	mark   mark                    // see scratchMark
	deltas map[string]sessionDelta // a delta's sessions, cleared for each
	json   []byte                  // the delta's encoding
	whole  func() json.RawMessage  // w.wholeMark, made once
	// held: the mark holds parser states or subagents' marks, which
	// release lets go of (most lines' marks hold neither).
	held bool
}

// scratchMark is markWithout, rebuilt in the mark publish reuses: each
// session's entry is overwritten in place (a map entry this size is an
// allocation of its own when first added), those of sessions no longer
// followed dropped. Retired is the workspace's own, not a copy: the mark
// is read only while publish runs.
func (w *workspace) scratchMark() mark {
	c := &w.pub.mark
	if c.Sessions == nil {
		c.Sessions = make(map[string]tailMark, len(w.tails))
	}
	for id, t := range w.tails {
		tc := t.markWithout()
		w.pub.held = w.pub.held || tc.Subs != nil
		c.Sessions[id] = tc
	}
	if len(c.Sessions) > len(w.tails) { // some session is no longer followed
		for id := range c.Sessions {
			if w.tails[id] == nil {
				delete(c.Sessions, id)
			}
		}
	}
	c.Retired = nil
	if len(w.retired) > 0 {
		c.Retired = w.retired
	}
	return *c
}

// deltaSessions returns the map a delta's sessions go in, emptied.
func (w *workspace) deltaSessions() map[string]sessionDelta {
	if w.pub.deltas == nil {
		w.pub.deltas = make(map[string]sessionDelta)
	}
	clear(w.pub.deltas)
	return w.pub.deltas
}

// wholeMarkFunc returns wholeMark as a func for PublishLazy, made once
// (a method value is an allocation each time it is taken).
func (w *workspace) wholeMarkFunc() func() json.RawMessage {
	if w.pub.whole == nil {
		w.pub.whole = w.wholeMark
	}
	return w.pub.whole
}

// wholeMark encodes the scratch mark with the parsers' states as they
// are now: PublishLazy calls it, if the journal writes the mark whole,
// while the parsers are still the batch's.
func (w *workspace) wholeMark() json.RawMessage {
	c := w.pub.mark
	w.scratchWithParsers(c)
	raw, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	return raw
}

// scratchWithParsers is withParsers for the scratch mark c, noting
// that release has states to let go of.
func (w *workspace) scratchWithParsers(c mark) {
	w.pub.held = true
	w.withParsers(c)
}

// release lets go of what the scratch mark holds beyond the line it was
// made for: the parsers' states withParsers added and the subagents'
// marks, kilobytes that would otherwise stay alive in every idle
// workspace until its next line.
func (p *pubScratch) release() {
	p.mark.Retired = nil
	if !p.held {
		return
	}
	p.held = false
	for id, tc := range p.mark.Sessions {
		if tc.Parser != nil || tc.Subs != nil {
			tc.Parser, tc.Subs = nil, nil
			p.mark.Sessions[id] = tc
		}
	}
}

// Package stream is the bridge's event hub: one Topic per workspace holds a
// bounded history for replay by event id, numbers events so ids are strictly
// increasing and survive a restart (via a Journal), and fans each event out
// to its subscribers. A subscriber that cannot keep up is cut loose, never
// waited on: it reconnects with its last id and is replayed what it missed.
package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"conductorbridge/bridge/event"
)

// Item is a numbered event and its encoded JSON, encoded once for every
// subscriber and the journal. It carries what streaming needs (id, type,
// session and the JSON); the whole event is kept only on items fresh from
// Publish. A topic's history holds a thousand workspaces' events at
// once, so it keeps the JSON alone: Event decodes it again when asked.
type Item struct {
	ID        int64
	Type      string
	SessionID string
	Data      []byte
	full      *event.Event // set on items fresh from Publish, nil on kept ones
}

// NewItem is the item of an encoded event.
func NewItem(e event.Event, data []byte) Item {
	return Item{ID: e.ID, Type: e.Type, SessionID: e.SessionID, Data: data, full: &e}
}

// Event returns the whole event: the one published, or for an item kept
// for replay its JSON decoded again.
func (it Item) Event() event.Event {
	if it.full != nil {
		return *it.full
	}
	var e event.Event
	if json.Unmarshal(it.Data, &e) != nil {
		e = event.Event{ID: it.ID, Type: it.Type, SessionID: it.SessionID}
	}
	return e
}

// kept is it as history keeps it: without the decoded event.
func (it Item) kept() Item {
	it.full = nil
	return it
}

// DefaultHistory is how many events a topic keeps for replay.
const DefaultHistory = 2000

// subscriberBuffer is how far a subscriber may fall behind before it is cut.
const subscriberBuffer = 512

// Topic is one workspace's stream.
type Topic struct {
	ID string

	mu      sync.Mutex
	next    int64 // id of the next event
	history history
	max     int
	subs    map[*Subscriber]struct{}
	journal *Journal                   // nil: in memory only
	mark    *lazyMark                  // the producer's resume point, journaled with events
	deltas  []json.RawMessage          // journaled after mark, loaded: see Resume
	sides   map[string]json.RawMessage // other producers' resume points, by key: see PublishSide

	// lazy is the mark of the latest PublishLazy, kept here rather than
	// made anew for each line; enc is the buffer events are encoded in
	// before their bytes are copied out, at their size, for the items.
	lazy lazyMark
	enc  []byte
}

// lazyMark is a resume point encoded only when someone reads it: the
// journal writes a live batch's delta, not its mark, and encoding
// kilobytes of parser state that nobody reads, for each line an agent
// writes, was most of what a busy workspace allocated.
type lazyMark struct {
	raw  json.RawMessage
	make func() json.RawMessage // nil once made, or forgotten
	// forgotten: not made while its batch was published (the journal
	// wrote a delta), and now never will be; see PublishLazy.
	forgotten bool
}

// lost reports whether c is a mark that was never made and is now
// forgotten: there is a resume point, but not in memory.
func (c *lazyMark) lost() bool { return c != nil && c.forgotten }

func rawMark(raw json.RawMessage) *lazyMark {
	if raw == nil {
		return nil
	}
	return &lazyMark{raw: raw}
}

// get encodes the mark the first time it is asked for. A nil mark is
// nil: "unchanged" to the journal.
func (c *lazyMark) get() json.RawMessage {
	if c == nil {
		return nil
	}
	if c.make != nil {
		c.raw, c.make = c.make(), nil
	}
	return c.raw
}

func newTopic(id string, max int, j *Journal) (*Topic, error) {
	t := &Topic{ID: id, next: 1, max: max, history: newHistory(max, nil), subs: make(map[*Subscriber]struct{}), journal: j}
	if j != nil {
		items, res, err := j.Load(max)
		if err != nil {
			return nil, fmt.Errorf("load journal of %s: %w", id, err)
		}
		t.history, t.mark, t.deltas, t.sides = newHistory(max, items), rawMark(res.Mark), res.Deltas, res.Sides
		if n := len(items); n > 0 {
			t.next = items[n-1].ID + 1
		}
		if j.LastID >= t.next {
			t.next = j.LastID + 1
		}
	}
	return t, nil
}

// Mark returns the resume point journaled with the newest events; a
// producer that publishes deltas reads Resume instead.
func (t *Topic) Mark() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mark.get()
}

// Resume returns the newest whole mark and the deltas to apply to it,
// oldest first: those the journal held after it when loaded, none once
// the producer has published a mark since.
func (t *Topic) Resume() Resume {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Resume{Mark: t.mark.get(), Deltas: t.deltas}
}

// LastID returns the id of the newest event, 0 if none.
func (t *Topic) LastID() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.next - 1
}

// Publish numbers events, keeps them for replay, journals them together with
// mark (nil keeps the previous mark) and hands them to every subscriber.
// Events and mark are journaled in one write, so after a crash the bridge
// resumes exactly after the last event it numbered. If the journal write
// fails the events are still kept and delivered, and the error returned
// with them; their ids stay spent (see Journal), so a restart does not hand
// them out again to clients that have already seen them. The items
// returned are the ones subscribers received: read them, never change them.
func (t *Topic) Publish(evs []event.Event, mark json.RawMessage) ([]Item, error) {
	return t.PublishDelta(evs, mark, nil)
}

// PublishDelta is Publish with a delta the journal may write in mark's
// place: what changed since the producer's previous Publish, such that
// the mark last journaled whole, with every delta after it applied in
// order, yields mark. The journal decides which it writes (see Journal);
// mark must be set with delta.
func (t *Topic) PublishDelta(evs []event.Event, mark, delta json.RawMessage) ([]Item, error) {
	return t.publish(evs, markArg{raw: mark}, delta, side{})
}

// PublishSide is Publish for a second producer of the topic, one that
// keeps its own resume point under key (the workspace's browser, whose
// entries come from elsewhere than the agents' records): mark is
// journaled with evs, in the same write, and the main mark is left as
// it is. Side reads it back, after a restart too.
func (t *Topic) PublishSide(evs []event.Event, key string, mark json.RawMessage) ([]Item, error) {
	return t.publish(evs, markArg{}, nil, side{key: key, raw: mark})
}

// Side returns key's resume point as last published or journaled (nil if
// none).
func (t *Topic) Side(key string) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sides[key]
}

// PublishLazy is PublishDelta with a mark made only if it is needed:
// when the journal writes it whole, or its append fails (the next line
// must carry it). mark is called at most once, and only during this
// call, so it may encode its producer's state as it is then. A mark
// not made here is forgotten: until the next publish with a mark,
// Mark and Resume say none, and the journal is not compacted (a
// compacted file must hold the mark whole). delta is read during the
// call only (the journal copies it into its line): the caller may
// reuse its bytes for the next.
func (t *Topic) PublishLazy(evs []event.Event, mark func() json.RawMessage, delta json.RawMessage) ([]Item, error) {
	return t.publish(evs, markArg{make: mark}, delta, side{})
}

// markArg is a publish's mark: raw, made by make when needed, or
// neither (unchanged).
type markArg struct {
	raw  json.RawMessage
	make func() json.RawMessage
}

func (t *Topic) publish(evs []event.Event, m markArg, delta json.RawMessage, sd side) ([]Item, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	items, err := t.number(evs)
	if err != nil {
		return nil, err
	}
	var mark *lazyMark
	switch {
	case m.make != nil:
		// The latest lazy mark is the only one the topic may still
		// hold: t.mark is replaced by this one below.
		t.lazy = lazyMark{make: m.make}
		mark = &t.lazy
	case m.raw != nil:
		mark = rawMark(m.raw)
	}
	if len(items) == 0 && mark == nil && sd.raw == nil {
		return nil, nil
	}
	if mark != nil {
		t.mark, t.deltas = mark, nil
	}
	if sd.raw != nil {
		if t.sides == nil {
			t.sides = make(map[string]json.RawMessage)
		}
		t.sides[sd.key] = sd.raw
	}
	var jerr error
	if t.journal != nil {
		jerr = t.journal.appendDelta(items, mark, delta, t.history.kept(), t.max, t.mark, sd)
	}
	if mark != nil && mark.make != nil { // a lazy mark the journal had no need of
		if jerr != nil {
			mark.get() // the next line carries it: made while it is this batch's
		} else {
			mark.make, mark.forgotten = nil, true
		}
	}
	for _, it := range items {
		t.history.add(it.kept())
	}
	for s := range t.subs {
		for i := range items {
			if !s.offer(&items[i]) {
				delete(t.subs, s)
				break
			}
		}
	}
	if jerr != nil {
		return items, fmt.Errorf("journal %s: %w", t.ID, jerr)
	}
	return items, nil
}

// number gives evs their ids and encodes them, once for the journal,
// the history and every subscriber. Each event is encoded in a buffer
// the topic keeps and copied out at its size (the history keeps it); a
// batch of one and the copy of its event the item points to are one
// allocation: the collector pays for each, for every line an agent writes.
func (t *Topic) number(evs []event.Event) ([]Item, error) {
	var items []Item
	var copies []event.Event
	switch len(evs) {
	case 0:
		return nil, nil
	case 1:
		one := &single{}
		items, copies = one.item[:], one.ev[:]
	default:
		items, copies = make([]Item, len(evs)), make([]event.Event, len(evs))
	}
	copy(copies, evs)
	for i := range copies {
		e := &copies[i]
		e.Bound() // nothing unbounded reaches the wire or the journal
		e.ID = t.next + int64(i)
		var err error
		if t.enc, err = e.AppendJSON(t.enc[:0]); err != nil {
			return nil, fmt.Errorf("encode event %d: %w", e.ID, err)
		}
		items[i] = Item{ID: e.ID, Type: e.Type, SessionID: e.SessionID, Data: bytes.Clone(t.enc), full: e}
	}
	t.next += int64(len(evs))
	if cap(t.enc) > maxKeptLine {
		t.enc = nil // an outsized event's: not kept for every line after it
	}
	return items, nil
}

// single is a batch of one event: its item and the copy of the event
// the item points to, in one allocation.
type single struct {
	item [1]Item
	ev   [1]event.Event
}

// Subscribe returns the kept events after id `after` and a subscriber for
// what follows, with nothing lost or repeated between the two. If events
// after `after` are no longer kept, gap describes the hole (nil otherwise).
func (t *Topic) Subscribe(after int64) (replay []Item, gap *event.Event, s *Subscriber) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s = newSubscriber()
	t.subs[s] = struct{}{}
	if after < 0 {
		after = 0
	}
	kept := t.history.kept()
	first := t.next // id of the oldest kept event
	if len(kept) > 0 {
		first = kept[0].ID
	}
	if after+1 < first && after < t.next-1 {
		gap = &event.Event{Type: event.Gap, ID: first - 1, GapFrom: after + 1, AvailableFrom: first}
	}
	for i, it := range kept {
		if it.ID > after {
			replay = append(replay, kept[i:]...)
			break
		}
	}
	return replay, gap, s
}

// Unsubscribe stops delivery to s.
func (t *Topic) Unsubscribe(s *Subscriber) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.subs[s]; ok {
		delete(t.subs, s)
		s.close(false)
	}
}

// History returns a copy of the kept events after id `after`.
func (t *Topic) History(after int64) []Item {
	replay, _, s := t.Subscribe(after)
	t.Unsubscribe(s)
	return replay
}

// Subscriber receives a topic's events on C. C is closed when the
// subscriber is cut loose for falling behind (Dropped reports true) or
// unsubscribed. Every subscriber of a topic receives the same *Item,
// which nobody may change: a buffer of pointers is 4 KB a subscriber
// where one of items was 37 KB, all of it scanned by the collector.
type Subscriber struct {
	C       chan *Item
	once    sync.Once
	dropped bool
	direct  direct // writing on the publisher's goroutine (direct.go)
}

func newSubscriber() *Subscriber {
	return &Subscriber{C: make(chan *Item, subscriberBuffer)}
}

// offer delivers without blocking; a full buffer cuts the subscriber loose.
func (s *Subscriber) offer(it *Item) bool {
	if s.direct.offer(it) {
		return true
	}
	select {
	case s.C <- it:
		return true
	default:
		s.close(true)
		return false
	}
}

func (s *Subscriber) close(dropped bool) {
	s.once.Do(func() {
		s.dropped = dropped
		close(s.C)
	})
}

// Dropped reports whether the subscriber was cut loose for being slow. It is
// meaningful once C is closed.
func (s *Subscriber) Dropped() bool { return s.dropped }

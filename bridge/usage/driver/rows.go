package driver

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Rows is a Whole whose record is a table of rows each written once, in
// order (a log of events, of frames): a read goes on from where the last
// one stopped, reading only the rows written since.
type Rows interface {
	Whole
	// ResumeUsage reads group g's turns on from an earlier read: saved is
	// the state that read returned (nil: none, every row is read), was
	// its turns in their order. It returns every turn of g, in the order
	// ReadUsage gives them, and the state to go on from next time.
	// ErrNoResume: the table is no longer what saved was taken from (rows
	// gone or renumbered, another schema, other agents counted
	// elsewhere); usage reads it again with saved nil.
	ResumeUsage(g Group, prices *price.Table, elsewhere []string, saved []byte, was []Turn) (turns []Turn, next []byte, err error)
}

// ErrNoResume is ResumeUsage's: read the group again from nothing.
var ErrNoResume = errors.New("the saved state does not hold")

// Place is one session's place in a table's rows after a read.
type Place struct {
	ID string
	// Key is what else its turns depend on (its agent, its folder): a
	// session whose key changed is read again from nothing.
	Key  string
	Last int64 // the last row read: its seq, or its rowid
	// Final is how many of its turns were complete before its rows' end,
	// All how many with those its end completed (interrupted): the end's
	// are made again when more rows come.
	Final, All         int
	Workspace, Session string          // where its turns were
	State              json.RawMessage // its parser's state before the end
}

// Splice makes a read's turns session by session, in the order a read of
// every row gives them (by session id), from the turns of an earlier
// read (was, the sessions' Places) and the sessions read now.
type Splice struct {
	was  []Turn
	old  []Place
	i    int // the next old session
	at   int // its first turn in was
	out  []Turn
	next []Place
}

// NewSplice goes on from old and its turns was (both nil: from nothing).
func NewSplice(old []Place, was []Turn) (*Splice, error) {
	n := 0
	for i, p := range old {
		if p.Final > p.All || (i > 0 && old[i-1].ID >= p.ID) {
			return nil, ErrNoResume
		}
		n += p.All
	}
	if n != len(was) {
		return nil, ErrNoResume
	}
	// Room for the earlier turns and sessions and a few new ones: grown
	// by doubling, the copy of a long history was most of a warm read's
	// allocation.
	return &Splice{was: was, old: old, out: make([]Turn, 0, len(was)+16), next: make([]Place, 0, len(old)+16)}, nil
}

// Upto takes the sessions before id as they were (no row of theirs came
// since) and returns id's Place before (nil: it is new).
func (s *Splice) Upto(id string) *Place {
	for s.i < len(s.old) && s.old[s.i].ID < id {
		s.keep()
	}
	if s.i < len(s.old) && s.old[s.i].ID == id {
		return &s.old[s.i]
	}
	return nil
}

// Parser is a session's parser as a Splice ends it.
type Parser interface {
	Ender
	Save() (json.RawMessage, error)
}

// Session ends the read of session id's rows, read from old (Upto's),
// up to row last: its turns complete before were old's, then the
// turn_complete events of evs (its new rows'), then those p's end
// completes, all in the session where() names after the end. A session
// whose place there is not old's is ErrNoResume: its earlier turns were
// in another.
func (s *Splice) Session(id, key string, last int64, old *Place, p Parser, evs []event.Event, agent string, where func() (workspace, session string)) error {
	state, err := p.Save()
	if err != nil {
		return err
	}
	kept := 0
	if old != nil {
		kept = old.Final
		s.out = append(s.out, s.was[s.at:s.at+kept]...)
		s.at += old.All
		s.i++
	}
	final := kept
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			final++
		}
	}
	n := len(s.out)
	s.out = EndTurns(s.out, p, evs, agent, where)
	ws, session := where()
	if old != nil && (ws != old.Workspace || session != old.Session) {
		return ErrNoResume
	}
	s.next = append(s.next, Place{ID: id, Key: key, Last: last, Final: final, All: kept + len(s.out) - n,
		Workspace: ws, Session: session, State: state})
	return nil
}

// keep takes the next old session as it was.
func (s *Splice) keep() {
	p := s.old[s.i]
	s.out = append(s.out, s.was[s.at:s.at+p.All]...)
	s.next = append(s.next, p)
	s.at += p.All
	s.i++
}

// Done takes the sessions left as they were and returns every turn and
// every session's place.
func (s *Splice) Done() ([]Turn, []Place) {
	for s.i < len(s.old) {
		s.keep()
	}
	return s.out, s.next
}

// SaveTable is a Rows driver's state: head, its own (JSON), then the
// sessions' places in a compact form (a state holds one per session:
// read at every warm read, written at every one that read rows).
func SaveTable(head any, places []Place) ([]byte, error) {
	h, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("save where the read stopped: %w", err)
	}
	b := appendBytes(nil, h)
	b = binary.AppendUvarint(b, uint64(len(places)))
	for _, p := range places {
		for _, s := range []string{p.ID, p.Key, p.Workspace, p.Session} {
			b = appendBytes(b, []byte(s))
		}
		b = binary.AppendVarint(b, p.Last)
		b = binary.AppendUvarint(b, uint64(p.Final))
		b = binary.AppendUvarint(b, uint64(p.All))
		b = appendBytes(b, p.State)
	}
	return b, nil
}

// LoadTable reads what SaveTable saved into head and returns the places
// (their states share b). Anything amiss is ErrNoResume.
func LoadTable(b []byte, head any) ([]Place, error) {
	r := reader{b: b}
	if err := json.Unmarshal(r.bytes(), head); err != nil || r.bad {
		return nil, ErrNoResume
	}
	n := r.uvarint()
	if r.bad || n > uint64(len(b)) {
		return nil, ErrNoResume
	}
	places := make([]Place, n)
	for i := range places {
		p := &places[i]
		p.ID, p.Key, p.Workspace, p.Session = string(r.bytes()), string(r.bytes()), string(r.bytes()), string(r.bytes())
		p.Last = r.varint()
		p.Final, p.All = int(r.uvarint()), int(r.uvarint())
		p.State = r.bytes()
	}
	if r.bad || len(r.b) > 0 {
		return nil, ErrNoResume
	}
	return places, nil
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// reader reads SaveTable's fields; bad is set at the first that is not
// whole.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// varint reads what binary.AppendVarint wrote: zigzag, as an uvarint.
func (r *reader) varint() int64 {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

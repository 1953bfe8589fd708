package sqlitewake

import "time"

// A file event comes before its commit can be seen: SQLite writes the
// WAL (the event), syncs it (a few milliseconds), and only then publishes
// the commit in its shared memory, which no file event announces. So
// after an event Run reads until it has seen the event's commit, often at
// first and less and less. steps says how long to wait before reading
// again, by how long ago the event came; past the last step it stops (a
// checkpoint writes the files and commits nothing).
var steps = []struct{ until, every time.Duration }{
	{4 * time.Millisecond, 250 * time.Microsecond},
	{10 * time.Millisecond, time.Millisecond},
	{50 * time.Millisecond, 2 * time.Millisecond},
	{250 * time.Millisecond, 10 * time.Millisecond},
}

// settling is what Run knows of the commits file events announced.
//
// Writers take turns: a commit is written, synced and published before
// the next one is written. So when an event comes, every earlier commit
// can be seen already and at most one, the event's own, is still on its
// way. A read that finds a commit has seen the event's own, unless an
// earlier event's commit was still unseen when the event came: the commit
// found may be that one. The next read then tells: a commit found is the
// event's (or later), none found says the earlier one was all.
type settling struct {
	since  time.Time // the latest event whose commit has not been seen; zero: none
	unsure bool      // a commit found now may be one before since's event
}

// event notes a file event at now.
func (s *settling) event(now time.Time) {
	s.unsure = !s.since.IsZero()
	s.since = now
}

// read notes what a read found (whether another connection committed
// since the last read), and says how long to wait before reading again:
// false when no event waits for its commit.
func (s *settling) read(found bool, now time.Time) (time.Duration, bool) {
	if s.since.IsZero() {
		return 0, false
	}
	if found && !s.unsure {
		s.since = time.Time{}
		return 0, false
	}
	s.unsure = false
	waited := now.Sub(s.since)
	for _, st := range steps {
		if waited < st.until {
			return st.every, true
		}
	}
	s.since = time.Time{}
	return 0, false
}

// waiting reports whether an event waits for its commit.
func (s *settling) waiting() bool { return !s.since.IsZero() }

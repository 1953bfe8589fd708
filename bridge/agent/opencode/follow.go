package opencode

import (
	"context"
	"time"

	"conductorbridge/bridge/sqlitewake"
)

// Follower follows sessions in one OpenCode database and hands each
// session's new rows, in seq order, to Deliver. It wakes when the
// database or its WAL is written (bridge/sqlitewake), asks PRAGMA
// data_version whether OpenCode committed, and reads each followed
// session's rows after the last it handed over: one indexed range
// (aggregate_id, seq) per session. Its Store is its own: read-only, short
// statements, so OpenCode never waits for it.
type Follower struct {
	store    *Store
	deliver  func(session string, rows []Row)
	logf     func(format string, args ...any)
	poll     time.Duration
	sessions *sqlitewake.Followed[int64] // each session's next seq to hand over

	version int64 // data_version at the last read; Run's alone
	primed  bool
	lastErr string
}

// FollowOptions configure a Follower.
type FollowOptions struct {
	// Deliver receives a session's new rows, in order, on Run's
	// goroutine; it must not keep the slice past its return.
	Deliver func(session string, rows []Row)
	// Poll is how often data_version is asked with no file event
	// (default 2 s).
	Poll time.Duration
	// Logf logs what could not be read, once per different error
	// (default: nothing).
	Logf func(format string, args ...any)
}

// NewFollower follows sessions in the database at path once Run runs.
func NewFollower(path string, opt FollowOptions) *Follower {
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	return &Follower{store: NewStore(path), deliver: opt.Deliver, logf: opt.Logf, poll: opt.Poll,
		sessions: sqlitewake.NewFollowed[int64]()}
}

// Follow starts handing over session's rows from seq next (a resumed
// Parser's Next; 0 for the whole record). Following a session again
// starts it again from next.
func (f *Follower) Follow(session string, next int64) { f.sessions.Follow(session, max(next, 0)) }

// Unfollow stops handing over session's rows.
func (f *Follower) Unfollow(session string) { f.sessions.Unfollow(session) }

// Check makes Run look at the database now.
func (f *Follower) Check() { f.sessions.Check() }

// Run follows until ctx ends. A database that is missing (OpenCode never
// ran) or cannot be read is tried again at the next event or poll.
func (f *Follower) Run(ctx context.Context) error {
	defer f.store.Close()
	return sqlitewake.Run(ctx, f.store.Path(), sqlitewake.Options{Poll: f.poll, Wake: f.sessions.Wake(), Logf: f.logf}, f.read)
}

// read hands over what was committed since the last read and reports
// whether anything was.
func (f *Follower) read(ctx context.Context) bool {
	v, fresh, err := f.store.DataVersion(ctx)
	if err != nil {
		f.fail(ctx, err)
		return false
	}
	changed := !f.primed || fresh || v != f.version
	todo := f.sessions.TakePending()
	if changed {
		todo = f.sessions.Keys()
	}
	for _, s := range todo {
		if err := f.catchUp(ctx, s); err != nil {
			f.fail(ctx, err)
			return false
		}
	}
	f.version, f.primed, f.lastErr = v, true, ""
	return changed
}

// catchUp hands over session's rows from its cursor on, a page at a time.
func (f *Follower) catchUp(ctx context.Context, session string) error {
	for {
		next, ok := f.sessions.Cursor(session)
		if !ok {
			return nil
		}
		rows, err := f.store.Rows(ctx, session, next-1, maxRows)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		if f.deliver != nil {
			f.deliver(session, rows)
		}
		f.sessions.Move(session, rows[len(rows)-1].Seq+1)
		if len(rows) < maxRows {
			return nil
		}
	}
}

// fail logs err (once while it repeats) and reads every followed session
// again from its cursor at the next read.
func (f *Follower) fail(ctx context.Context, err error) {
	if ctx.Err() == nil && err.Error() != f.lastErr {
		f.lastErr = err.Error()
		f.logf("opencode record: %v", err)
	}
	f.primed = false
	f.sessions.Again()
}

package conductor

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"conductorbridge/bridge/sqlitewake"
)

// Follower follows chat tabs' rows in Conductor's database and hands each
// tab's new rows, in order, to Deliver. It wakes when the database's WAL
// file (or the file itself) is written, asks PRAGMA data_version whether
// a commit landed, and reads only rows after the last one it read: one
// indexed range of new rows however long the tabs' histories. It opens
// the database read-only and reads in short statements, so Conductor's
// writes never wait for it.
type Follower struct {
	db      db
	deliver func(tab string, rows []Row)
	logf    func(format string, args ...any)
	poll    time.Duration
	tabs    *sqlitewake.Followed[Cursor] // each tab's last row handed over

	head   Cursor   // the table's last row at the last read; Run's alone
	primed bool     // head is set
	args   []any    // the followed tabs as query arguments
	in     string   // "?, ?, …" for them
	order  []string // the followed tabs, as in args
}

// Options configure a Follower.
type Options struct {
	// Deliver receives a tab's new rows, in order, on Run's goroutine,
	// and owns them. It should hand them on rather than parse them there:
	// every tab waits for it.
	Deliver func(tab string, rows []Row)
	// Poll is how often data_version is asked with no file event, a net
	// for a lost event and a database that appears later (default 2 s).
	Poll time.Duration
	// Logf logs what the follower could not read (default: nothing).
	Logf func(format string, args ...any)
}

// NewFollower follows tabs in the database at path once Run runs.
func NewFollower(path string, opt Options) *Follower {
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &Follower{db: dbAt(path), deliver: opt.Deliver, logf: opt.Logf, poll: opt.Poll,
		tabs: sqlitewake.NewFollowed[Cursor]()}
}

// Follow starts handing over tab's rows after the row at: the Parser's
// Cursor when it resumes, the zero Cursor for the whole record. Following
// a tab already followed starts it again from at.
func (f *Follower) Follow(tab string, at Cursor) { f.tabs.Follow(tab, at) }

// Unfollow stops handing over tab's rows.
func (f *Follower) Unfollow(tab string) { f.tabs.Unfollow(tab) }

// Check makes Run look at the database now, as a file event does.
func (f *Follower) Check() { f.tabs.Check() }

// Run follows until ctx ends (bridge/sqlitewake wakes it). A database
// that is missing or cannot be read is logged and tried again at the
// next event or poll.
func (f *Follower) Run(ctx context.Context) error {
	defer f.db.close()
	return sqlitewake.Run(ctx, f.db.path, sqlitewake.Options{Poll: f.poll, Wake: f.tabs.Wake(), Logf: f.logf}, f.read)
}

// read hands over what was committed since the last read, and reports
// whether anything was.
func (f *Follower) read(ctx context.Context) bool {
	if err := f.db.open(ctx); err != nil {
		if ctx.Err() == nil {
			f.logf("conductor record: %v", err)
		}
		return false
	}
	changed, err := f.db.changed(ctx)
	if err != nil {
		f.fail(ctx, err)
		return false
	}
	pending := f.tabs.TakePending()
	if !changed && len(pending) == 0 {
		return false
	}
	if err := f.scan(ctx, pending); err != nil {
		f.fail(ctx, err)
		return false
	}
	return changed
}

// fail drops the connection after an error (the next read opens a new
// one) and reads every followed tab again from its last row then.
func (f *Follower) fail(ctx context.Context, err error) {
	if ctx.Err() == nil {
		f.logf("conductor record: %v", err)
	}
	f.db.close()
	f.tabs.Again()
}

// scan catches up the tabs followed since the last read, then reads the
// rows committed after the last read's last row, for every followed tab.
func (f *Follower) scan(ctx context.Context, pending []string) error {
	last, keyAtHead, err := f.db.last(ctx, f.head.Row)
	if err != nil {
		return err
	}
	if f.moved(last, keyAtHead) {
		// Conductor's rowids moved (a VACUUM renumbers them) or its last
		// rows went: every tab is found again by its last row's id.
		f.primed = false
		pending = f.tabs.Keys()
	}
	for _, tab := range pending {
		if err := f.catchUp(ctx, tab, last); err != nil {
			return err
		}
	}
	if f.primed && last.Row > f.head.Row {
		f.queryTabs()
		if len(f.args) > 0 {
			args := append([]any{f.head.Row, last.Row}, f.args...)
			rows, err := f.db.rows(ctx, "rowid > ? AND rowid <= ? AND +session_id IN ("+f.in+")", 1<<30, nil, args...)
			if err != nil {
				return err
			}
			f.hand(rows)
		}
	}
	f.head, f.primed = last, true
	return nil
}

// moved reports whether the row the last read ended at is no longer
// where it was: the table's last row is before it, or another row is at
// its rowid.
func (f *Follower) moved(last Cursor, keyAtHead string) bool {
	if !f.primed || f.head.Row == 0 {
		return false
	}
	return last.Row < f.head.Row || keyAtHead != f.head.Key
}

// catchUp hands over a newly followed tab's rows after its cursor, up to
// last, a page at a time.
func (f *Follower) catchUp(ctx context.Context, tab string, last Cursor) error {
	at, ok := f.tabs.Cursor(tab)
	if !ok {
		return nil
	}
	if at.Key != "" {
		n, err := f.db.locate(ctx, at.Key)
		if err != nil {
			return err
		}
		if n > 0 {
			at.Row = n
			f.tabs.Move(tab, at)
		}
	}
	for at.Row < last.Row {
		rows, err := f.db.rows(ctx, "session_id = ? AND rowid > ? AND rowid <= ?", 512, nil, tab, at.Row, last.Row)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		f.hand(rows)
		at = Cursor{Row: rows[len(rows)-1].RowID, Key: rows[len(rows)-1].ID}
		if len(rows) < 512 {
			break
		}
	}
	return nil
}

// hand delivers rows, grouped by tab in order, each after its tab's
// cursor, and moves the cursors.
func (f *Follower) hand(rows []Row) {
	for len(rows) > 0 {
		tab := rows[0].Session
		n := 1
		for n < len(rows) && rows[n].Session == tab {
			n++
		}
		run := rows[:n]
		rows = rows[n:]
		at, ok := f.tabs.Cursor(tab)
		if !ok {
			continue
		}
		for len(run) > 0 && run[0].RowID <= at.Row {
			run = run[1:]
		}
		if len(run) == 0 {
			continue
		}
		if f.deliver != nil {
			f.deliver(tab, run)
		}
		f.tabs.Move(tab, Cursor{Row: run[len(run)-1].RowID, Key: run[len(run)-1].ID})
	}
}

// queryTabs refreshes the followed tabs' query arguments.
func (f *Follower) queryTabs() {
	tabs := f.tabs.Keys()
	slices.Sort(tabs)
	if slices.Equal(tabs, f.order) {
		return
	}
	f.order, f.args = tabs, f.args[:0]
	for _, tab := range tabs {
		f.args = append(f.args, tab)
	}
	f.in = strings.TrimSuffix(strings.Repeat("?, ", len(tabs)), ", ")
}

package agent

import "context"

// Rows is an agent whose sessions' records are not files but ordered logs
// of rows in a SQLite database (OpenCode's event table, Conductor's own
// session_messages). The engine reads such a record as it reads a file:
// the session's Parser saves where its record was read up to with the
// rest of its state, so the journal holds the resume point as it holds a
// file's offset, and a restart reads on from the row after it.
type Rows interface {
	Agent
	// FindRows is the record of a session discovery listed, nil when
	// this agent keeps none for it (yet). It must be cheap: it is asked
	// at each listing of a workspace whose session it has not found.
	FindRows(ctx context.Context, s RowSession) (RowRecord, error)
}

// Fallback is a Rows agent that keeps a record of any Conductor tab
// (Conductor's own): the source of a tab whose agent has no reader of its
// own (a Cursor tab, an agent_type the bridge does not know).
type Fallback interface {
	Rows
	Fallback()
}

// Folders is a Rows agent whose sessions in a folder can be listed
// without Conductor naming them (OpenCode run in a plain folder).
type Folders interface {
	Rows
	// FolderRows are the records of the sessions run in dir recently
	// enough to follow.
	FolderRows(ctx context.Context, dir string) ([]RowSession, error)
}

// RowSession is what the engine knows of a session whose record may be a
// log of rows.
type RowSession struct {
	ID    string // the agent's session id, as discovery has it
	Tab   string // Conductor's sessions.id, "" outside Conductor
	Agent string // its agent (sessions.agent_type)
	Dir   string // the folder it runs in
}

// RowRecord is one session's log of rows. It opens its database read-only
// and never holds a lock its writer waits on. It belongs to the goroutine
// reading its session.
type RowRecord interface {
	// Name names the record where a file's path would be (the listing's
	// transcript): the database and the session.
	Name() string
	// DB is the database file: a write to it or its -wal may be a new row.
	DB() string
	// Read hands fn, in order, the line its agent's parser p reads for
	// each row committed after p's resume point, at most limit, and
	// reports whether more were waiting. p is a parser of this record's
	// agent; fn feeds it, so the resume point moves as fn is called.
	Read(ctx context.Context, p Parser, limit int, fn func(line []byte)) (more bool, err error)
	// Close lets the database go; a later Read opens it again.
	Close() error
}

// Routed is a Rows agent whose sessions take messages by a route of their
// own (a push app lists: OpenCode's `run --session`), so a session read
// from its rows is not listed as one messages cannot reach.
type Routed interface {
	Rows
	TakesMessages()
}

// ChangedRows is a Rows agent that tells, in one query, which records of a
// database gained rows. The engine's watcher of the database asks it once
// a commit and wakes the readers of those records alone, rather than every
// reader of the database asking for its own record's rows.
type ChangedRows interface {
	Rows
	// RowChanges reads db's changes; it belongs to one goroutine.
	RowChanges(db string) RowChanges
}

// RowChanges tells which records of one database gained rows.
type RowChanges interface {
	// Since names (as RowRecord.Name does) the records that gained rows
	// since the call before. all is true when it cannot tell which (its
	// first call, rows gone from the table, a commit that added none):
	// every reader of the database then looks.
	Since(ctx context.Context) (names []string, all bool, err error)
	// Close lets the database go.
	Close() error
}

// Prompted is a Parser that counts the person's messages in the record it
// has read (saved with its state). Two records of one session, each read
// by its own parser (Conductor's rows, the agent's own), stand at the same
// place when both have read as many prompts and neither is in a turn: the
// engine hands a tab over from the one to the other there. ok is false
// when the count does not cover the whole record (a state saved before
// the parser counted).
type Prompted interface {
	Prompts() (n int, ok bool)
}

// RecordName is the name of session's record in the database at db
// (RowRecord.Name): db#session.
func RecordName(db, session string) string { return db + "#" + session }

// Store is what reads a Rows agent's database: its path, and Close, after
// which a read opens it again (a sqliteread.Conn).
type Store interface {
	Path() string
	Close() error
}

// StoreRecord is one session of the database its store S reads: the
// Name, DB and Close of the session's RowRecord, whose Read is the
// agent's own.
type StoreRecord[S Store] struct {
	Store   S
	Session string
}

func (r StoreRecord[S]) Name() string { return RecordName(r.Store.Path(), r.Session) }
func (r StoreRecord[S]) DB() string   { return r.Store.Path() }
func (r StoreRecord[S]) Close() error { return r.Store.Close() }

// Package conductor reads Conductor's own record of a chat tab: the rows
// of session_messages in Conductor's database, one per agent stream frame
// as Conductor renders them, for every agent it runs. It is the source for
// a tab whose agent the bridge has no reader of its own for (a Cursor tab,
// an agent_type it does not know).
//
// Follower watches the database (its WAL file, then PRAGMA data_version)
// and hands each followed tab's new rows, in order, to a callback; Parser
// turns a tab's rows into the bridge's events behind agent.Parser. Row.Line
// is the line the parser reads, so the engine feeds it as it feeds a
// transcript's lines, and the parser's saved state holds the last row read.
//
// What the engine does with it:
//
//	f := conductor.NewFollower(dbPath, conductor.Options{Deliver: deliver, Logf: logf})
//	go f.Run(ctx)                         // one per database, for the bridge's life
//
//	p, err := conductor.NewParser(saved)  // a tab to stream: saved is its journaled state, nil at first
//	f.Follow(tab, p.Cursor())             // tab is sessions.id (discover.Session.ConductorID)
//
//	deliver(tab, rows)                    // on Run's goroutine: hand rows to the tab's own goroutine, which does
//	out, err = p.Line(row.Line(), out)    //   for each row in order, then journals p.Save() with the events
//
//	f.Unfollow(tab)                       // the tab is gone, or now has a reader of its own
//
// Events carry no ID, session or agent: the engine stamps them, as for any
// agent.Parser. Quiet and Flush do nothing (every turn ends with a frame).
package conductor

import (
	"strconv"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/jsonbytes"
)

// Row is one session_messages row, as Conductor wrote it.
type Row struct {
	RowID     int64  // SQLite's rowid: rows are read in its order
	ID        string // session_messages.id
	Session   string // session_messages.session_id: the tab (sessions.id)
	Role      string // "user" or "assistant"
	Content   string // a typed prompt as plain text, else a JSON frame
	CreatedAt string // 'YYYY-MM-DD HH:MM:SS' (UTC) or ISO, as Conductor mixes them
	Cancelled bool   // cancelled_at is set: a queued prompt the person took back
}

// Line returns the row as the one line Parser.Line reads: a JSON object
// with the row's place and, as "frame", the frame itself when the content
// is a JSON object, else its text as "text".
func (r *Row) Line() []byte { return r.AppendLine(nil) }

// AppendLine appends Line's bytes to b.
func (r *Row) AppendLine(b []byte) []byte {
	b = append(b, `{"row":`...)
	b = strconv.AppendInt(b, r.RowID, 10)
	b = append(b, `,"id":`...)
	b = jsonbytes.String(b, r.ID, false)
	b = append(b, `,"role":`...)
	b = jsonbytes.String(b, r.Role, false)
	b = append(b, `,"at":`...)
	b = jsonbytes.String(b, r.CreatedAt, false)
	if r.Cancelled {
		b = append(b, `,"cancelled":true`...)
	}
	if isObject(r.Content) {
		b = append(b, `,"frame":`...)
		b = append(b, r.Content...)
	} else {
		b = append(b, `,"text":`...)
		b = jsonbytes.String(b, r.Content, false)
	}
	return append(b, '}')
}

// isObject reports whether s is one whole JSON object.
func isObject(s string) bool {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i < len(s) && s[i] == '{' && fastjson.Validate(s) == nil
}

// parseTime reads both timestamp formats Conductor writes in one column;
// anything else is the zero time.
func parseTime(s []byte) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, string(s), time.UTC); err == nil {
			return t
		}
	}
	return time.Time{}
}

package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/jsonbytes"
)

// Row is one row of OpenCode's event table: one bus event of one session.
type Row struct {
	Session string // aggregate_id: the session id, ses_…
	Seq     int64  // the session's own count, from 0, without gaps
	Type    string // e.g. message.part.updated.1
	Data    []byte // the event's JSON
}

// maxRows bounds one read, so a session with a long history is caught up
// with in pieces rather than in one allocation.
const maxRows = 512

// Rows returns session's rows after seq after (-1: from the first), in seq
// order, at most limit of them (0 or less, or more than 512: 512). Fewer
// than the limit means the caller caught up.
func (s *Store) Rows(ctx context.Context, session string, after int64, limit int) ([]Row, error) {
	if limit <= 0 || limit > maxRows {
		limit = maxRows
	}
	conn, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := conn.QueryContext(ctx,
		"SELECT seq, type, data FROM event WHERE aggregate_id = ? AND seq > ? ORDER BY seq LIMIT ?",
		session, after, limit)
	if err != nil {
		return nil, s.fail(fmt.Errorf("opencode db %s: read events of %s: %w", s.Path(), session, err))
	}
	defer rs.Close()
	var out []Row
	for rs.Next() {
		r := Row{Session: session}
		if err := rs.Scan(&r.Seq, &r.Type, &r.Data); err != nil {
			return nil, s.fail(fmt.Errorf("opencode db %s: read events of %s: %w", s.Path(), session, err))
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, s.fail(fmt.Errorf("opencode db %s: read events of %s: %w", s.Path(), session, err))
	}
	return out, nil
}

// LastSeq is the seq of session's newest row, -1 when it has none (or
// no such session).
func (s *Store) LastSeq(ctx context.Context, session string) (int64, error) {
	conn, err := s.open(ctx)
	if err != nil {
		return 0, err
	}
	var seq int64 = -1
	err = conn.QueryRowContext(ctx,
		"SELECT COALESCE(MAX(seq), -1) FROM event WHERE aggregate_id = ?", session).Scan(&seq)
	if err != nil {
		return 0, s.fail(fmt.Errorf("opencode db %s: last seq of %s: %w", s.Path(), session, err))
	}
	return seq, nil
}

// Line is the row as one JSON line for Parser:
// {"seq":N,"type":"…","data":{…}}. Data that is not JSON goes in as a
// string, so the line stays one well-formed object and the parser
// rejects it (the data cannot smuggle in a seq or a type).
func (r Row) Line() []byte {
	b := make([]byte, 0, len(r.Data)+len(r.Type)+40)
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, r.Seq, 10)
	b = append(b, `,"type":`...)
	b = jsonbytes.String(b, r.Type, false)
	b = append(b, `,"data":`...)
	switch {
	case fastjson.ValidateBytes(r.Data) != nil:
		b = jsonbytes.String(b, string(r.Data), false)
	case bytes.ContainsAny(r.Data, "\r\n"):
		// Whitespace between tokens (OpenCode writes none): the line
		// must stay one line.
		var c bytes.Buffer
		_ = json.Compact(&c, r.Data) // valid, so it compacts
		b = append(b, c.Bytes()...)
	default:
		b = append(b, r.Data...)
	}
	return append(b, '}')
}

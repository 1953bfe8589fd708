package cursor

import (
	"strconv"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/jsonbytes"
)

// Row is one row of the store's run_events table with its run's columns
// (runs) as they were when it was read.
type Row struct {
	Turn    int64  // runs.turn_number: the agent's runs in order, from 1
	Seq     int64  // run_events.seq: the run's events in order, from 1
	Run     string // run_id
	Type    string // event_type: "run_stream_event"
	Payload string // payload_json: the run stream event, "" when NULL
	At      string // created_at, ISO

	// The run, as read with the row: its end is known only once the run
	// row says it (the status event is written just before).
	Status   string // RUNNING, FINISHED, ERROR, CANCELLED, EXPIRED, CREATING
	Model    string
	Usage    string // usage_json, "" when NULL
	Started  string // started_at
	Finished string // finished_at, or cancelled_at, or expired_at
	Error    string // error_code
}

// Line returns the row as the one line Parser.Line reads: a JSON object
// with the row's place, its run's columns and, as "payload", the event.
func (r *Row) Line() []byte { return r.AppendLine(nil) }

// AppendLine appends Line's bytes to b.
func (r *Row) AppendLine(b []byte) []byte {
	b = append(b, `{"turn":`...)
	b = strconv.AppendInt(b, r.Turn, 10)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, r.Seq, 10)
	for _, f := range []struct{ key, val string }{
		{"run", r.Run}, {"type", r.Type}, {"at", r.At}, {"status", r.Status}, {"model", r.Model},
		{"started", r.Started}, {"finished", r.Finished}, {"error", r.Error},
	} {
		if f.val == "" {
			continue
		}
		b = append(b, `,"`...)
		b = append(b, f.key...)
		b = append(b, `":`...)
		b = jsonbytes.String(b, f.val, false)
	}
	b = appendObject(b, "usage", r.Usage)
	b = appendObject(b, "payload", r.Payload)
	return append(b, '}')
}

// appendObject appends ,"key":s when s is one JSON object, on one line
// (MarshalTo writes no white space between tokens).
func appendObject(b []byte, key, s string) []byte {
	v, err := fastjson.Parse(s)
	if err != nil || v.Type() != fastjson.TypeObject {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return v.MarshalTo(b)
}

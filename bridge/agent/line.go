package agent

import (
	"fmt"
	"time"

	"github.com/valyala/fastjson"
)

// lineParsers parse every session's lines, whatever its format:
// fastjson keeps buffers as large as the largest line it parsed, which
// many sessions should not each hold.
var lineParsers fastjson.ParserPool

// ParseObject parses a record line that must be one JSON object and
// hands it to read. v lives only until read returns: its parser goes
// back to the pool. A line that is not a JSON object returns notObject
// (wrapping the syntax error, if any) and read is not called, so the
// parser's state is untouched.
func ParseObject(line []byte, notObject error, read func(v *fastjson.Value) error) error {
	jp := lineParsers.Get()
	defer lineParsers.Put(jp)
	v, err := jp.ParseBytes(line)
	if err != nil {
		return fmt.Errorf("%w: %v", notObject, err)
	}
	if v.Type() != fastjson.TypeObject {
		return notObject
	}
	return read(v)
}

// ParseTime reads an RFC 3339 timestamp, as the agents write them;
// anything else is the zero time.
func ParseTime(b []byte) time.Time {
	if len(b) == 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}
	}
	return t
}

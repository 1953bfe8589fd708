package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"conductorbridge/bridge/event"
)

// Message is one event read off an SSE stream.
type Message struct {
	ID     int64  // the event's number (on a follow stream, within its workspace)
	LastID string // the id line as sent, what to resume with
	Event  string
	Data   []byte // the message's own: fn may keep it
}

// Read parses an SSE stream from r and calls fn for each message with data,
// until r ends or fn returns an error. Comments (heartbeats) are skipped.
// Used by the CLI's tail, the benchmarks and the tests. Lines are parsed
// in the reader's buffer, which starts small and grows for a long line:
// the bench holds five hundred of these open at once.
func Read(r io.Reader, fn func(Message) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4<<10), 8<<20)
	var m Message
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if data != nil {
				m.Data = data
				if err := fn(m); err != nil {
					return err
				}
			}
			m, data = Message{}, nil
		case line[0] == ':':
		case bytes.HasPrefix(line, []byte("id:")):
			// A follow stream's ids are "<workspace>:<n>".
			m.LastID = string(bytes.TrimSpace(line[3:]))
			_, num, _ := strings.Cut(m.LastID, ":")
			if num == "" {
				num = m.LastID
			}
			id, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return fmt.Errorf("bad sse id %q: %w", line, err)
			}
			m.ID = id
		case bytes.HasPrefix(line, []byte("event:")):
			m.Event = eventName(bytes.TrimSpace(line[6:]))
		case bytes.HasPrefix(line, []byte("data:")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[5:], []byte(" "))...)
		}
	}
	return sc.Err()
}

// eventName returns name as a string, without allocating for the names a
// stream repeats most.
func eventName(name []byte) string {
	for _, known := range knownEvents {
		if string(name) == known {
			return known
		}
	}
	return string(name)
}

var knownEvents = [...]string{event.User, event.Assistant, event.Thinking, event.ToolUse, event.ToolResult,
	event.Status, event.TurnComplete, event.Session, event.Gap, event.Pairing}

package stream

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Message is one event read off an SSE stream.
type Message struct {
	ID     int64  // the event's number (on a follow stream, within its workspace)
	LastID string // the id line as sent, what to resume with
	Event  string
	Data   []byte
}

// Read parses an SSE stream from r and calls fn for each message with data,
// until r ends or fn returns an error. Comments (heartbeats) are skipped.
// Used by the CLI's tail, the benchmarks and the tests.
func Read(r io.Reader, fn func(Message) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var m Message
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				m.Data = data
				if err := fn(m); err != nil {
					return err
				}
			}
			m, data = Message{}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "id:"):
			// A follow stream's ids are "<workspace>:<n>".
			m.LastID = strings.TrimSpace(line[3:])
			_, num, _ := strings.Cut(m.LastID, ":")
			if num == "" {
				num = m.LastID
			}
			id, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return fmt.Errorf("bad sse id %q: %w", line, err)
			}
			m.ID = id
		case strings.HasPrefix(line, "event:"):
			m.Event = strings.TrimSpace(line[6:])
		case strings.HasPrefix(line, "data:"):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(line[5:], " ")...)
		}
	}
	return sc.Err()
}

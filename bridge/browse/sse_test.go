package browse

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// endless is n bytes of x, then tail: a line far longer than any buffer.
type endless struct {
	n    int
	tail *strings.Reader
}

func (r *endless) Read(p []byte) (int, error) {
	if r.n > 0 {
		k := min(len(p), r.n)
		for i := range k {
			p[i] = 'x'
		}
		r.n -= k
		return k, nil
	}
	return r.tail.Read(p)
}

// A line of 64 MB (data of one event, or no SSE at all) is read through in
// the reader's own buffer: what reading it allocates does not grow with it,
// and the events after it come as sent.
func TestSSEReaderReadsThroughHugeLinesInBoundedMemory(t *testing.T) {
	for _, prefix := range []string{"data: ", ""} {
		in := io.MultiReader(strings.NewReader("event: activity\n"+prefix),
			&endless{n: 64 << 20, tail: strings.NewReader("\n\n: heartbeat\n\nevent: activity\ndata: {\"id\":1}\n\nevent: gap\r\ndata: {\"gapFrom\":1,\r\ndata: \"availableFrom\":9}\r\n\r\n")})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := newSSEReader(in)
		var got []string
		for {
			name, data, err := r.next()
			if err != nil {
				break
			}
			got = append(got, name+" "+string(bytes.ReplaceAll(data, []byte("\n"), []byte("|"))))
		}
		runtime.ReadMemStats(&after)
		if want := []string{`activity {"id":1}`, `gap {"gapFrom":1,|"availableFrom":9}`}; strings.Join(got, ";") != strings.Join(want, ";") {
			t.Errorf("events %q, want %q", got, want)
		}
		if r.oversized != 1 {
			t.Errorf("%d oversized events, want 1", r.oversized)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
			t.Errorf("reading a 64 MB line allocated %d MB", grew>>20)
		}
	}
}

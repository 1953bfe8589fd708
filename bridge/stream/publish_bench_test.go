package stream

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// BenchmarkPublishLazy is the stream's half of a line a live agent
// writes: one prompt event published with a delta and a lazy mark to a
// journaled topic with one subscriber, which takes it off its channel.
// Its allocations are what the collector pays per line, besides the
// engine's. In memory, without the journal's write(2), it is the
// topic's own work alone.
func BenchmarkPublishLazy(b *testing.B) {
	b.Run("journaled", func(b *testing.B) { benchPublishLazy(b, b.TempDir()) })
	b.Run("in memory", func(b *testing.B) { benchPublishLazy(b, "") })
}

func benchPublishLazy(b *testing.B, dir string) {
	h := NewHub(dir, 0)
	tp, err := h.Topic("w")
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	_, _, sub := tp.Subscribe(0)
	defer tp.Unsubscribe(sub)
	mark := bigMark(0)
	ev := event.Event{Type: event.User, SessionID: "11111111-2222-4333-8444-555555555555",
		TS: time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC), Content: "run the tests and tell me \"what\" failed", MessageID: "msg_01"}
	evs := make([]event.Event, 1)
	var d []byte
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		evs[0] = ev
		d = append(strconv.AppendInt(append(d[:0], `{"s":{"a":{"o":`...), int64(i), 10), "}}"...)
		if _, err := tp.PublishLazy(evs, func() json.RawMessage { return mark }, d); err != nil {
			b.Fatal(err)
		}
		if it := <-sub.C; it.Type != event.User {
			b.Fatalf("got %s", it.Type)
		}
	}
}

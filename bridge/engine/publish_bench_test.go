package engine

import (
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/stream"
	"conductorbridge/bridge/transcript"
)

// BenchmarkPublishLine is a workspace's publish of one line alone: its
// one session's reader moved on by a line, whose prompt is journaled
// with a delta and taken by a subscriber. BenchmarkLineToEvent measures
// the whole way from the file; this leaves out the watch, the read and
// the parse, so what it reports moves with publish and the stream. In
// memory, without the journal's write(2), it is their own work alone.
func BenchmarkPublishLine(b *testing.B) {
	b.Run("journaled", func(b *testing.B) { benchPublishLine(b, b.TempDir()) })
	b.Run("in memory", func(b *testing.B) { benchPublishLine(b, "") })
}

func benchPublishLine(b *testing.B, dir string) {
	const id = "11111111-2222-4333-8444-555555555555"
	hub := stream.NewHub(dir, 0)
	defer hub.Close()
	topic, err := hub.Topic("w")
	if err != nil {
		b.Fatal(err)
	}
	_, _, sub := topic.Subscribe(0)
	defer topic.Unsubscribe(sub)
	tl := &tail{id: id, reader: linefile.Reader{Path: "/x/" + id + ".jsonl", Offset: 100}, parser: &transcript.Parser{}, status: event.StateWorking}
	w := &workspace{eng: &Engine{}, id: "w", topic: topic, tails: map[string]*tail{id: tl}}
	ev := event.Event{Type: event.User, SessionID: id, Content: "run the tests and tell me what failed"}
	b.ReportAllocs()
	for b.Loop() {
		tl.reader.Offset += 200
		w.publish(append(w.evs[:0], ev))
		if it := <-sub.C; it.Type != event.User {
			b.Fatalf("got %s", it.Type)
		}
	}
}

package stream

import (
	"errors"
	"strings"
	"testing"
)

func TestReadParsesMessages(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // past the reader's first buffer
	in := "retry: 2000\n\n" +
		": ping\n\n" +
		"id: 7\nevent: user\ndata: {\"a\":1}\n\n" +
		"id: ws1:8\nevent: custom_kind\ndata: one\ndata:two\n\n" +
		"id: 9\nevent: assistant\ndata: " + long + "\n\n" +
		"id: 10\nevent: status\n\n" // no data: not a message
	var got []Message
	if err := Read(strings.NewReader(in), func(m Message) error { got = append(got, m); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{ID: 7, LastID: "7", Event: "user", Data: []byte(`{"a":1}`)},
		{ID: 8, LastID: "ws1:8", Event: "custom_kind", Data: []byte("one\ntwo")},
		{ID: 9, LastID: "9", Event: "assistant", Data: []byte(long)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.LastID != w.LastID || g.Event != w.Event || string(g.Data) != string(w.Data) {
			t.Errorf("message %d = %d %q %q %.40q, want %d %q %q %.40q", i, g.ID, g.LastID, g.Event, g.Data, w.ID, w.LastID, w.Event, w.Data)
		}
	}
	// Data is each message's own, not the reader's buffer.
	if string(got[0].Data) != `{"a":1}` {
		t.Errorf("first message's data changed under later reads: %q", got[0].Data)
	}
}

func TestReadStopsOnBadIDAndOnCallerError(t *testing.T) {
	if err := Read(strings.NewReader("id: x\n\n"), func(Message) error { return nil }); err == nil {
		t.Error("a bad id was accepted")
	}
	stop := errors.New("stop")
	n := 0
	err := Read(strings.NewReader("data: a\n\ndata: b\n\n"), func(Message) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d messages, want stop after 1", err, n)
	}
}

package stream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"conductorbridge/bridge/event"
)

// hubTopic is topic "w" of a new hub keeping history items, its journal
// in a directory of the test's: the directory, the hub and the topic.
func hubTopic(t *testing.T, history int) (string, *Hub, *Topic) {
	t.Helper()
	dir := t.TempDir()
	h := NewHub(dir, history)
	tp, err := h.Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	return dir, h, tp
}

func texts(n int, prefix string) []event.Event {
	evs := make([]event.Event, n)
	for i := range evs {
		evs[i] = event.Event{Type: event.Assistant, Content: prefix}
	}
	return evs
}

func ids(items []Item) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func TestPublishNumbersAndReplays(t *testing.T) {
	h := NewHub("", 5)
	tp, err := h.Topic("w1")
	if err != nil {
		t.Fatal(err)
	}
	items, err := tp.Publish(texts(3, "a"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(items); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("ids = %v, want 1..3", got)
	}
	var e event.Event
	if err := json.Unmarshal(items[1].Data, &e); err != nil || e.ID != 2 {
		t.Fatalf("payload id = %d (%v), want 2", e.ID, err)
	}
	replay, gap, s := tp.Subscribe(1)
	defer tp.Unsubscribe(s)
	if gap != nil {
		t.Errorf("unexpected gap %+v", gap)
	}
	if got := ids(replay); len(got) != 2 || got[0] != 2 {
		t.Errorf("replay after 1 = %v, want [2 3]", got)
	}
	tp.Publish(texts(1, "b"), nil)
	if it := <-s.C; it.ID != 4 {
		t.Errorf("live id = %d, want 4", it.ID)
	}
}

func TestGapWhenCursorTooOld(t *testing.T) {
	tp, _ := NewHub("", 5).Topic("w")
	tp.Publish(texts(12, "x"), nil) // keeps 8..12
	tests := []struct {
		after     int64
		wantGap   bool
		wantFirst int64
		wantLen   int
	}{
		{0, true, 8, 5},
		{6, true, 8, 5},
		{7, false, 8, 5},
		{10, false, 11, 2},
		{12, false, 0, 0},
	}
	for _, tt := range tests {
		replay, gap, s := tp.Subscribe(tt.after)
		tp.Unsubscribe(s)
		if (gap != nil) != tt.wantGap {
			t.Errorf("after %d: gap = %+v, want gap %v", tt.after, gap, tt.wantGap)
		}
		if gap != nil && (gap.GapFrom != tt.after+1 || gap.AvailableFrom != 8) {
			t.Errorf("after %d: gap = %d..%d", tt.after, gap.GapFrom, gap.AvailableFrom)
		}
		if len(replay) != tt.wantLen || (tt.wantLen > 0 && replay[0].ID != tt.wantFirst) {
			t.Errorf("after %d: replay %v", tt.after, ids(replay))
		}
	}
}

func TestSlowSubscriberIsCutLooseOthersKeepUp(t *testing.T) {
	tp, _ := NewHub("", 10000).Topic("w")
	_, _, slow := tp.Subscribe(0)
	_, _, fast := tp.Subscribe(0)
	const total = subscriberBuffer * 3
	// The fast subscriber reads everything; the publisher goes on in
	// batches as it catches up. The slow one never reads at all.
	for sent := 0; sent < total; sent += 100 {
		tp.Publish(texts(100, "x"), nil)
		for i := 0; i < 100; i++ {
			if _, ok := <-fast.C; !ok {
				t.Fatalf("fast subscriber cut loose after %d events", sent+i)
			}
		}
	}
	if fast.Dropped() {
		t.Error("fast subscriber dropped")
	}
	// The slow one was closed once its buffer filled, and Publish never
	// blocked on it.
	n := 0
	for range slow.C {
		n++
	}
	if n != subscriberBuffer || !slow.Dropped() {
		t.Errorf("slow subscriber: got %d buffered, dropped=%v; want %d, true", n, slow.Dropped(), subscriberBuffer)
	}
}

func TestJournalSurvivesRestartAndTornTail(t *testing.T) {
	dir := t.TempDir()
	h := NewHub(dir, 100)
	tp, _ := h.Topic("ws-1")
	tp.Publish(texts(3, "a"), json.RawMessage(`{"off":10}`))
	tp.Publish(texts(2, "b"), json.RawMessage(`{"off":20}`))
	h.Close()

	// Simulate a kill in the middle of a write.
	path := filepath.Join(dir, "ws-1.jsonl")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"e":[{"type":"assistant","id":6,"content":"torn`)
	f.Close()

	h2 := NewHub(dir, 100)
	defer h2.Close()
	tp2, err := h2.Topic("ws-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tp2.Mark()); got != `{"off":20}` {
		t.Errorf("mark = %s", got)
	}
	if tp2.LastID() != 5 {
		t.Errorf("last id = %d, want 5", tp2.LastID())
	}
	items, _ := tp2.Publish(texts(1, "c"), json.RawMessage(`{"off":30}`))
	if items[0].ID != 6 {
		t.Errorf("next id after restart = %d, want 6", items[0].ID)
	}
	if h := tp2.History(4); len(h) != 2 || h[0].ID != 5 || h[1].ID != 6 {
		t.Errorf("history after 4 = %v", ids(h))
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v, want 0600", info.Mode().Perm())
	}
}

func TestJournalCompactionKeepsIDsAndMark(t *testing.T) {
	dir, h, tp := hubTopic(t, 10)
	tp.journal.MaxBytes = 2000
	for i := 0; i < 100; i++ {
		tp.Publish(texts(1, "some text to fill the journal"), json.RawMessage(`{"n":`+itoa(i)+`}`))
	}
	h.Close()
	info, _ := os.Stat(filepath.Join(dir, "w.jsonl"))
	if info.Size() > 4000 {
		t.Errorf("journal not compacted: %d bytes", info.Size())
	}
	tp2, _ := NewHub(dir, 10).Topic("w")
	if tp2.LastID() != 100 || string(tp2.Mark()) != `{"n":99}` {
		t.Errorf("after compaction: last id %d mark %s", tp2.LastID(), tp2.Mark())
	}
	if h := tp2.History(0); len(h) != 10 || h[0].ID != 91 {
		t.Errorf("history = %v", ids(h))
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestJournalNameNeverEscapes(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "a/b", "", "ok-id_1"} {
		name := journalName(id)
		if filepath.Base(name) != name || name == ".jsonl" {
			t.Errorf("journalName(%q) = %q", id, name)
		}
	}
}

// TestKeptItemsAreSlim: history keeps each event's JSON and its id, type
// and session, not the decoded event (a thousand workspaces' history is
// held at once); Event decodes it back to what was published, and live
// items carry the event as it was, with nothing to decode.
func TestKeptItemsAreSlim(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		h := NewHub(dir, 10)
		tp, err := h.Topic("w1")
		if err != nil {
			t.Fatal(err)
		}
		_, _, sub := tp.Subscribe(0)
		in := event.Event{Type: event.ToolResult, SessionID: "s1", Name: "Bash", Output: "ok", IsError: true}
		if _, err := tp.Publish([]event.Event{in}, nil); err != nil {
			t.Fatal(err)
		}
		live := <-sub.C
		if live.full == nil || live.Event().Output != "ok" {
			t.Errorf("live item lacks its event: %+v", live)
		}
		tops := []*Topic{tp}
		if dir != "" { // and after a restart, from the journal
			h.Close()
			tp2, err := NewHub(dir, 10).Topic("w1")
			if err != nil {
				t.Fatal(err)
			}
			tops = append(tops, tp2)
		}
		for _, tp := range tops {
			kept := tp.History(0)
			if len(kept) != 1 {
				t.Fatalf("kept %d items", len(kept))
			}
			k := kept[0]
			if k.full != nil {
				t.Error("history keeps the decoded event")
			}
			if k.ID != 1 || k.Type != event.ToolResult || k.SessionID != "s1" {
				t.Errorf("kept header = %d %q %q", k.ID, k.Type, k.SessionID)
			}
			want := in
			want.ID = 1
			if got := k.Event(); got.Name != want.Name || got.Output != want.Output || !got.IsError || got.SessionID != "s1" {
				t.Errorf("decoded %+v, want %+v", got, want)
			}
		}
	}
}

// TestTopicOpenedOnceUnderContention: callers asking for the same topic
// at once (a cold start opens journals outside the hub's lock) all get
// the one topic, loaded once.
func TestTopicOpenedOnceUnderContention(t *testing.T) {
	dir := t.TempDir()
	h := NewHub(dir, 10)
	defer h.Close()
	got := make(chan *Topic, 8)
	for range 8 {
		go func() {
			tp, err := h.Topic("w1")
			if err != nil {
				t.Error(err)
			}
			got <- tp
		}()
	}
	first := <-got
	for range 7 {
		if tp := <-got; tp != first {
			t.Fatal("two topics for one id")
		}
	}
}

// Every subscriber receives the one item published, not a copy in a
// buffer of its own: with 500 subscribers, buffers of whole items were
// 18 MB of the bridge's heap.
func TestSubscribersShareOneItem(t *testing.T) {
	tp, err := NewHub("", 10).Topic("w1")
	if err != nil {
		t.Fatal(err)
	}
	_, _, a := tp.Subscribe(0)
	_, _, b := tp.Subscribe(0)
	items, err := tp.Publish(texts(1, "x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ia, ib := <-a.C, <-b.C
	if ia != ib || ia != &items[0] {
		t.Fatalf("subscribers got %p and %p, publish returned %p: want one shared item", ia, ib, &items[0])
	}
	if got := ia.Event().Content; got != "x" {
		t.Fatalf("content %q", got)
	}
}

// A subscriber costs its buffer of pointers and little else.
func TestSubscriberIsSmall(t *testing.T) {
	tp, err := NewHub("", 10).Topic("w1")
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	subs := make([]*Subscriber, 0, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		_, _, s := tp.Subscribe(0)
		subs = append(subs, s)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	if limit := int64(2 * subscriberBuffer * 8); per > limit {
		t.Fatalf("a subscriber holds %d bytes of heap, want at most %d (a buffer of %d pointers)", per, limit, subscriberBuffer)
	}
	runtime.KeepAlive(subs)
}

// TestEachItemKeepsItsOwnBytes: the topic encodes every event in one
// buffer it reuses, so each item must hold a copy: the items of earlier
// batches, the history and the journal still say what was published.
func TestEachItemKeepsItsOwnBytes(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	batches := [][]string{{"first, and long enough to be overwritten"}, {"b1", "b2", "b3"}, {"x"}, {"last"}}
	var items []Item
	var want []string
	for _, b := range batches {
		evs := make([]event.Event, len(b))
		for i, s := range b {
			evs[i] = event.Event{Type: event.Assistant, SessionID: "s", Content: s}
		}
		got, err := tp.Publish(evs, nil)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, got...)
		want = append(want, b...)
	}
	contents := func(items []Item) []string {
		var out []string
		for _, it := range items {
			var e event.Event
			if err := json.Unmarshal(it.Data, &e); err != nil {
				t.Fatalf("item %d: %v (%s)", it.ID, err, it.Data)
			}
			if e.ID != it.ID || it.Event().Content != e.Content {
				t.Fatalf("item %d: data %s, event %+v", it.ID, it.Data, it.Event())
			}
			out = append(out, e.Content)
		}
		return out
	}
	if got := contents(items); !slices.Equal(got, want) {
		t.Fatalf("published items say %q, want %q", got, want)
	}
	if got := contents(tp.History(0)); !slices.Equal(got, want) {
		t.Fatalf("history says %q, want %q", got, want)
	}
	h.Close()
	tp2, err := NewHub(dir, 100).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(tp2.History(0)); !slices.Equal(got, want) {
		t.Fatalf("journal says %q, want %q", got, want)
	}
}

package inject

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// counts tallies a workspace's messages by state.
func counts(q *Queue, ws string) map[string]int {
	out := map[string]int{}
	for _, m := range q.List(ws) {
		out[m.State]++
	}
	return out
}

// Issue 24, finding 10: messages handed to a hook and never seen in the
// transcript piled up without bound (300 made a 2.7 MB file rewritten on
// every change), and a restart put every one back in the queue, past its
// 20-message cap, to be replayed turn after turn. At most MaxQueued stay
// delivered-but-unconfirmed per workspace; older ones are lost (never
// sent again); a restart queues again only the newest, within the cap.
func TestUnconfirmedMessagesStayBounded(t *testing.T) {
	dir := t.TempDir()
	q, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("staging notes ", 600) // ~8,400 characters, near the limit
	for i := range 120 {                          // more than the 90 that may be kept
		if _, _, err := q.Enqueue("ws", strconv.Itoa(i)+" "+text); err != nil {
			t.Fatalf("enqueue %d: %v", i, err)
		}
		if _, ok, err := q.Take("ws", "stop", "s1"); !ok || err != nil {
			t.Fatalf("take %d: %v %v", i, ok, err)
		}
	}
	c := counts(q, "ws")
	if c[Delivered] > MaxQueued {
		t.Errorf("%d delivered-but-unconfirmed messages kept, want at most %d", c[Delivered], MaxQueued)
	}
	if n := len(q.List("ws")); n > 2*MaxQueued+keepDone {
		t.Errorf("%d messages kept, want at most %d", n, 2*MaxQueued+keepDone)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	fi, _ := os.Stat(files[0])
	t.Logf("queue file after 120 unconfirmed messages: %d bytes, states %v", fi.Size(), c)

	// Five more wait in the queue when the bridge restarts.
	for i := range 5 {
		if _, _, err := q.Enqueue("ws", "waiting "+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	q2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q2.Requeue("ws", time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c = counts(q2, "ws")
	if c[Queued] > MaxQueued || c[Delivered] != 0 {
		t.Errorf("after a restart: %v; want at most %d queued and none left delivered", c, MaxQueued)
	}
	// The newest came back, and in order: oldest first among them.
	var queued []string
	for _, m := range q2.List("ws") {
		if m.State == Queued {
			queued = append(queued, strings.Fields(m.Text)[0])
		}
	}
	want := []string{"105", "106", "107", "108", "109", "110", "111", "112", "113", "114", "115", "116", "117", "118", "119",
		"waiting", "waiting", "waiting", "waiting", "waiting"}
	if strings.Join(queued, " ") != strings.Join(want, " ") {
		t.Errorf("queued after the restart: %v\nwant %v", queued, want)
	}
	// A lost message seen in the transcript after all is confirmed.
	for _, m := range q2.List("ws") {
		if m.State == Lost {
			if _, ok := q2.Confirm("ws", m.ID); !ok {
				t.Errorf("a lost message seen later was not confirmed")
			}
			break
		}
	}
}

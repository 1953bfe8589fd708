package inject

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEnqueueLimitsAndCleaning(t *testing.T) {
	q, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want string
		err  error
	}{
		{"no, test the mobile view", "no, test the mobile view", nil},
		{"  \t\n ", "", ErrEmpty},
		{"", "", ErrEmpty},
		{"a\x00b\x1bc\r\nd\u2028e", "abc\nde", nil},
		{"\x07\x08", "", ErrEmpty},
		{strings.Repeat("é", MaxRunes), strings.Repeat("é", MaxRunes), nil},
		{strings.Repeat("x", MaxRunes+1), "", ErrTooLong},
		{strings.Repeat("👍", MaxRunes/2+1), "", ErrTooLong}, // two UTF-16 units each
	}
	for _, tt := range tests {
		m, _, err := q.Enqueue("ws", tt.in)
		if !errors.Is(err, tt.err) || (err == nil && m.Text != tt.want) {
			t.Errorf("Enqueue(%.20q) = %.20q, %v; want %.20q, %v", tt.in, m.Text, err, tt.want, tt.err)
		}
	}
	for i := len(q.List("ws")); i < MaxQueued; i++ {
		if _, pos, err := q.Enqueue("ws", "more"); err != nil || pos != i+1 {
			t.Fatalf("enqueue %d: pos %d err %v", i, pos, err)
		}
	}
	if _, _, err := q.Enqueue("ws", "one too many"); !errors.Is(err, ErrFull) {
		t.Errorf("full queue: %v", err)
	}
	if _, _, err := q.Enqueue("other", "fine"); err != nil {
		t.Errorf("queues are per workspace: %v", err)
	}
}

func TestTakeHandsEachMessageOutOnce(t *testing.T) {
	q, _ := Open(t.TempDir())
	for i := 0; i < 10; i++ {
		q.Enqueue("ws", "m")
	}
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				m, ok, err := q.Take("ws", "stop", "s")
				if err != nil || !ok {
					return
				}
				mu.Lock()
				seen[m.ID]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 10 {
		t.Errorf("%d distinct messages taken, want 10", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s taken %d times", id, n)
		}
	}
}

func TestStateSurvivesReopenAndRequeue(t *testing.T) {
	dir := t.TempDir()
	q, _ := Open(dir)
	a, _, _ := q.Enqueue("ws", "first")
	b, _, _ := q.Enqueue("ws", "second")
	c, _, _ := q.Enqueue("ws", "third")
	q.Take("ws", "stop", "s1") // a delivered
	if _, err := q.Cancel("ws", a.ID); !errors.Is(err, ErrNotQueued) {
		t.Errorf("cancel delivered: %v", err)
	}
	if _, err := q.Cancel("ws", c.ID); err != nil {
		t.Errorf("cancel queued: %v", err)
	}
	if _, err := q.Cancel("ws", "m-nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("cancel unknown: %v", err)
	}

	// As after kill -9: a fresh Queue reads what was on disk.
	q2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range q2.List("ws") {
		got[m.ID] = m.State
	}
	if got[a.ID] != Delivered || got[b.ID] != Queued || got[c.ID] != Cancelled {
		t.Fatalf("after reopen: %v", got)
	}
	if n, _ := q2.Requeue("ws", time.Now().Add(time.Second)); n != 1 {
		t.Errorf("requeued %d, want 1", n)
	}
	m, ok, _ := q2.Take("ws", "rewake", "s2")
	if !ok || m.ID != a.ID {
		t.Errorf("requeued message keeps its place: took %v", m.ID)
	}
	if _, ok := q2.Confirm("ws", a.ID); !ok {
		t.Error("confirm failed")
	}
	if _, ok := q2.Confirm("ws", a.ID); ok {
		t.Error("confirmed twice")
	}
}

func TestWaitWakesOnEnqueue(t *testing.T) {
	q, _ := Open(t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error)
	go func() { done <- q.Wait(ctx, "ws") }()
	time.Sleep(50 * time.Millisecond)
	q.Enqueue("other", "not for ws")
	q.Enqueue("ws", "wake up")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	q.Take("ws", "rewake", "")
	if err := q.Wait(short, "ws"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("wait on empty queue: %v", err)
	}
}

func TestDamagedQueueFileIsSetAside(t *testing.T) {
	dir := t.TempDir()
	q, _ := Open(dir)
	q.Enqueue("ws", "x")
	kept, _, _ := q.Enqueue("other", "still here")
	damaged := filepath.Join(dir, fileName("ws"))
	os.WriteFile(damaged, []byte("{broken"), 0o600)

	q2, err := Open(dir)
	if err != nil {
		t.Fatalf("one damaged file stops the queue: %v", err)
	}
	if len(q2.SetAside) != 1 || !strings.HasPrefix(q2.SetAside[0], damaged+".damaged-") {
		t.Fatalf("set aside = %v, want [%s.damaged-<time>]", q2.SetAside, damaged)
	}
	if b, _ := os.ReadFile(q2.SetAside[0]); string(b) != "{broken" {
		t.Errorf("set-aside copy holds %q", b)
	}
	if _, err := os.Stat(damaged); !os.IsNotExist(err) {
		t.Errorf("damaged file still in place: %v", err)
	}
	if got := q2.List("other"); len(got) != 1 || got[0].ID != kept.ID {
		t.Errorf("other workspace after reopen: %v", got)
	}
	if got := q2.List("ws"); len(got) != 0 {
		t.Errorf("damaged workspace: %v", got)
	}
	if _, _, err := q2.Enqueue("ws", "afresh"); err != nil {
		t.Errorf("enqueue to the damaged workspace: %v", err)
	}

	// The set-aside file stays put on the next open.
	q3, err := Open(dir)
	if err != nil || len(q3.SetAside) != 0 || len(q3.List("ws")) != 1 {
		t.Errorf("reopen: set aside %v, ws %v, err %v", q3.SetAside, q3.List("ws"), err)
	}
	if _, err := os.Stat(q2.SetAside[0]); err != nil {
		t.Errorf("set-aside file: %v", err)
	}
}

func TestSetAsideNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	now := time.Unix(1700000000, 0)
	var got []string
	for _, body := range []string{"one", "two", "three"} {
		os.WriteFile(path, []byte(body), 0o600)
		to, err := setAside(path, now)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, to)
	}
	want := []string{path + ".damaged-1700000000", path + ".damaged-1700000000-1", path + ".damaged-1700000000-2"}
	for i, body := range []string{"one", "two", "three"} {
		if got[i] != want[i] {
			t.Errorf("set aside to %s, want %s", got[i], want[i])
		}
		if b, _ := os.ReadFile(want[i]); string(b) != body {
			t.Errorf("%s holds %q, want %q", want[i], b, body)
		}
	}
}

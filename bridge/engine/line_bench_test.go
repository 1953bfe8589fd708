package engine

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// BenchmarkLineToEvent appends one prompt line to a followed session and
// waits for its event on the topic: the engine's whole per-line path
// (watch, read, parse, journal, publish). Its allocations are what the
// collector pays for every line a busy agent writes, and the collector's
// mark phase is what the slowest lines wait behind.
func BenchmarkLineToEvent(b *testing.B) {
	h := newHome(b)
	sid := "11111111-2222-4333-8444-555555555555"
	r, id, path := h.followOne("bench", sid, "hello")
	topic, _ := r.eng.Topic(id)
	_, _, sub := topic.Subscribe(1 << 62)
	defer topic.Unsubscribe(sub)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	b.ReportAllocs()
	cpu0 := processCPU(b)
	for i := 0; b.Loop(); i++ {
		want := "line " + strconv.Itoa(i)
		if _, err := f.WriteString(prompt(sid, want) + "\n"); err != nil {
			b.Fatal(err)
		}
		for got := false; !got; {
			select {
			case it := <-sub.C:
				got = it.Type == event.User && it.Event().Content == want
			case <-time.After(5 * time.Second):
				b.Fatalf("no event for %q", want)
			}
		}
	}
	// CPU time, unlike the time per line, hardly moves with what else
	// runs on the machine: the whole process's, the writer's included.
	b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// processCPU is the process's user and system time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Skipf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package gcidle

import (
	"crypto/sha256"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// collector reads the collector's settings as the runtime reports them.
func collector() (gogc int64, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func numGC() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

// defaults puts the collector back as a test binary starts, whatever a
// failing test left.
func defaults(t *testing.T) {
	t.Helper()
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// Idle, the collector runs under a limit with GOGC off (no forced
// collection); when work resumes, it is as it was. Before Start, and with
// the person's own GOGC or GOMEMLIMIT, nothing changes.
func TestIdleTurnsGOGCOffAndWorkTurnsItBackOn(t *testing.T) {
	for _, tt := range []struct {
		name    string
		env     map[string]string
		start   bool
		wantOff bool
	}{
		{"idle after the start", nil, true, true},
		{"idle before the start", nil, false, false},
		{"the person's GOGC", map[string]string{"GOGC": "200"}, true, false},
		{"the person's GOMEMLIMIT", map[string]string{"GOMEMLIMIT": "1GiB"}, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defaults(t)
			g := New(env(tt.env))
			if tt.start {
				g.Start()
			}
			before := held()
			g.SetIdle(true)
			gogc, limit := collector()
			if off := gogc < 0 || gogc > math.MaxInt32; off != tt.wantOff {
				t.Fatalf("idle: GOGC %d (off %v), want off %v", gogc, off, tt.wantOff)
			}
			if tt.wantOff {
				if limit == math.MaxInt64 || limit < before {
					t.Errorf("idle: memory limit %d, want one at least the %d bytes held when it fell idle", limit, before)
				}
				if g.Limit() != limit {
					t.Errorf("Limit() = %d, the runtime's is %d", g.Limit(), limit)
				}
			} else if limit != math.MaxInt64 {
				t.Errorf("memory limit %d, want none", limit)
			}
			g.SetIdle(false)
			if gogc, limit := collector(); gogc != 100 || limit != math.MaxInt64 {
				t.Errorf("at work again: GOGC %d, limit %d; want 100 and none", gogc, limit)
			}
			if g.Limit() != 0 {
				t.Errorf("at work again: Limit() = %d, want 0", g.Limit())
			}
		})
	}
}

func held() int64 { return read().held }

// churn allocates n MB in 64 KB pieces, keeping every keepEvery-th one
// (0: none). It returns what it kept and the most the runtime held
// meanwhile. Each piece is hashed, as a bridge reads what it allocates: a
// loop that only allocates outruns any collector (the default pacing's
// too holds ten times its goal then).
func churn(n, keepEvery int) (kept [][]byte, peak int64) {
	var sum [32]byte
	for i := range n * 16 {
		b := make([]byte, 64<<10)
		b[0] = byte(i) ^ sum[0]
		sum = sha256.Sum256(b)
		if keepEvery > 0 && i%keepEvery == 0 {
			kept = append(kept, b)
		}
		peak = max(peak, held())
	}
	return kept, peak
}

// An idle bridge that allocates garbage (a usage page, a scan) is
// collected when its heap nears the limit, and never holds more: GOGC off
// with no limit would let it grow by every byte allocated.
func TestTheLimitBoundsTheHeapWhileIdle(t *testing.T) {
	defaults(t)
	runtime.GC()
	g := New(env(nil))
	g.Start()
	g.SetIdle(true)
	defer g.SetIdle(false)
	if g.Limit() == 0 {
		t.Fatal("not holding off the collector while idle")
	}
	start := held()
	gcs := numGC()
	_, peak := churn(256, 0)
	if numGC() == gcs {
		t.Fatal("no collection in 256 MB of garbage")
	}
	if peak-start > 64<<20 {
		t.Errorf("held %d MB more at the peak than at the start (%d MB), churning 256 MB of garbage: the heap grew with the garbage", (peak-start)>>20, start>>20)
	}
}

// Work the owner's idle word does not cover (a usage report asked of an
// idle bridge) runs at the default pacing while Busy: its heap, which may
// outgrow the idle limit, is not collected back to back. Overlapping
// calls keep it so until the last is done; then, still idle, the limit
// comes back. Busy while at work changes nothing.
func TestBusyPutsTheDefaultPacingBackUntilDone(t *testing.T) {
	defaults(t)
	g := New(env(nil))
	g.Start()
	g.SetIdle(true)
	defer g.SetIdle(false)
	off := func() bool { gogc, _ := collector(); return gogc < 0 || gogc > math.MaxInt32 }
	if !off() {
		t.Fatal("idle: the collector is not held off")
	}
	done1 := g.Busy()
	done2 := g.Busy()
	if gogc, limit := collector(); gogc != 100 || limit != math.MaxInt64 || g.Limit() != 0 {
		t.Fatalf("busy: GOGC %d, limit %d, Limit() %d; want 100, none, 0", gogc, limit, g.Limit())
	}
	done1()
	done1() // twice is once
	if off() {
		t.Fatal("held off again while a second Busy is not done")
	}
	g.SetIdle(true) // the owner's word again changes nothing while busy
	if off() {
		t.Fatal("held off by the owner's idle word while busy")
	}
	done2()
	if !off() || g.Limit() == 0 {
		t.Fatal("the last Busy done while idle: the collector is not held off again")
	}
	g.SetIdle(false)
	done3 := g.Busy()
	done3()
	if off() {
		t.Fatal("a Busy done while at work held the collector off")
	}
}

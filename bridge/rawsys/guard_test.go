//go:build linux && (amd64 || arm64)

package rawsys

import (
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeClock is a Guard's clock whose every reading is step after the
// last, so each timed call takes step; reads counts its readings.
type fakeClock struct {
	t     time.Time
	step  time.Duration
	reads int
}

func (c *fakeClock) now() time.Time {
	c.reads++
	c.t = c.t.Add(c.step)
	return c.t
}

// One raw call on a file, a write or a read, that took long (30 ms) stops
// them all, for good, and is reported once; calls of page-cache speed
// never do, nor one of 10 ms, which the budget holds.
func TestGuardStopsRawCallsAfterASlowOne(t *testing.T) {
	for _, tc := range []struct {
		call string
		make func(g *Guard, fd int) error
	}{
		{"write", func(g *Guard, fd int) error {
			_, err := g.WriteFile(fd, []byte("line\n"))
			return err
		}},
		{"pread", func(g *Guard, fd int) error {
			_, err := g.PreadNoWait(fd, make([]byte, 4), 0)
			return err
		}},
	} {
		t.Run(tc.call, func(t *testing.T) {
			f, path := newFile(t)
			fd := int(f.Fd())
			if _, err := f.Write([]byte("first\n")); err != nil {
				t.Fatal(err)
			}
			clock := &fakeClock{step: 20 * time.Microsecond}
			g := &Guard{Now: clock.now, Tripped: new(atomic.Pointer[Slow]), Stalls: new(Stalls)}
			for range 3 {
				if err := tc.make(g, fd); err != nil {
					t.Fatal(err)
				}
			}
			if !g.Raw() || g.Unreported() != nil {
				t.Fatalf("20 µs calls tripped the guard")
			}

			clock.step = 10 * time.Millisecond // preempted, or the disk's odd wait
			if err := tc.make(g, fd); err != nil {
				t.Fatal(err)
			}
			if !g.Raw() || g.Unreported() != nil {
				t.Fatalf("a 10 ms call tripped the guard")
			}
			clock.step = 30 * time.Millisecond // throttled for the disk
			if err := tc.make(g, fd); err != nil {
				t.Fatal(err)
			}
			if g.Raw() {
				t.Fatal("raw calls go on after a 30 ms one")
			}
			s := g.Unreported()
			if s == nil || s.Call != tc.call || s.File != path || s.Took != 30*time.Millisecond {
				t.Fatalf("reported %+v; want the %s of %s, 30ms", s, tc.call, path)
			}
			if again := g.Unreported(); again != nil {
				t.Errorf("reported twice: %v", again)
			}
			reads := clock.reads
			if n, err := g.PreadNoWait(fd, make([]byte, 4), 0); n != 0 || err != syscall.EAGAIN {
				t.Errorf("PreadNoWait after the trip = %d, %v; want 0, EAGAIN (read with the ordinary pread)", n, err)
			}
			if clock.reads != reads {
				t.Error("PreadNoWait made its raw call after the trip")
			}
			clock.step = 20 * time.Microsecond
			if g.Raw() {
				t.Error("raw calls back after fast calls")
			}
			if tripped.Load() != nil {
				t.Error("a test's guard tripped the process's wire")
			}
		})
	}
}

// A file is written raw only on a local filesystem not mounted sync.
func TestRawWritesDecidesFromTheFilesystem(t *testing.T) {
	f, _ := newFile(t)
	fd := int(f.Fd())
	if st, local := statfs(t, fd); !local {
		t.Logf("the temporary folder is on filesystem %#x, not one this test knows local", st.Type)
	} else if st.Flags&unix.ST_SYNCHRONOUS == 0 && !RawWrites(fd) {
		t.Errorf("a file on local filesystem %#x is not written raw", st.Type)
	}
	for _, tc := range []struct {
		name   string
		fsType uint32
		flags  int64
		want   bool
	}{
		{"ext4", 0xEF53, 0, true},
		{"tmpfs", 0x01021994, 0, true},
		{"xfs", 0x58465342, unix.ST_NOATIME, true},
		{"ext4 mounted sync", 0xEF53, unix.ST_SYNCHRONOUS, false},
		{"nfs", 0x6969, 0, false},
		{"fuse", 0x65735546, 0, false},
		{"unknown", 0x12345678, 0, false},
	} {
		st := unix.Statfs_t{Type: int64(tc.fsType), Flags: tc.flags}
		if got := rawWritable(&st); got != tc.want {
			t.Errorf("%s: written raw %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Stalls shorter than 25 ms draw on a budget of 50 ms that comes back at
// 1 ms a second; a longer one, or one the budget cannot hold, stops raw
// calls. The figures are the package doc's, written out.
func TestStallsDrawOnABudget(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ms := time.Millisecond
	type stall struct {
		at   time.Duration // after t0
		took time.Duration
		held bool
	}
	for _, tc := range []struct {
		name   string
		stalls []stall
	}{
		{"five of 10 ms at once, not six", []stall{{0, 10 * ms, true}, {0, 10 * ms, true}, {0, 10 * ms, true}, {0, 10 * ms, true}, {0, 10 * ms, true}, {0, 10 * ms, false}}},
		{"the budget comes back at 1 ms a second", []stall{{0, 25 * ms, true}, {0, 25 * ms, true}, {10 * time.Second, 10 * ms, true}, {10 * time.Second, 1 * ms, false}}},
		{"a spent budget is whole again after 50 s", []stall{{0, 25 * ms, true}, {0, 25 * ms, true}, {50 * time.Second, 25 * ms, true}, {50 * time.Second, 25 * ms, true}}},
		{"one of 26 ms is too long alone", []stall{{0, 26 * ms, false}}},
		{"17 ms twice a minute goes on", []stall{{0, 17 * ms, true}, {30 * time.Second, 17 * ms, true}, {60 * time.Second, 17 * ms, true}, {90 * time.Second, 17 * ms, true}, {120 * time.Second, 17 * ms, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Stalls
			for i, st := range tc.stalls {
				if got := s.take(st.took, t0.Add(st.at)); got != st.held {
					t.Fatalf("stall %d (%v at +%v): held %v, want %v", i, st.took, st.at, got, st.held)
				}
			}
		})
	}
}

// Through a Guard: 10 ms calls go on raw until the sixth at
// once, which stops them.
func TestGuardTripsWhenStallsComeTooFast(t *testing.T) {
	f, _ := newFile(t)
	clock := &fakeClock{step: 10 * time.Millisecond}
	// Each call reads the clock twice: the clock's own steps between
	// calls bring 10 ms of budget back per second, nothing to speak of.
	g := &Guard{Now: clock.now, Tripped: new(atomic.Pointer[Slow]), Stalls: new(Stalls)}
	for i := range 5 {
		if _, err := g.WriteFile(int(f.Fd()), []byte("x\n")); err != nil {
			t.Fatal(err)
		}
		if !g.Raw() {
			t.Fatalf("stopped after %d stalls of 10 ms; want 6", i+1)
		}
	}
	if _, err := g.WriteFile(int(f.Fd()), []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if g.Raw() {
		t.Fatal("raw calls go on after six stalls of 10 ms within 0.12 s")
	}
	if s := g.Unreported(); s == nil || s.Took != 10*time.Millisecond {
		t.Fatalf("reported %+v; want the sixth, 10ms", s)
	}
}

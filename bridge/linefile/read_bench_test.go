//go:build unix

package linefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHeldReadALine is the reader's share of a busy agent's line: a
// line appended to a record kept open (Files), then one Read that hands
// it out, looking at the file first or told Unchanged. The append is in
// the loop too, the same for every version.
func BenchmarkHeldReadALine(b *testing.B) {
	for _, unchanged := range []bool{false, true} {
		name := "looked at"
		if unchanged {
			name = "told unchanged"
		}
		b.Run(name, func(b *testing.B) { benchHeldRead(b, unchanged) })
	}
}

func benchHeldRead(b *testing.B, unchanged bool) {
	path := filepath.Join(b.TempDir(), "s.jsonl")
	w, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	line := []byte(`{"type":"user","message":{"role":"user","content":"hello there"}}` + "\n")
	r := &Reader{Path: path, Files: NewFiles(4)}
	defer r.Close()
	n := 0
	fn := func([]byte, int64) { n++ }
	b.ReportAllocs()
	cpu0 := processCPU(b)
	for b.Loop() {
		if _, err := w.Write(line); err != nil {
			b.Fatal(err)
		}
		r.Unchanged = unchanged
		if _, err := r.Read(fn); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	if n != b.N {
		b.Fatalf("%d lines read of %d", n, b.N)
	}
}

// processCPU is the process's user and system time so far: unlike the
// time per read it hardly moves with what else runs on the machine.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Skipf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

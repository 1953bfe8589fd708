//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKB is an ended process's peak resident memory in KB.
func maxRSSKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		// Bytes there (xnu's kern_resource.c fills it from the task's
		// resident_size_max), KB on Linux.
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}

// flushWrites writes the bench's freshly made files to disk before a
// bridge is measured on them: gigabytes of dirty pages written back
// during a cold start would be the kernel's work, timed as the bridge's.
func flushWrites() { syscall.Sync() }

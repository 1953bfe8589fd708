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
		return int64(ru.Maxrss) / 1024 // bytes there, KB on Linux
	}
	return int64(ru.Maxrss)
}

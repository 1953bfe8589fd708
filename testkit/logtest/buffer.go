// Package logtest holds what tests collect a program's or a logger's
// output in.
package logtest

import (
	"strings"
	"sync"
)

// Buffer collects what is written to it, from any number of goroutines
// (a logger's, os/exec's copier), for the test to read with String.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is all written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Count is how many times s has been written (in String).
func (l *Buffer) Count(s string) int { return strings.Count(l.String(), s) }

package api

import (
	"net/http"
	"runtime"
)

// memoryJSON is what GET /api/memory answers: the Go heap and stacks in
// use after a full collection, so that two readings differ by what is
// live, not by how much garbage the collector had left. Kernel memory
// (socket buffers, the page cache) and the runtime's own free pages are
// not in it.
type memoryJSON struct {
	HeapInuse  uint64 `json:"heap_inuse"`  // bytes in heap spans holding live objects, after GC
	StackInuse uint64 `json:"stack_inuse"` // bytes of goroutine stacks
	HeapLive   uint64 `json:"heap_live"`   // bytes of live objects (HeapAlloc after GC)
	Sys        uint64 `json:"sys"`         // bytes the runtime holds from the OS, in use or not
	Goroutines int    `json:"goroutines"`
}

// memory collects and reports the heap: the bench reads it before and
// after connecting many subscribers to state what each costs. A full GC
// takes a few milliseconds at most; only the token may ask.
func (s *Server) memory(w http.ResponseWriter, r *http.Request) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	writeJSON(w, http.StatusOK, memoryJSON{HeapInuse: m.HeapInuse, StackInuse: m.StackInuse, HeapLive: m.HeapAlloc,
		Sys: m.Sys, Goroutines: runtime.NumGoroutine()})
}

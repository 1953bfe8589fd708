package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
	"conductorbridge/bridge/transcript/synth"
)

// benchHome is a throwaway home of plain Claude Code projects: each
// workspace's directory and its sessions' transcript paths.
type benchHome struct {
	root  string
	dirs  []string
	files [][]string // by workspace, then session
}

// makeBenchHome makes nws workspaces with perWS sessions each, every
// transcript written with synth turns up to bytesPer bytes (at least one
// turn, so every session has events).
func makeBenchHome(root string, nws, perWS int, bytesPer int64) (*benchHome, error) {
	h := &benchHome{root: root}
	for i := range nws {
		dir := filepath.Join(root, "work", fmt.Sprintf("ws%04d", i))
		proj := filepath.Join(root, ".claude", "projects", claude.EncodeProjectDir(dir))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return nil, err
		}
		var files []string
		for j := range perWS {
			path := filepath.Join(proj, fmt.Sprintf("%08d-%04d-4000-8000-000000000000.jsonl", i, j))
			if err := writeSynth(path, dir, uint64(i*perWS+j), bytesPer); err != nil {
				return nil, err
			}
			files = append(files, path)
		}
		h.dirs, h.files = append(h.dirs, dir), append(h.files, files)
	}
	return h, nil
}

// writeSynth writes a session of synth turns to path, up to size bytes.
func writeSynth(path, cwd string, seed uint64, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	cw := &countWriter{w: bw}
	s := synth.New(cw, filepath.Base(path)[:36], cwd, seed)
	for t := 0; t == 0 || cw.n < size; t++ {
		if err := s.Turn("turn " + strconv.Itoa(t)); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return bw.Flush()
}

// streamLoad is a line-to-subscriber run: writers append a prompt every
// `every` to one session of each of `workspaces` workspaces (`lines`
// each), and `subs` subscribers per workspace (or all on the first
// workspace, fanOut) read the stream and time each prompt, which carries
// its write time.
type streamLoad struct {
	workspaces, subs, lines int
	// sessions is how many sessions of each workspace have a writer of
	// their own (0 means 1): each is an agent at `every`.
	sessions int
	every    time.Duration
	fanOut   bool
	// prompter appends a prompt to session j of workspace i; nil writes
	// Claude Code lines (synth) to h.files[i][j].
	prompter func(i, j int) (prompt func(text string), done func(), err error)
}

// claudePrompter appends Claude Code prompt lines to the sessions of the
// workspaces of h.
func claudePrompter(h *benchHome) func(i, j int) (func(string), func(), error) {
	return func(i, j int) (func(string), func(), error) {
		path := h.files[i][j]
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, nil, err
		}
		s := synth.New(f, filepath.Base(path)[:36], h.dirs[i], uint64(i*len(h.files[i])+j)+1000)
		return func(text string) { s.Prompt(text) }, func() { f.Close() }, nil
	}
}

// readStamped reads a stream until each has had enough, handing it the
// bench stamp of every typ event that carries one and the time the event
// arrived.
func readStamped(r io.Reader, typ string, each func(sent, now time.Time) (enough bool)) {
	stream.Read(r, func(m stream.Message) error {
		now := time.Now()
		if m.Event != typ {
			return nil
		}
		sent, ok := benchStamp(m.Data)
		if !ok {
			return nil
		}
		if each(sent, now) {
			return io.EOF
		}
		return nil
	})
}

// benchStamp finds the time a benchmark wrote into a line or an entry
// ("bench@<unix ns>") in an event's JSON.
func benchStamp(data []byte) (time.Time, bool) {
	i := bytes.Index(data, []byte("bench@"))
	if i < 0 {
		return time.Time{}, false
	}
	j := bytes.IndexByte(data[i:], '"')
	if j < 0 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseInt(string(data[i+6:i+j]), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(0, ns), true
}

type streamResult struct {
	lat []time.Duration
	// arrived is when each stamped line's event reached a subscriber,
	// by its stamp (the first subscriber's, with several).
	arrived map[int64]time.Time
	// settled are the latencies of lines written from the second second
	// of the run on: the first second is the bridge, and this VM's
	// CPUs, waking from whatever came before (a minute idle, in the
	// bench), and is reported apart as well as in lat.
	settled  []time.Duration
	expected int
	elapsed  time.Duration
	// The bridge's Go heap and stacks in use after a full collection,
	// before the subscribers connected and with all of them held open.
	memIdle, memSubs benchMemory
	memErr           error
	// bridgeCPU and benchCPU are the CPU time the bridge and this
	// process (its subscribers and writers) spent from the first line to
	// the last delivery; ok is false where it cannot be read.
	bridgeCPU, benchCPU time.Duration
	cpuOK               bool
	// switches are the bridge's context switches (all its threads') over
	// the same window: each is a thread going to sleep or being woken.
	switches   int64
	switchesOK bool
}

func runStreamLoad(ctx context.Context, c *benchChild, h *benchHome, ids []string, load streamLoad) (streamResult, error) {
	res := streamResult{arrived: map[int64]time.Time{}}
	per := max(load.sessions, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if load.fanOut { // each reading is a full GC: only the fan-out states memory
		res.memIdle, res.memErr = childMemory(ctx, c)
	}
	var mu sync.Mutex
	var ready, done sync.WaitGroup
	var settledFrom atomic.Int64 // unix ns: a line written from then on counts as settled
	settledFrom.Store(math.MaxInt64)
	targets := ids[:load.workspaces]
	if load.fanOut {
		targets = ids[:1]
	}
	for _, id := range targets {
		for range load.subs {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				got, once := 0, sync.OnceFunc(ready.Done)
				defer once()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.cl.url(streamPath(id, 1<<62)), nil)
				req.Header.Set("Authorization", "Bearer "+c.token())
				resp, err := c.cl.http(0).Do(req)
				if err != nil {
					return
				}
				defer resp.Body.Close()
				once()
				readStamped(resp.Body, event.User, func(sent, now time.Time) bool {
					mu.Lock()
					if _, ok := res.arrived[sent.UnixNano()]; !ok {
						res.arrived[sent.UnixNano()] = now
					}
					res.lat = append(res.lat, now.Sub(sent))
					if sent.UnixNano() >= settledFrom.Load() {
						res.settled = append(res.settled, now.Sub(sent))
					}
					mu.Unlock()
					got++
					return got == load.lines*per
				})
			}()
		}
	}
	// Every writer's file is open before the clock starts: two hundred
	// opens at once would otherwise delay the first lines' readers.
	type writer struct {
		k      int
		prompt func(string)
	}
	var writers []writer
	for k := range load.workspaces * per {
		i, j := k/per, k%per
		if load.fanOut && i > 0 {
			break
		}
		prompter := load.prompter
		if prompter == nil {
			prompter = claudePrompter(h)
		}
		prompt, closeIt, err := prompter(i, j)
		if err != nil {
			continue
		}
		defer closeIt()
		writers = append(writers, writer{k, prompt})
	}
	ready.Wait()
	time.Sleep(time.Second) // let the bridge settle with every subscriber
	if load.fanOut && res.memErr == nil {
		res.memSubs, res.memErr = childMemory(ctx, c)
	}
	defer holdGC()()
	bridge0, ok1 := cpuTime(c.pid())
	self0, ok2 := cpuTime(os.Getpid())
	sw0, swOK0 := contextSwitches(c.pid())
	start := time.Now()
	settledFrom.Store(start.Add(time.Second).UnixNano())
	var wg sync.WaitGroup
	for _, w := range writers {
		wg.Go(func() {
			// Writers start spread over one interval, as independent
			// agents would, and keep to their schedule.
			next := start.Add(time.Duration(w.k) * load.every / time.Duration(load.workspaces*per))
			for range load.lines {
				time.Sleep(time.Until(next))
				w.prompt("bench@" + strconv.FormatInt(time.Now().UnixNano(), 10))
				next = next.Add(load.every)
			}
		})
	}
	wg.Wait()
	waitDone := make(chan struct{})
	go func() { done.Wait(); close(waitDone) }()
	select {
	case <-waitDone:
	case <-time.After(10 * time.Second):
	}
	res.elapsed = time.Since(start)
	bridge1, ok3 := cpuTime(c.pid())
	self1, ok4 := cpuTime(os.Getpid())
	sw1, swOK1 := contextSwitches(c.pid())
	res.switches, res.switchesOK = sw1-sw0, swOK0 && swOK1
	res.bridgeCPU, res.benchCPU, res.cpuOK = bridge1-bridge0, self1-self0, ok1 && ok2 && ok3 && ok4
	res.expected = len(targets) * load.subs * load.lines * per
	cancel()
	done.Wait()
	return res, nil
}

// holdGC stops the bench's own garbage collector until the returned
// function is called (within a memory limit of 1 GiB more than it holds
// now): its mark phase would hold up the subscribers reading the stream,
// and the delay would be counted as the bridge's.
func holdGC() (restore func()) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	limit := debug.SetMemoryLimit(-1)
	percent := debug.SetGCPercent(-1)
	debug.SetMemoryLimit(int64(m.Sys) + 1<<30)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
		runtime.GC()
	}
}

// benchMemory is the bridge's GET /api/memory.
type benchMemory struct {
	HeapInuse  int64 `json:"heap_inuse"`
	StackInuse int64 `json:"stack_inuse"`
	Goroutines int   `json:"goroutines"`
}

// childMemory asks the bridge to collect its garbage and say what its heap
// and stacks hold: resident memory sampled around a connection storm
// falls as often as it rises, as the collector returns pages.
func childMemory(ctx context.Context, c *benchChild) (benchMemory, error) {
	var m benchMemory
	err := getJSON(ctx, c.cl, "/api/memory", c.token(), &m)
	return m, err
}

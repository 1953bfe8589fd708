package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/conductor"
	"conductorbridge/bridge/event"
)

// benchConductor is the run of Conductor's own record (session_messages)
// as the source of tabs the bridge has no reader for: how long after
// Conductor commits a frame its event is made.
type benchConductor struct {
	tabs    int // tabs followed, each written 10 frames/s
	frames  int // frames per tab
	history int // rows already in the table, of tabs nobody follows
}

// runBenchConductor writes a database of the newer shape the way
// Conductor does — one writer (its sidecar) committing every followed
// tab's frames, a transaction each, while a second writer commits to a
// tab nobody follows — and times each frame from its commit to its event,
// made by the record's Follower and Parser in this process as the engine
// makes them.
func runBenchConductor(ctx context.Context, r *benchReport, root string, b benchConductor) error {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return err
	}
	shape := conductordb.AllShapes()[1]
	w, err := conductordb.Create(filepath.Join(root, "conductor.db"), shape.Schema)
	if err != nil {
		return err
	}
	defer w.Close()
	tabs := make([]string, b.tabs)
	for i := range tabs {
		tabs[i] = fmt.Sprintf("s-%04d", i)
		if err := w.AddTab(shape, "w-bench", tabs[i], "cursor", "Tab "+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	if err := w.AddTab(shape, "w-bench", "s-busy", "claude", "Busy"); err != nil {
		return err
	}
	if err := benchHistory(w, b.history); err != nil {
		return err
	}

	total := b.tabs * b.frames
	committed := make([]atomic.Int64, total)
	arrived := make([]atomic.Int64, total)
	var got atomic.Int64
	done := make(chan struct{})
	parsers := map[string]*conductor.Parser{}
	var bad int
	deliver := func(tab string, rows []conductor.Row) {
		p := parsers[tab]
		if p == nil {
			p = &conductor.Parser{}
			parsers[tab] = p
		}
		var out []event.Event
		for i := range rows {
			var err error
			if out, err = p.Line(rows[i].AppendLine(nil), out[:0]); err != nil {
				bad++
			}
			now := time.Now().UnixNano()
			for _, e := range out {
				seq, ok := benchSeq(e)
				if ok && seq < total && arrived[seq].CompareAndSwap(0, now) && got.Add(1) == int64(total) {
					close(done)
				}
			}
		}
	}
	f := conductor.NewFollower(w.Path, conductor.Options{Deliver: deliver})
	for _, tab := range tabs {
		f.Follow(tab, conductor.Cursor{})
	}
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var noise []time.Duration
	wg.Add(3)
	go func() { defer wg.Done(); f.Run(fctx) }()
	go func() { defer wg.Done(); benchBusyWriter(fctx, w) }()
	go func() { defer wg.Done(); noise = benchTimerNoise(fctx) }()

	interval := 100 * time.Millisecond / time.Duration(b.tabs) // 10 frames/s a tab
	start := time.Now()
	for seq := range total {
		if d := time.Until(start.Add(time.Duration(seq) * interval)); d > 0 {
			time.Sleep(d)
		}
		if _, err := w.Message(tabs[seq%b.tabs], "assistant", benchFrame(seq)); err != nil {
			stop()
			wg.Wait()
			return err
		}
		committed[seq].Store(time.Now().UnixNano())
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	stop()
	wg.Wait()
	var lat []time.Duration
	for i := range total {
		if a := arrived[i].Load(); a != 0 {
			lat = append(lat, max(0, time.Duration(a-committed[i].Load())))
		}
	}
	slices.Sort(noise)
	var late time.Duration
	if len(noise) > 0 {
		late = noise[len(noise)*99/100]
	}
	cond := fmt.Sprintf("%d Conductor tabs read from session_messages (newer shape, %d rows of history), 10 frames/s each committed one a transaction by one writer while a second commits 50/s to another tab; commit → event through the record's follower and parser, in-process; %d of %d frames arrived, %d bad rows; meanwhile a 1 ms timer fired up to %.2f ms late (p99)%s",
		b.tabs, b.history, len(lat), total, bad, float64(late)/float64(time.Millisecond), benchLoad())
	r.addLatencies("conductor record line → event", lat, cond)
	return nil
}

// benchHistory puts n rows of 40 tabs nobody follows in session_messages,
// as a Conductor used for a while holds.
func benchHistory(w *conductordb.Writer, n int) error {
	if n <= 0 {
		return nil
	}
	return w.Exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < ?)
INSERT INTO session_messages (id, session_id, role, content, created_at)
SELECT 'h-' || n, 's-old-' || (n % 40), 'assistant', ?, '2026-12-01 09:00:00' FROM c`, n, benchFrame(-1))
}

// benchBusyWriter commits a frame to a tab nobody follows 50 times a
// second, as Conductor's other tabs do, until ctx ends.
func benchBusyWriter(ctx context.Context, w *conductordb.Writer) {
	o, err := w.Second()
	if err != nil {
		return
	}
	defer o.Close()
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			o.Message("s-busy", "assistant", benchFrame(-1))
		}
	}
}

// benchFrame is an assistant frame as Claude Code prints it and Conductor
// keeps it, about 2 KB: a text block naming its sequence number and a
// tool call.
func benchFrame(seq int) string {
	return `{"type":"assistant","message":{"id":"msg_bench` + strconv.Itoa(seq) + `","model":"claude-opus-5-5","role":"assistant",` +
		`"content":[{"type":"text","text":"bench#` + strconv.Itoa(seq) + `"},{"type":"tool_use","id":"toolu_` + strconv.Itoa(seq) +
		`","name":"Write","input":{"file_path":"/w/tokyo/x.go","content":"` + strings.Repeat("package x // filler ", 90) + `"}}],` +
		`"stop_reason":null,"usage":{"input_tokens":1200,"output_tokens":80,"cache_read_input_tokens":30000}},` +
		`"parent_tool_use_id":null,"session_id":"bench-session"}`
}

// benchSeq is the sequence number an assistant event's text names.
func benchSeq(e event.Event) (int, bool) {
	s, ok := strings.CutPrefix(e.Content, "bench#")
	if e.Type != event.Assistant || !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// benchTimerNoise measures how late a 1 ms timer fires until ctx ends:
// on a busy machine every wake-up is late by about as much, and so is
// each event.
func benchTimerNoise(ctx context.Context) []time.Duration {
	var late []time.Duration
	for ctx.Err() == nil {
		t := time.Now()
		time.Sleep(time.Millisecond)
		late = append(late, time.Since(t)-time.Millisecond)
	}
	return late
}

// benchLoad is the machine's load average where the system says it.
func benchLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return ""
	}
	return "; load average " + f[0]
}

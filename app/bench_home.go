package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/claude"
)

// benchRealHome is the idle run on a home shaped like a Mac that has used
// Conductor, Claude Code and Codex for months: Conductor workspaces with
// two tabs each, plain Claude Code projects of a few sessions each, and
// Codex rollouts spread over the past weeks, none written to. The bridge
// is measured twice: over its first minute, while its scan and sweep back
// off, and at its steady state after.
type benchRealHome struct {
	conductor int           // Conductor workspaces (two tabs each)
	projects  int           // plain Claude Code projects
	rollouts  int           // Codex rollouts
	first     time.Duration // the first window, from the moment the bridge has caught up
	steadyAt  time.Duration // the steady window begins this long after that moment
	steady    time.Duration // and lasts this long
	// newSessions sessions begin at random moments of newWindow after
	// the idle windows (bench_newsessions.go).
	newSessions int
	newWindow   time.Duration
}

// realHome is what makeRealHome wrote: how many workspaces the bridge
// should list, and how many record files there are.
type realHome struct {
	workspaces int
	files      int
	bytes      int64
}

// makeRealHome writes the home at root: Conductor's database (schema.sql)
// and workspace folders, each tab's transcript in Claude Code's projects
// folder; plain projects of 1–5 sessions of 20 KB–1 MB, last written days
// to months ago; Codex rollouts in dated folders over the last 50 days.
func makeRealHome(root string, b benchRealHome) (realHome, error) {
	var h realHome
	projects := filepath.Join(root, ".claude", "projects")
	old := time.Now().Add(-24 * time.Hour)
	transcript := func(dir, cwd string, seed int, size int64, mod time.Time) error {
		proj := filepath.Join(projects, claude.EncodeProjectDir(cwd))
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return err
		}
		path := filepath.Join(proj, fmt.Sprintf("%08x-%04x-4000-8000-%012x.jsonl", seed, seed%0xffff, seed))
		if dir != "" {
			path = filepath.Join(proj, dir+".jsonl")
		}
		if err := writeSynth(path, cwd, uint64(seed), size); err != nil {
			return err
		}
		h.files++
		if fi, err := os.Stat(path); err == nil {
			h.bytes += fi.Size()
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			return err
		}
		return os.Chtimes(proj, mod, mod)
	}
	// Sizes from 20 KB to 1 MB, most small, as real sessions are.
	size := func(i int) int64 { return int64(20<<10) << (i % 6) }

	if b.conductor > 0 {
		dbPath := filepath.Join(root, "Library", "Application Support", "com.conductor.app", "conductor.db")
		if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
			return h, err
		}
		w, err := conductordb.Create(dbPath, conductordb.AllShapes()[0].Schema)
		if err != nil {
			return h, err
		}
		defer w.Close()
		var q strings.Builder
		q.WriteString("BEGIN;\nINSERT INTO repos (id, name, root_path) VALUES ('r1', 'app', '" + filepath.Join(root, "src", "app") + "');\n")
		for i := range b.conductor {
			name := fmt.Sprintf("city%03d", i)
			dir := filepath.Join(root, "conductor", "workspaces", "app", name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return h, err
			}
			ws := fmt.Sprintf("w-%03d", i)
			fmt.Fprintf(&q, "INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, branch, state, active_session_id) VALUES ('%s', 'r1', '%s', '%s', 'me/%s', 'ready', 's-%03d-0');\n",
				ws, name, dir, name, i)
			for t := range 2 {
				id := fmt.Sprintf("c0%06x-7777-4777-8777-%012x", i, t)
				fmt.Fprintf(&q, "INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden) VALUES ('s-%03d-%d', '%s', 'idle', 'claude', 'Tab %d', '%s', 0);\n",
					i, t, ws, t, id)
				if err := transcript(id, dir, 2*i+t, size(i+t), old.Add(-time.Duration(i)*time.Hour)); err != nil {
					return h, err
				}
			}
			h.workspaces++
		}
		q.WriteString("COMMIT;")
		if err := w.Exec(q.String()); err != nil {
			return h, err
		}
	}
	for i := range b.projects {
		dir := filepath.Join(root, "src", fmt.Sprintf("project%03d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return h, err
		}
		for s := range 1 + i%5 {
			mod := old.Add(-time.Duration(i*7+s) * time.Hour)
			if err := transcript("", dir, 1<<20+i*8+s, size(i+s), mod); err != nil {
				return h, err
			}
		}
		h.workspaces++
	}
	for i := range b.rollouts {
		day := time.Now().AddDate(0, 0, -1-i%50)
		dayDir := filepath.Join(root, ".codex", "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
		if err := os.MkdirAll(dayDir, 0o755); err != nil {
			return h, err
		}
		cwd := filepath.Join(root, "src", fmt.Sprintf("project%03d", i%max(1, b.projects)))
		thread := fmt.Sprintf("019a%04x-0000-7000-8000-%012x", i, i)
		path := filepath.Join(dayDir, "rollout-"+day.Format("2006-01-02T15-04-05")+"-"+thread+".jsonl")
		if err := writeRollout(path, thread, cwd, day, 1+i%8); err != nil {
			return h, err
		}
		if err := os.Chtimes(path, day, day); err != nil {
			return h, err
		}
		h.files++
	}
	return h, nil
}

// writeRollout writes a Codex 0.169-shaped rollout of turns turns.
func writeRollout(path, thread, cwd string, at time.Time, turns int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	c := &codexRollout{w: bw, thread: thread, ts: at}
	err = c.meta(cwd)
	for t := 0; err == nil && t < turns; t++ {
		err = c.turn(t)
	}
	if err == nil {
		err = bw.Flush()
	}
	return err
}

// runBenchRealHome starts a real bridge on that home and measures its CPU
// and wake-ups over both windows.
func runBenchRealHome(ctx context.Context, r *benchReport, exe, root string, b benchRealHome, serve ...string) error {
	h, err := makeRealHome(root, b)
	if err != nil {
		return err
	}
	c, err := startChild(ctx, exe, root, serve...)
	if err != nil {
		return err
	}
	defer c.close()
	if _, err := waitWorkspaces(ctx, c.cl, c.token, h.workspaces, 120*time.Second); err != nil {
		return err
	}
	home := fmt.Sprintf("real home: %d Conductor workspaces × 2 tabs, %d plain Claude Code projects, %d Codex rollouts (%d records, %d MB), no agent working, no subscriber",
		b.conductor, b.projects, b.rollouts, h.files, h.bytes>>20)
	caught := time.Now()
	report := func(window string, w idleWindow, cond string) {
		cond = home + "; " + cond + benchLoad()
		if !w.ok {
			r.unknown("real home idle CPU, "+window, "% of a core", cond)
			r.unknown("real home idle wake-ups, "+window, "/s", cond)
			r.unknown("real home idle wake-ups, "+window+"'s busiest second", "switches", cond)
			return
		}
		r.add("real home idle CPU, "+window, 100*float64(w.cpu)/float64(w.el), "% of a core", cond+"; the process's own user+system time")
		r.add("real home idle wake-ups, "+window, float64(w.switches)/w.el.Seconds(), "/s", cond+"; all threads' voluntary and involuntary context switches")
		r.add("real home idle wake-ups, "+window+"'s busiest second", float64(slices.Max(w.perSecond)), "switches",
			cond+"; the seconds of more than 10: "+w.busySeconds(10))
	}
	if b.first > 0 {
		w, err := measureIdle(ctx, c.pid(), b.first)
		if err != nil {
			return err
		}
		report("first minute", w, fmt.Sprintf("over the %v after it caught up", b.first))
	}
	if b.steady > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Until(caught.Add(b.steadyAt))):
		}
		w, err := measureIdle(ctx, c.pid(), b.steady)
		if err != nil {
			return err
		}
		report("steady", w, fmt.Sprintf("over %v from %v after it caught up", b.steady, b.steadyAt))
	}
	r.addKB("resident memory, real home idle", residentKB(c.pid()), home)
	if b.newSessions > 0 && b.newWindow > 0 {
		var known []string
		for i := range b.projects {
			known = append(known, filepath.Join(root, "src", fmt.Sprintf("project%03d", i)))
		}
		if _, err := runNewSessions(ctx, r, c, root, known, b.newSessions, b.newWindow, time.Minute, uint64(time.Now().UnixNano())); err != nil {
			return err
		}
	}
	return nil
}

// idleWindow is what an idle bridge cost over a window: CPU time, context
// switches in all and in each second of it.
type idleWindow struct {
	el        time.Duration
	cpu       time.Duration
	switches  int64
	perSecond []int64
	ok        bool
}

// measureIdle reads process pid's CPU time and its threads' context
// switches at the start of a window of d and at each second of it, from
// /proc: reading them does not wake the process. A second's switches show
// what an average hides: one burst (a scan, a collection) among quiet
// seconds.
func measureIdle(ctx context.Context, pid int, d time.Duration) (idleWindow, error) {
	w := idleWindow{ok: true}
	cpu0, ok1 := cpuTime(pid)
	sw0, ok2 := contextSwitches(pid)
	w.ok = ok1 && ok2
	start := time.Now()
	prev := sw0
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for left := d; left > 0; left -= time.Second {
		wait := tick.C
		var last <-chan time.Time
		if left < time.Second {
			wait, last = nil, time.After(left)
		}
		select {
		case <-ctx.Done():
			return w, ctx.Err()
		case <-wait:
		case <-last:
		}
		sw, ok := contextSwitches(pid)
		w.ok = w.ok && ok
		w.perSecond = append(w.perSecond, sw-prev)
		prev = sw
	}
	w.el = time.Since(start)
	cpu1, ok := cpuTime(pid)
	w.ok = w.ok && ok && len(w.perSecond) > 0
	w.cpu, w.switches = cpu1-cpu0, prev-sw0
	return w, nil
}

// busySeconds lists the seconds of the window with more than over
// switches, as "3 s: 85, 15 s: 12" (the first second is 1 s), or "none".
func (w idleWindow) busySeconds(over int64) string {
	var out []string
	for i, n := range w.perSecond {
		if n > over {
			out = append(out, fmt.Sprintf("%d s: %d", i+1, n))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/transcript"
	"conductorbridge/bridge/transcript/synth"
)

// bench measures what users feel: how fast transcripts parse; what an
// idle bridge costs; how fast a line reaches stream clients at an agent's
// pace, in a burst and fanned out to many; how fast and small a cold
// start at scale is; how a backlog and a long turn are journaled; how
// fast a browser action reaches a stream; how fast a frame Conductor
// commits to its own record becomes an event; and how fast the usage
// report reads a history, next to ccusage.
// Each bridge measured is a real `serve` process on a throwaway home, so
// its CPU time, memory and descriptors are its own.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the figures as JSON instead of a table")
	exe := fs.String("bridge", "", "the conductor-bridge binary to measure (default: this one)")
	parseMB := fs.Int("parse-mb", 64, "MB of transcript for the parser benchmark (0 skips)")
	live := fs.Int("live-workspaces", 200, "workspaces of the idle, paced, burst and fan-out runs (0 skips them)")
	liveSessions := fs.Int("live-sessions", 1, "sessions per live workspace, each one writing in the paced run")
	idle := fs.Duration("idle", 60*time.Second, "how long the idle bridge is measured (0 skips)")
	settle := fs.Duration("idle-settle", 5*time.Second, "how long the bridge idles before that: its scan and sweep back off over the first two minutes (2m measures the steady state)")
	paced := fs.Int("paced-lines", 50, "lines each live workspace appends at 10 lines/s (0 skips)")
	burstWS := fs.Int("workspaces", 50, "workspaces written at once in the burst (0 skips it)")
	burstSubs := fs.Int("subscribers", 10, "SSE subscribers per workspace in the burst")
	burstLines := fs.Int("lines", 100, "lines appended per workspace in the burst, one every 10 ms, then again with no pause")
	fanSubs := fs.Int("fan-subscribers", 500, "SSE subscribers on one workspace for the fan-out (0 skips)")
	fanLines := fs.Int("fan-lines", 250, "lines appended in the fan-out, at 50 lines/s")
	coldWS := fs.Int("cold-workspaces", 1000, "workspaces for the cold start at scale (0 skips)")
	coldSessions := fs.Int("cold-sessions", 2, "sessions per workspace for the cold start")
	coldMB := fs.Int("cold-mb", 2048, "MB of transcripts in all for the cold start")
	apiCalls := fs.Int("api-calls", 200, "/api/workspaces calls timed after the cold start (p99 of fewer than 100 is their slowest)")
	backlogMB := fs.Int("backlog-mb", 114, "MB of backlog caught up after a restart (0 skips)")
	calls := fs.Int("turn-calls", 1000, "tool calls in the long turn whose journal is measured (0 skips)")
	codexWS := fs.Int("codex-sessions", 200, "plain Codex sessions for the Codex line → event run, 10 prompts/s each (0 skips)")
	codexLines := fs.Int("codex-lines", 50, "prompts each Codex session appends")
	browseEntries := fs.Int("browse-entries", 200, "entries a stand-in gstack browse server makes, at 20/s, timed to their browse events (0 skips)")
	working := fs.Int("working-agents", 10, "of the live workspaces, how many have an agent writing 10 lines/s (paced-lines each) while the bridge's whole CPU is measured (0 skips)")
	profile := fs.String("cpu-profile", "", "write a Go CPU profile of the live, real-home, Codex and Conductor-rows bridges to this folder (live.pprof, home.pprof, codex.pprof, rows.pprof), for `go tool pprof`")
	homeConductor := fs.Int("home-conductor", 50, "real home idle run: Conductor workspaces, two tabs each (the run is skipped when this, -home-projects and -home-rollouts are all 0)")
	homeProjects := fs.Int("home-projects", 300, "real home idle run: plain Claude Code projects of 1–5 sessions each")
	homeRollouts := fs.Int("home-rollouts", 100, "real home idle run: Codex rollouts over the last 50 days")
	homeFirst := fs.Duration("home-first", time.Minute, "real home idle run: the first window, from the moment the bridge has caught up (0 skips it)")
	homeSteadyAt := fs.Duration("home-steady-at", 2*time.Minute, "real home idle run: when the steady window begins, after the bridge has caught up (past the scan's and sweep's back-off)")
	homeSteady := fs.Duration("home-steady", time.Minute, "real home idle run: how long the steady window lasts (0 skips it)")
	homeNew := fs.Int("home-new", 20, "real home run, after the idle windows: new sessions begun at random moments of -home-new-window (Claude in known and new folders, Codex in new ones), each timed until /api/workspaces lists it (0 skips it)")
	homeNewWindow := fs.Duration("home-new-window", time.Minute, "real home run: the window the new sessions begin in")
	conductorTabs := fs.Int("conductor-tabs", 20, "Conductor tabs read from its own record (session_messages), 10 frames/s each, timed from commit to event (0 skips)")
	conductorFrames := fs.Int("conductor-frames", 50, "frames each Conductor tab commits")
	conductorHistory := fs.Int("conductor-history", 100000, "rows of other tabs already in session_messages, in the -conductor-tabs and -row-tabs runs")
	rowTabs := fs.Int("row-tabs", 20, "Cursor tabs a real bridge streams from Conductor's session_messages, each committing a row every -row-every, timed from commit to SSE event (0 skips)")
	rowRows := fs.Int("row-rows", 50, "rows each of those tabs commits")
	rowEvery := fs.Duration("row-every", 100*time.Millisecond, "how often each of those tabs commits a row")
	usageMB := fs.Int("usage-mb", 2048, "MB of history read by the usage command and by ccusage side by side (0 skips)")
	ccusage := fs.String("ccusage", "", "the ccusage to compare with (default: "+ccusagePinned+", else the one on PATH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *exe == "" {
		var err error
		if *exe, err = os.Executable(); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "conductor-bridge-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	serveFlags := func(name string) []string {
		if *profile == "" {
			return nil
		}
		return []string{"--cpu-profile", filepath.Join(*profile, name+".pprof")}
	}
	r := &benchReport{Version: version(), OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU()}
	steps := []struct {
		name string
		skip bool
		run  func() error
	}{
		{"parse", *parseMB <= 0, func() error { return benchParse(r, *parseMB) }},
		{"codex parse", *parseMB <= 0, func() error { return benchCodexParse(r, *parseMB) }},
		{"live", *live <= 0, func() error {
			return runBenchLive(ctx, r, *exe, filepath.Join(tmp, "live"), benchLive{
				workspaces: *live, sessions: *liveSessions, idle: *idle, settle: *settle, pacedLines: *paced,
				burstWS: *burstWS, burstSubs: *burstSubs, burstLines: *burstLines,
				fanSubs: *fanSubs, fanLines: *fanLines, fanInterval: 20 * time.Millisecond,
				working: *working, serve: serveFlags("live")})
		}},
		{"real home", *homeConductor+*homeProjects+*homeRollouts <= 0 || *homeFirst+*homeSteady <= 0, func() error {
			return runBenchRealHome(ctx, r, *exe, filepath.Join(tmp, "home"), benchRealHome{
				conductor: max(0, *homeConductor), projects: max(0, *homeProjects), rollouts: max(0, *homeRollouts),
				first: *homeFirst, steadyAt: max(*homeSteadyAt, *homeFirst), steady: *homeSteady,
				newSessions: max(0, *homeNew), newWindow: *homeNewWindow}, serveFlags("home")...)
		}},
		{"cold start", *coldWS <= 0, func() error {
			return runBenchScale(ctx, r, *exe, filepath.Join(tmp, "cold"), *coldWS, max(1, *coldSessions), *coldMB, max(1, *apiCalls))
		}},
		{"codex", *codexWS <= 0 || *codexLines <= 0, func() error {
			return runBenchCodex(ctx, r, *exe, filepath.Join(tmp, "codex"), *codexWS, *codexLines, serveFlags("codex")...)
		}},
		{"backlog", *backlogMB <= 0, func() error { return runBenchBacklog(ctx, r, *exe, filepath.Join(tmp, "backlog"), *backlogMB) }},
		{"journal", *calls <= 0, func() error { return runBenchJournal(ctx, r, *exe, filepath.Join(tmp, "journal"), *calls) }},
		{"browse", *browseEntries <= 0, func() error {
			return runBenchBrowse(ctx, r, *exe, filepath.Join(tmp, "browse"), *browseEntries, 20)
		}},
		{"conductor record", *conductorTabs <= 0 || *conductorFrames <= 0, func() error {
			return runBenchConductor(ctx, r, filepath.Join(tmp, "conductor"),
				benchConductor{tabs: *conductorTabs, frames: *conductorFrames, history: max(0, *conductorHistory)})
		}},
		{"conductor rows", *rowTabs <= 0 || *rowRows <= 0 || *rowEvery <= 0, func() error {
			return runBenchRows(ctx, r, *exe, filepath.Join(tmp, "rows"), benchRows{tabs: *rowTabs, rows: *rowRows, every: *rowEvery, history: max(0, *conductorHistory)}, serveFlags("rows")...)
		}},
		{"usage", *usageMB <= 0, func() error { return runBenchUsage(ctx, r, *exe, *ccusage, filepath.Join(tmp, "usage"), *usageMB) }},
	}
	for _, st := range steps {
		if st.skip {
			continue
		}
		fmt.Fprintf(stderr, "bench: %s…\n", st.name)
		if err := st.run(); err != nil {
			return fmt.Errorf("%s benchmark: %w", st.name, err)
		}
	}
	if *asJSON {
		return r.writeJSON(stdout)
	}
	return r.writeTable(stdout)
}

func benchParse(r *benchReport, mb int) error {
	var buf bytes.Buffer
	s := synth.New(&buf, "0123456789abcdef", "/Users/me/conductor/workspaces/app/tokyo", 1)
	for i := 0; buf.Len() < mb<<20; i++ {
		if err := s.Turn("fix the failing test " + strconv.Itoa(i)); err != nil {
			return err
		}
	}
	var p transcript.Parser
	events, bad, el := parseAll(buf.Bytes(), p.Line)
	r.add("parse", float64(buf.Len())/(1<<20)/el.Seconds(), "MB/s",
		fmt.Sprintf("%d MB of synthetic transcript on one core, %d events, %d bad lines", buf.Len()>>20, events, bad))
	return nil
}

// parseAll feeds every line of data to parse, as the engine does, and
// returns the events made, the lines refused and the time it took.
func parseAll(data []byte, parse func([]byte, []event.Event) ([]event.Event, error)) (events, bad int, el time.Duration) {
	var out []event.Event
	start := time.Now()
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		var err error
		out, err = parse(data[:i], out[:0])
		if err != nil {
			bad++
		}
		events += len(out)
		data = data[min(i+1, len(data)):]
	}
	return events, bad, time.Since(start)
}

// waitWorkspaces waits until n workspaces each have a session: it asks
// /health whether the bridge has caught up, every 5 ms, and only then
// lists the workspaces to check them. Listing a thousand workspaces every
// 5 ms instead would cost the bridge half a core while it starts, and
// that is what the cold start would measure. token is read on each try: a
// bridge just started may not have made it yet.
func waitWorkspaces(ctx context.Context, cl *bridgeClient, token func() string, n int, limit time.Duration) ([]string, error) {
	deadline := time.Now().Add(limit)
	caughtUp := false
	var list []apiWorkspace
	for {
		if !caughtUp {
			var h struct {
				CaughtUp bool `json:"caught_up"`
			}
			caughtUp = getJSON(ctx, cl, "/health", "", &h) == nil && h.CaughtUp
		}
		if caughtUp {
			var err error
			if list, err = listWorkspaces(ctx, cl, token()); err == nil {
				var ids []string
				for _, ws := range list {
					if ws.LastEventID > 0 {
						ids = append(ids, ws.ID)
					}
				}
				if len(ids) >= n {
					return ids, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d workspaces ready after %v (caught up: %v)", len(list), n, limit, caughtUp)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// residentKB reads a process's resident set size: /proc on Linux, ps elsewhere.
func residentKB(pid int) int64 {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	out, err := exec.Command("ps", "-o", "rss=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return n
}

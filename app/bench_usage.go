package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/transcript/synth"
)

// ccusagePinned is where CI installs the ccusage release the bench
// compares against (.ci/run); without it, one on PATH is used.
const ccusagePinned = "/opt/ccusage-20.0.24/node_modules/.bin/ccusage"

// tokscalePinned is where CI installs tokscale's native binary (.ci/run):
// a tool that, like the bridge, caches what each file gave.
const tokscalePinned = "/opt/tokscale-4.17.0/node_modules/@tokscale/cli-linux-x64-gnu/bin/tokscale"

// benchUsageWorkspaces is how many workspaces the usage corpus spreads over.
const benchUsageWorkspaces = 8

// benchUsageRuns is how many times each kind of run is measured.
const benchUsageRuns = 3

// benchAppend is what is appended to one session before each run after
// an append.
const benchAppend = 1 << 20

// usageRun is one measured run.
type usageRun struct {
	out  []byte
	wall time.Duration
	rss  int64 // KB
}

// usageRuns measures n runs of the command mk makes, calling before
// ahead of each.
func usageRuns(mk func() *exec.Cmd, before func() error) ([]usageRun, error) {
	var runs []usageRun
	for range benchUsageRuns {
		if before != nil {
			if err := before(); err != nil {
				return nil, err
			}
		}
		out, wall, rss, err := measureRun(mk())
		if err != nil {
			return nil, err
		}
		runs = append(runs, usageRun{out, wall, rss})
	}
	return runs, nil
}

// median is the middle run's wall time, and every run's wall time and
// peak memory in words.
func median(runs []usageRun, unit time.Duration) (float64, string) {
	walls := make([]time.Duration, len(runs))
	var each, mem []string
	for i, r := range runs {
		walls[i] = r.wall
		each = append(each, formatFigure(float64(r.wall)/float64(unit)))
		mem = append(mem, formatFigure(float64(r.rss)/1024))
	}
	slices.Sort(walls)
	return float64(walls[len(walls)/2]) / float64(unit), "runs " + strings.Join(each, ", ") + "; peak RSS " + strings.Join(mem, ", ") + " MB"
}

func peakOf(runs []usageRun) int64 {
	var kb int64
	for _, r := range runs {
		kb = max(kb, r.rss)
	}
	return kb
}

// runBenchUsage reads a generated history of mb MB with `usage --json`
// three ways — cold (no cache), warm (nothing changed) and after 1 MB was
// appended to one session — and with ccusage (daily --json --offline) and
// tokscale (which caches too) side by side: wall time, MB/s and peak
// resident memory of each, as separate processes on the same warm files,
// three runs each, and what each counted.
func runBenchUsage(ctx context.Context, r *benchReport, exe, ccusage, dir string, mb int) error {
	home := filepath.Join(dir, "home")
	files, size, err := writeUsageCorpus(home, mb)
	if err != nil {
		return err
	}
	flushWrites()
	emptyCodex := filepath.Join(dir, "codex")
	os.MkdirAll(emptyCodex, 0o755)
	state := filepath.Join(dir, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return err
	}
	env := append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "CODEX_HOME="+emptyCodex, "XDG_STATE_HOME=")
	what := fmt.Sprintf("%d MB, %d transcript files (sessions and their subagents) in %d workspaces, %d CPUs", size>>20, files, benchUsageWorkspaces, runtime.NumCPU())

	bridge := func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, exe, "usage", "--json", "--tz", "UTC", "--home", home, "--state-dir", state)
		cmd.Env = env
		return cmd
	}
	cache := filepath.Join(state, "usage.cache")
	cold, err := usageRuns(bridge, func() error { return removeIfThere(cache) })
	if err != nil {
		return fmt.Errorf("conductor-bridge usage: %w", err)
	}
	var rep struct {
		Total struct {
			TotalTokens int64   `json:"total_tokens"`
			CostUSD     float64 `json:"cost_usd"`
			Turns       int     `json:"turns"`
		} `json:"total"`
	}
	if err := json.Unmarshal(cold[0].out, &rep); err != nil {
		return fmt.Errorf("conductor-bridge usage --json: %w", err)
	}
	counted := fmt.Sprintf("; counted %d tokens, $%.2f in %d turns", rep.Total.TotalTokens, rep.Total.CostUSD, rep.Total.Turns)
	coldS, coldRuns := median(cold, time.Second)
	r.add("usage: bridge wall time", coldS, "s", what+"; cold (no cache): "+coldRuns+counted)
	r.add("usage: bridge throughput", float64(size)/(1<<20)/coldS, "MB/s", what+"; cold")
	r.addKB("usage: bridge peak RSS", peakOf(cold), what+"; cold")

	warm, err := usageRuns(bridge, nil)
	if err != nil {
		return fmt.Errorf("conductor-bridge usage, warm: %w", err)
	}
	for _, w := range warm {
		if !bytes.Equal(w.out, cold[0].out) {
			return fmt.Errorf("conductor-bridge usage: the warm run's report differs from the cold run's")
		}
	}
	warmMS, warmRuns := median(warm, time.Millisecond)
	r.add("usage: bridge warm wall time", warmMS, "ms", what+"; the cache in place, nothing changed: "+warmRuns)
	r.addKB("usage: bridge warm peak RSS", peakOf(warm), what+"; warm")
	if info, err := os.Stat(cache); err == nil {
		r.add("usage: cache size", float64(info.Size())/(1<<20), "MB", fmt.Sprintf("%s; %.2f %% of the history", what, 100*float64(info.Size())/float64(size)))
	}
	grow, err := biggestSession(home)
	if err != nil {
		return err
	}
	appended := 0
	appendMB := func() error {
		appended++
		return appendUsageSession(grow, appended)
	}
	after, err := usageRuns(bridge, appendMB)
	if err != nil {
		return fmt.Errorf("conductor-bridge usage, after an append: %w", err)
	}
	afterMS, afterRuns := median(after, time.Millisecond)
	r.add("usage: bridge wall time after a 1 MB append", afterMS, "ms", what+"; 1 MB of turns appended to one session before each run: "+afterRuns)
	r.addKB("usage: bridge after-append peak RSS", peakOf(after), what+"; after an append")
	// The others read the grown history: the same for all.
	r.benchCcusage(ctx, ccusage, env, what, coldS, warmMS)
	r.benchTokscale(ctx, env, home, what, grow, &appended, coldS, warmMS)
	return nil
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// benchCcusage runs ccusage three times (it keeps no cache: each run is cold).
func (r *benchReport) benchCcusage(ctx context.Context, ccusage string, env []string, what string, coldS, warmMS float64) {
	cc := ccusage
	if cc == "" {
		cc = ccusagePinned // the pinned release; whatever is on PATH may be another
		if _, err := os.Stat(cc); err != nil {
			if p, err := exec.LookPath("ccusage"); err == nil {
				cc = p
			}
		}
	}
	verOut, err := exec.CommandContext(ctx, cc, "--version").Output()
	if err != nil {
		r.unknown("usage: ccusage wall time", "s", "no working ccusage at "+cc+" (.ci/run installs "+ccusagePinned+")")
		return
	}
	ver := strings.TrimSpace(string(verOut))
	runs, err := usageRuns(func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, cc, "daily", "--json", "--offline", "--timezone", "UTC")
		cmd.Env = env
		return cmd
	}, nil)
	if err != nil {
		r.unknown("usage: ccusage wall time", "s", ver+": "+err.Error())
		return
	}
	var ccRep struct {
		Totals struct {
			TotalTokens int64   `json:"totalTokens"`
			TotalCost   float64 `json:"totalCost"`
		} `json:"totals"`
	}
	json.Unmarshal(runs[0].out, &ccRep)
	ccWhat := what + "; " + ver + " daily --json --offline"
	s, each := median(runs, time.Second)
	r.add("usage: ccusage wall time", s, "s", ccWhat+": "+each+fmt.Sprintf("; counted %d tokens, $%.2f", ccRep.Totals.TotalTokens, ccRep.Totals.TotalCost))
	r.addKB("usage: ccusage peak RSS", peakOf(runs), ccWhat)
	r.add("usage: ccusage time / bridge time", s/coldS, "×", ccWhat+"; the bridge cold")
	r.add("usage: ccusage time / bridge warm time", s*1000/warmMS, "×", ccWhat+"; the bridge warm")
}

// benchTokscale runs tokscale cold (its cache removed), warm and after an
// append, three times each, where it is installed.
func (r *benchReport) benchTokscale(ctx context.Context, env []string, home, what, grow string, appended *int, coldS, warmMS float64) {
	tk := tokscalePinned
	if _, err := os.Stat(tk); err != nil {
		p, err := exec.LookPath("tokscale")
		if err != nil {
			r.unknown("usage: tokscale wall time", "s", "no tokscale at "+tokscalePinned+" (.ci/run installs it)")
			return
		}
		tk = p
	}
	verOut, err := exec.CommandContext(ctx, tk, "--version").Output()
	if err != nil {
		r.unknown("usage: tokscale wall time", "s", "tokscale at "+tk+" does not run: "+err.Error())
		return
	}
	ver := strings.TrimSpace(string(verOut))
	mk := func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, tk, "models", "--json", "-c", "claude")
		cmd.Env = env
		return cmd
	}
	tkWhat := what + "; " + ver + " models --json -c claude (offline: its price fetches fail at once)"
	cacheDir := filepath.Join(home, ".config", "tokscale", "cache")
	// Cold, warm and after an append; cold and warm also as a ratio to
	// the bridge's own.
	for _, run := range []struct {
		name, unit string
		scale      time.Duration
		before     func() error
		how        string
		ratio      string // "" sets none
		bridge     float64
		both       string
	}{
		{"usage: tokscale wall time", "s", time.Second, func() error { return os.RemoveAll(cacheDir) },
			"cold (its cache removed)", "usage: tokscale time / bridge time", coldS, "both cold"},
		{"usage: tokscale warm wall time", "ms", time.Millisecond, nil,
			"warm", "usage: tokscale warm time / bridge warm time", warmMS, "both warm"},
		{"usage: tokscale wall time after a 1 MB append", "ms", time.Millisecond, func() error { *appended++; return appendUsageSession(grow, *appended) },
			"1 MB appended to one session before each run", "", 0, ""},
	} {
		runs, err := usageRuns(mk, run.before)
		if err != nil {
			r.unknown(run.name, run.unit, tkWhat+": "+err.Error())
			return
		}
		v, each := median(runs, run.scale)
		r.add(run.name, v, run.unit, tkWhat+"; "+run.how+": "+each)
		if run.ratio != "" {
			r.add(run.ratio, v/run.bridge, "×", tkWhat+"; "+run.both)
		}
	}
}

// biggestSession is the largest session file of the corpus: the one a
// long-running agent keeps writing.
func biggestSession(home string) (string, error) {
	var best string
	var most int64
	err := filepath.WalkDir(filepath.Join(home, ".claude", "projects"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(path)) == "subagents" {
			return err
		}
		if info, err := d.Info(); err == nil && info.Size() > most {
			best, most = path, info.Size()
		}
		return nil
	})
	if best == "" && err == nil {
		err = fmt.Errorf("no session file in %s", home)
	}
	return best, err
}

// appendUsageSession appends about 1 MB of new turns to the session file
// path, later than anything in it (the nth append, an hour apart): as an
// agent at work writes.
func appendUsageSession(path string, n int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var first struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	if i := bytes.IndexByte(b, '\n'); i > 0 {
		json.Unmarshal(b[:i], &first)
	}
	if first.SessionID == "" {
		return fmt.Errorf("%s: no session id in its first line", path)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	cw := &countWriter{w: w}
	s := synth.New(cw, first.SessionID, first.Cwd, uint64(n)<<40)
	s.Continue(bytes.Count(b, []byte("\n")) + 1)
	s.Now = time.Date(2027, 1, 1, n, 0, 0, 0, time.UTC)
	for t := 0; cw.n < benchAppend; t++ {
		if err := s.Turn("and now the next test " + strconv.Itoa(t)); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// measureRun runs cmd to its end and returns its stdout, wall time and
// peak resident memory in KB (0: unknown on this system). The peak is the
// largest resident memory of the process and its own children together,
// sampled while it runs: the rusage of a child on Linux also counts the
// bench's own memory, which the child shared between fork and exec, and
// misses a worker the tool starts.
func measureRun(cmd *exec.Cmd) ([]byte, time.Duration, int64, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, 0, err
	}
	var peak atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if kb := max(treeResidentKB(cmd.Process.Pid), peakResidentKB(cmd.Process.Pid)); kb > peak.Load() {
				peak.Store(kb)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	<-sampled
	if err != nil {
		return nil, wall, 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	rss := peak.Load()
	if rss == 0 {
		rss = maxRSSKB(cmd.ProcessState)
	}
	return out.Bytes(), wall, rss, nil
}

// writeUsageCorpus writes about mb MB of Claude Code sessions under
// home/.claude/projects, spread over a few workspaces, 16 MB a session
// with its subagent's file.
func writeUsageCorpus(home string, mb int) (files int, size int64, err error) {
	const perFile = 16 << 20
	projects := filepath.Join(home, ".claude", "projects")
	for i := 0; size < int64(mb)<<20; i++ {
		cwd := fmt.Sprintf("/Users/me/conductor/workspaces/app/ws%d", i%benchUsageWorkspaces)
		dir := filepath.Join(projects, claude.EncodeProjectDir(cwd))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return files, size, err
		}
		// Distinct first 8 characters: synth derives message ids from them,
		// and ccusage counts a message id once across all files.
		sid := fmt.Sprintf("%08x-1111-4111-8111-%012x", i, i)
		left := int64(mb)<<20 - size
		main := min(int64(perFile)*7/8, left)
		n, err := writeUsageSession(filepath.Join(dir, sid+".jsonl"), sid, cwd, uint64(i+1), main)
		files, size = files+1, size+n
		if err != nil || size >= int64(mb)<<20 {
			return files, size, err
		}
		// Its subagent (2.1's layout), read in time order with it.
		agent := fmt.Sprintf("a%07x-2222-4222-8222-%012x", i, i)
		n, err = writeUsageSession(filepath.Join(dir, sid, "subagents", "agent-"+agent[:8]+".jsonl"), agent, cwd, uint64(i+1)<<32, min(int64(perFile)/8, int64(mb)<<20-size))
		files, size = files+1, size+n
		if err != nil {
			return files, size, err
		}
	}
	return files, size, nil
}

// writeUsageSession writes synthetic turns to path until it holds want bytes.
func writeUsageSession(path, sid, cwd string, seed uint64, want int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	cw := &countWriter{w: w}
	s := synth.New(cw, sid, cwd, seed)
	for t := 0; cw.n < want; t++ {
		if err := s.Turn("fix the failing test " + strconv.Itoa(t)); err != nil {
			return cw.n, err
		}
	}
	if err := w.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, f.Close()
}

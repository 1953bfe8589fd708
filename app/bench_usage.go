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
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/transcript/synth"
)

// ccusagePinned is where CI installs the ccusage release the bench
// compares against (.ci/run); without it, one on PATH is used.
const ccusagePinned = "/opt/ccusage-20.0.24/node_modules/.bin/ccusage"

// benchUsageWorkspaces is how many workspaces the usage corpus spreads over.
const benchUsageWorkspaces = 8

// runBenchUsage reads a generated history of mb MB with `usage --json` and
// with ccusage (daily --json --offline) side by side: wall time, MB/s and
// peak resident memory of each, as separate processes on the same warm
// files, and what each counted.
func runBenchUsage(ctx context.Context, r *benchReport, exe, ccusage, dir string, mb int) error {
	home := filepath.Join(dir, "home")
	files, size, err := writeUsageCorpus(home, mb)
	if err != nil {
		return err
	}
	flushWrites()
	emptyCodex := filepath.Join(dir, "codex")
	os.MkdirAll(emptyCodex, 0o755)
	env := append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"), "CODEX_HOME="+emptyCodex, "XDG_STATE_HOME=")
	what := fmt.Sprintf("%d MB, %d transcript files (sessions and their subagents) in %d workspaces, %d CPUs", size>>20, files, benchUsageWorkspaces, runtime.NumCPU())

	bridge := exec.CommandContext(ctx, exe, "usage", "--json", "--tz", "UTC", "--home", home)
	bridge.Env = env
	bOut, bWall, bRSS, err := measureRun(bridge)
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
	if err := json.Unmarshal(bOut, &rep); err != nil {
		return fmt.Errorf("conductor-bridge usage --json: %w", err)
	}
	counted := fmt.Sprintf("; counted %d tokens, $%.2f in %d turns", rep.Total.TotalTokens, rep.Total.CostUSD, rep.Total.Turns)
	r.add("usage: bridge wall time", bWall.Seconds(), "s", what+counted)
	r.add("usage: bridge throughput", float64(size)/(1<<20)/bWall.Seconds(), "MB/s", what)
	r.addKB("usage: bridge peak RSS", bRSS, what)

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
		return nil
	}
	ver := strings.TrimSpace(string(verOut))
	ccCmd := exec.CommandContext(ctx, cc, "daily", "--json", "--offline", "--timezone", "UTC")
	ccCmd.Env = env
	cOut, cWall, cRSS, err := measureRun(ccCmd)
	if err != nil {
		return fmt.Errorf("%s: %w", ver, err)
	}
	var ccRep struct {
		Totals struct {
			TotalTokens int64   `json:"totalTokens"`
			TotalCost   float64 `json:"totalCost"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(cOut, &ccRep); err != nil {
		return fmt.Errorf("%s daily --json: %w", ver, err)
	}
	ccWhat := what + "; " + ver + " daily --json --offline"
	r.add("usage: ccusage wall time", cWall.Seconds(), "s", ccWhat+fmt.Sprintf("; counted %d tokens, $%.2f", ccRep.Totals.TotalTokens, ccRep.Totals.TotalCost))
	r.add("usage: ccusage throughput", float64(size)/(1<<20)/cWall.Seconds(), "MB/s", ccWhat)
	r.addKB("usage: ccusage peak RSS", cRSS, ccWhat)
	r.add("usage: ccusage time / bridge time", cWall.Seconds()/bWall.Seconds(), "×", ccWhat)
	return nil
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
		dir := filepath.Join(projects, discover.EncodeProjectDir(cwd))
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

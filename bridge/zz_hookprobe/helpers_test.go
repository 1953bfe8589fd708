package zz_hookprobe

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/claudetest"
	"conductorbridge/bridge/fakemodel"
)

var allVersions = []string{claudetest.Latest, "2.0.77", "1.0.128"}

type env struct {
	t       *testing.T
	version string
	bin     string
	home    string
	dir     string
	hookDir string
	logDir  string
}

func newEnv(t *testing.T, version string) *env {
	e := &env{t: t, version: version, bin: claudetest.Find(t, version)}
	e.home = t.TempDir()
	e.dir = filepath.Join(e.home, "work", "demo")
	e.hookDir = t.TempDir()
	e.logDir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := claudetest.PrepareHome(e.home, e.dir); err != nil {
		t.Fatal(err)
	}
	return e
}

// script writes a hook script; its prelude logs stdin to logDir/<name>.jsonl
// and a timestamped line to logDir/order.log. $IN holds stdin.
func (e *env) script(name, body string) string {
	p := filepath.Join(e.hookDir, name+".sh")
	pre := fmt.Sprintf(`#!/bin/bash
LOG=%q
IN=$(cat)
printf '%%s\n' "$IN" >> "$LOG/%s.jsonl"
echo "$(date +%%s.%%N) start %s pid=$$" >> "$LOG/order.log"
`, e.logDir, name, name)
	if err := os.WriteFile(p, []byte(pre+body+"\n"), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func writeJSON(t *testing.T, path string, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s:\n%s", path, data)
}

func (e *env) projectSettings(v any) {
	writeJSON(e.t, filepath.Join(e.dir, ".claude", "settings.local.json"), v)
}
func (e *env) userSettings(v any) {
	writeJSON(e.t, filepath.Join(e.home, ".claude", "settings.json"), v)
}

func (e *env) opts(fm *fakemodel.Server) claudetest.Options {
	return claudetest.Options{Bin: e.bin, BaseURL: fm.URL(), Home: e.home, Dir: e.dir}
}

func (e *env) logFile(name string) string {
	data, _ := os.ReadFile(filepath.Join(e.logDir, name))
	return string(data)
}

func (e *env) dumpLogs() {
	ents, _ := os.ReadDir(e.logDir)
	names := []string{}
	for _, en := range ents {
		names = append(names, en.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		e.t.Logf("=== hook log %s:\n%s", n, e.logFile(n))
	}
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// dumpTranscript logs every line (raw, truncated) of the transcript.
func dumpTranscript(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Logf("transcript %s: %v", path, err)
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	i := 0
	t.Logf("=== transcript %s", path)
	for sc.Scan() {
		i++
		line := sc.Text()
		if noisy(line) {
			continue
		}
		t.Logf("T%02d %s", i, trunc(line, 2500))
	}
}

func dumpRequests(t *testing.T, fm *fakemodel.Server) {
	for _, r := range fm.Requests() {
		if r.Kind != fakemodel.KindMain {
			t.Logf("R%02d %s %s kind=%s last=%.80q", r.Seq, r.Method, r.Path, r.Kind, r.LastUserText())
			continue
		}
		var raw struct {
			Messages []json.RawMessage `json:"messages"`
		}
		_ = json.Unmarshal(r.Raw, &raw)
		t.Logf("R%02d main at %s, %d messages; last:", r.Seq, r.Time.Format("15:04:05.000"), len(raw.Messages))
		for i := max(0, len(raw.Messages)-3); i < len(raw.Messages); i++ {
			t.Logf("    m[%d] %s", i, trunc(string(raw.Messages[i]), 4000))
		}
	}
}

func dumpEvents(t *testing.T, s *claudetest.Session) {
	for i, ev := range s.Events() {
		t.Logf("E%02d %s", i, trunc(string(ev.Raw), 1500))
	}
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func hookCmd(cmd string, extra map[string]any) map[string]any {
	h := map[string]any{"type": "command", "command": cmd}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

func group(matcher string, hooks ...map[string]any) map[string]any {
	g := map[string]any{"hooks": hooks}
	if matcher != "" {
		g["matcher"] = matcher
	}
	return g
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// noisy reports transcript lines irrelevant to hooks.
func noisy(line string) bool {
	var r struct {
		Type       string `json:"type"`
		Attachment struct {
			Type string `json:"type"`
		} `json:"attachment"`
	}
	_ = json.Unmarshal([]byte(line), &r)
	switch r.Type {
	case "api-request", "api-request-shape", "atis-latch", "last-prompt", "cost-state", "queue-operation", "summary", "file-history-snapshot":
		return true
	case "attachment":
		switch r.Attachment.Type {
		case "environment", "model", "deferred_tools_delta", "agent_listing_delta", "skill_listing", "prompt_snapshot", "date", "session_context", "remote_session_change":
			return true
		}
	}
	return false
}

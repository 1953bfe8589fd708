package usage

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ccusagePinned is the ccusage release README.md compares with (.ci/run
// installs it).
const ccusagePinned = "/opt/ccusage-20.0.24/node_modules/.bin/ccusage"

// findCcusage returns the pinned ccusage, or skips (fails under CI=true).
func findCcusage(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(ccusagePinned); err == nil {
		return ccusagePinned
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("ccusage is not installed at %s (.ci/run installs it)", ccusagePinned)
	}
	t.Skipf("ccusage not installed at %s; the bridge's side is checked without it", ccusagePinned)
	return ""
}

const (
	sid1 = "0a0a0a0a-1111-4111-8111-000000000001"
	sid2 = "0a0a0a0a-1111-4111-8111-000000000002"
)

// line is one assistant line as Claude Code 2.1 writes it (compact JSON,
// millisecond timestamps); usage is the JSON of message.usage.
func line(sid, ts, msgID, reqID, usage string) string {
	req := ""
	if reqID != "" {
		req = `"requestId":"` + reqID + `",`
	}
	return `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"` + sid + `","version":"2.1.328",` +
		`"type":"assistant",` + req + `"uuid":"u-` + msgID + ts + `","timestamp":"` + ts + `","message":{"id":"` + msgID +
		`","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"x"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":` + usage + `}}`
}

func use(in, out int64) string { return fmt.Sprintf(`{"input_tokens":%d,"output_tokens":%d}`, in, out) }

// TestWhereCcusageDisagrees keeps README.md's table true: each case is
// read by the bridge (the figures worked out by hand: Sonnet 4.5, $3/M
// input, $15/M output, $6/M input over 200k, $6/M and $12/M for 1-hour
// cache writes) and, where it is installed, by ccusage 20.0.24.
func TestWhereCcusageDisagrees(t *testing.T) {
	const t0, t1 = "2026-12-02T10:00:00.000Z", "2026-12-02T10:00:01.000Z"
	for _, tt := range []struct {
		name           string
		files          map[string][]string
		bridgeIn       int64
		bridgeOut      int64
		bridgeUSD      float64
		ccIn, ccOut    int64
		ccUSD          float64
		ccCacheWrite   int64
		bridgeCacheWrt int64
	}{
		{"no requestId in two lines", map[string][]string{sid1 + ".jsonl": {line(sid1, t0, "m1", "", use(100, 20)), line(sid1, t1, "m1", "", use(100, 20))}},
			100, 20, 0.0006, 200, 40, 0.0012, 0, 0},
		{"output 1 then 20", map[string][]string{sid1 + ".jsonl": {line(sid1, t0, "m1", "r1", use(100, 1)), line(sid1, t1, "m1", "r1", use(100, 20))}},
			100, 20, 0.0006, 100, 20, 0.0006, 0, 0},
		{"output 20 then 1", map[string][]string{sid1 + ".jsonl": {line(sid1, t0, "m1", "r1", use(100, 20)), line(sid1, t1, "m1", "r1", use(100, 1))}},
			100, 20, 0.0006, 100, 20, 0.0006, 0, 0},
		{"one response in two sessions", map[string][]string{sid1 + ".jsonl": {line(sid1, t0, "m1", "r1", use(100, 20))}, sid2 + ".jsonl": {line(sid2, t0, "m1", "r1", use(100, 20))}},
			200, 40, 0.0012, 100, 20, 0.0006, 0, 0},
		{"300k input", map[string][]string{sid1 + ".jsonl": {line(sid1, t0, "m1", "r1", use(300_000, 0))}},
			300_000, 0, 1.80, 300_000, 0, 1.20, 0, 0},
		{"1M written for an hour", map[string][]string{sid1 + ".jsonl": {line(sid1, t0, "m1", "r1",
			`{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":1000000,"cache_creation":{"ephemeral_1h_input_tokens":1000000,"ephemeral_5m_input_tokens":0}}`)}},
			0, 0, 12.00, 0, 0, 10.80, 1_000_000, 1_000_000},
		{"a split that says 0 + 0", map[string][]string{sid1 + ".jsonl": {line(sid1, t0, "m1", "r1",
			`{"input_tokens":100,"output_tokens":0,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}}`)}},
			100, 0, 0.00405, 100, 0, 0.0003, 0, 1000},
		{"centisecond timestamp", map[string][]string{sid1 + ".jsonl": {line(sid1, "2026-12-02T10:00:13.05Z", "m1", "r1", use(100, 20))}},
			100, 20, 0.0006, 0, 0, 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir() // ccusage splits CLAUDE_CONFIG_DIR at commas: none in the names
			proj := filepath.Join(root, ".claude", "projects", "-w")
			for name, lines := range tt.files {
				os.MkdirAll(proj, 0o755)
				if err := os.WriteFile(filepath.Join(proj, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h, err := Source{Formats: agentsAt(filepath.Dir(proj), "")}.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			rep := summarize(t, h, Query{Loc: time.UTC})
			u := rep.Total.Usage
			if u.InputTokens != tt.bridgeIn || u.OutputTokens != tt.bridgeOut || u.CacheCreationTokens != tt.bridgeCacheWrt ||
				math.Abs(rep.Total.CostUSD-tt.bridgeUSD) > 1e-9 {
				t.Errorf("bridge: in %d out %d write %d $%.6f, want in %d out %d write %d $%.6f", u.InputTokens, u.OutputTokens,
					u.CacheCreationTokens, rep.Total.CostUSD, tt.bridgeIn, tt.bridgeOut, tt.bridgeCacheWrt, tt.bridgeUSD)
			}
			cc := findCcusage(t)
			cmd := exec.Command(cc, "daily", "--json", "--offline", "--timezone", "UTC")
			cmd.Env = append(os.Environ(), "HOME="+root, "CLAUDE_CONFIG_DIR="+filepath.Join(root, ".claude"), "CODEX_HOME="+filepath.Join(root, "codex"))
			out, err := cmd.Output()
			var got struct {
				Totals struct {
					InputTokens, OutputTokens, CacheCreationTokens int64
					TotalCost                                      float64
				}
			}
			if tt.ccIn == 0 && tt.ccOut == 0 && tt.ccCacheWrite == 0 {
				// Nothing counted: ccusage may say so as text, not JSON.
				json.Unmarshal(out, &got)
			} else if err != nil || json.Unmarshal(out, &got) != nil {
				t.Fatalf("ccusage: %v %s", err, out)
			}
			c := got.Totals
			if c.InputTokens != tt.ccIn || c.OutputTokens != tt.ccOut || c.CacheCreationTokens != tt.ccCacheWrite || math.Abs(c.TotalCost-tt.ccUSD) > 1e-9 {
				t.Errorf("ccusage: in %d out %d write %d $%.6f, README says in %d out %d write %d $%.6f", c.InputTokens, c.OutputTokens,
					c.CacheCreationTokens, c.TotalCost, tt.ccIn, tt.ccOut, tt.ccCacheWrite, tt.ccUSD)
			}
		})
	}
}

package usage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24, finding 11, for the usage report: one line with negative
// counts pushed the whole history's totals down. It counts as nothing;
// the day's totals are its other turns'.
func TestNegativeCountsNeverPushTotalsDown(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	dir := filepath.Join(projects, "-w-tokyo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prompt := func(ts string) string {
		return `{"type":"user","sessionId":"s1","cwd":"/w/tokyo","timestamp":"` + ts + `","message":{"role":"user","content":"go"}}`
	}
	answer := func(ts, id, usage string) string {
		return `{"type":"assistant","sessionId":"s1","cwd":"/w/tokyo","timestamp":"` + ts + `","requestId":"r-` + id + `","message":{"id":"` + id +
			`","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":` + usage + `,"content":[{"type":"text","text":"ok"}]}}`
	}
	lines := []string{
		prompt("2026-12-02T10:00:00.000Z"), answer("2026-12-02T10:00:01.000Z", "m1", `{"input_tokens":1000,"output_tokens":100}`),
		prompt("2026-12-02T11:00:00.000Z"), answer("2026-12-02T11:00:01.000Z", "m2", `{"input_tokens":-4999999,"output_tokens":-100,"cache_read_input_tokens":-5}`),
	}
	if err := os.WriteFile(filepath.Join(dir, "s1.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := Source{Formats: agentsAt(projects, "")}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	q, _ := ParseQuery("day", "", "", "UTC")
	rep := summarize(t, h, q)
	u := rep.Total.Usage
	if rep.Total.Turns != 2 || u.InputTokens != 1000 || u.OutputTokens != 100 || u.CacheReadTokens != 0 || rep.Total.CostUSD < 0.0015 {
		t.Errorf("totals: %d turns, %+v, $%v; want 2 turns, 1000 in, 100 out, $0.0015", rep.Total.Turns, u, rep.Total.CostUSD)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/testkit/opencodetest"
)

// copyCorpus lays the real Claude and Codex transcripts out under a fake
// home as the agents keep them.
func copyCorpus(t *testing.T, home string) {
	t.Helper()
	put := func(src, dst string) {
		err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755)
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{"1.0.128", "2.0.77", "2.1.328"} {
		put(filepath.Join("..", "bridge", "transcript", "testdata", "corpus", v), filepath.Join(home, ".claude", "projects", "-demo-"+strings.ReplaceAll(v, ".", "-")))
	}
	for _, v := range []string{"0.169.0", "0.47.0"} {
		put(filepath.Join("..", "bridge", "codex", "testdata", "corpus", v), filepath.Join(home, ".codex", "sessions", "2026", "12", "02"))
	}
}

// usageJSON is what the tests read of `usage --json`, named as the JSON
// has it.
type usageJSON struct {
	Total struct {
		Turns int `json:"turns"`
		Usage struct {
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"total"`
	Rows []struct {
		Key     string  `json:"key"`
		Agent   string  `json:"agent"`
		CostUSD float64 `json:"cost_usd"`
		Turns   int     `json:"turns"`
	} `json:"rows"`
}

// readUsageJSON decodes out, the output of `usage --json`.
func readUsageJSON(t *testing.T, out string) usageJSON {
	t.Helper()
	var rep usageJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("usage --json: %v %s", err, out)
	}
	return rep
}

// TestUsageCommand: `usage` over the real corpus prints the turns' sums,
// worked out from the corpus's reviewed event lists: Claude in
// 2300 (1.0.128) + 2100 and 500 in its five subagent files (2.0.77) +
// 2100 and 200 in its subagent file (2.1.328), Codex 1000 + 1000; ten turns.
func TestUsageCommand(t *testing.T) {
	home := t.TempDir()
	copyCorpus(t, home)
	args := []string{"usage", "--home", home, "--codex-home", filepath.Join(home, ".codex"), "--tz", "UTC"}
	out, err := runCLI(t, append(args, "--json", "--by", "workspace")...)
	if err != nil {
		t.Fatalf("usage --json: %v %s", err, out)
	}
	rep := readUsageJSON(t, out)
	if rep.Total.Turns != 10 || rep.Total.Usage.InputTokens != 9200 || rep.Total.Usage.OutputTokens != 1686 || len(rep.Rows) != 5 {
		t.Errorf("usage --json: %+v", rep)
	}
	table, err := runCLI(t, append(args, "--since", "2026-12-02", "--until", "2026-12-02")...)
	if err != nil || !strings.Contains(table, "2026-12-02") || !strings.Contains(table, "9,200") || !strings.Contains(table, "total") {
		t.Errorf("usage table: %v\n%s", err, table)
	}
	empty, err := runCLI(t, append(args, "--since", "2026-12-03", "--json")...)
	if err != nil || !strings.Contains(empty, `"turns": 0`) {
		t.Errorf("usage --since after the corpus: %v\n%s", err, empty)
	}
	if out, err := runCLI(t, append(args, "--by", "year")...); err == nil || !strings.Contains(out, "bad view") {
		t.Errorf("usage --by year: %v %s", err, out)
	}
	if help, _ := runCLI(t, "--help"); !strings.Contains(help, "usage [--by") {
		t.Errorf("--help does not list usage:\n%s", help)
	}
}

// Issue 24, finding 7: a rollout line whose plan limit resets past the
// year 9999 made `usage --json` print nothing. It prints the whole report,
// the impossible reset left out.
func TestUsageJSONSurvivesAFarFutureReset(t *testing.T) {
	home := t.TempDir()
	copyCorpus(t, home)
	files, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "2026", "12", "02", "rollout-*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no corpus rollout")
	}
	f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"timestamp":"2026-12-02T19:00:00Z","type":"event_msg","payload":{"type":"token_count","info":null,` +
		`"rate_limits":{"primary":{"used_percent":12.5,"window_minutes":300,"resets_at":300000000000},"plan_type":"plus"}}}` + "\n")
	f.Close()
	out, err := runCLI(t, "usage", "--home", home, "--codex-home", filepath.Join(home, ".codex"), "--json")
	var rep struct {
		Total  struct{ Turns int }
		Limits []map[string]any
	}
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.Total.Turns != 10 || len(rep.Limits) != 1 {
		t.Fatalf("usage --json: %v %+v\n%s", err, rep, out)
	}
	if _, ok := rep.Limits[0]["resets_at"]; ok {
		t.Errorf("an impossible reset was printed: %v", rep.Limits[0])
	}
}

// TestUsageCacheSameOutput: the usage command prints byte for byte the
// same with its cache (made, then used, then used after a file grew) as
// with --no-cache, for every view with first and last days, zones and
// JSON or text; --no-cache neither makes nor changes the cache.
func TestUsageCacheSameOutput(t *testing.T) {
	home := t.TempDir()
	copyCorpus(t, home)
	state := t.TempDir()
	cache := filepath.Join(state, "usage.cache")
	grow := filepath.Join(home, ".claude", "projects", "-demo-1-0-128", "de4fded4-d372-46ad-b1c5-0d88aca1c2ef.jsonl")
	b, err := os.ReadFile(grow)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	views := []string{"day", "week", "month", "session", "workspace", "model", "block"}
	ranges := [][]string{nil, {"--since", "2026-12-02"}, {"--until", "2026-12-02"}, {"--since", "2026-12-03", "--until", "2026-12-03"}}
	zones := []string{"UTC", "Asia/Kolkata", "America/Los_Angeles"}
	for i, by := range views {
		for j, asJSON := range []bool{false, true} {
			args := []string{"usage", "--home", home, "--codex-home", filepath.Join(home, ".codex"), "--state-dir", state,
				"--by", by, "--tz", zones[(i+j)%len(zones)]}
			args = append(args, ranges[(i+2*j)%len(ranges)]...)
			if asJSON {
				args = append(args, "--json")
			}
			name := strings.Join(args[7:], " ")
			os.Remove(cache)
			want, err := runCLI(t, append(args, "--no-cache")...)
			if err != nil {
				t.Fatalf("%s --no-cache: %v %s", name, err, want)
			}
			if _, err := os.Stat(cache); err == nil {
				t.Fatalf("%s --no-cache made a cache", name)
			}
			for _, run := range []string{"cold", "warm"} {
				got, err := runCLI(t, args...)
				if err != nil || got != want {
					t.Fatalf("%s, %s: %v\n%s\nwant (--no-cache)\n%s", name, run, err, got, want)
				}
			}
			if _, err := os.Stat(cache); err != nil {
				t.Fatalf("%s: no cache made: %v", name, err)
			}
			// The session grows by a few of its own lines.
			f, err := os.OpenFile(grow, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(strings.Join(lines[len(lines)-1-(i%3):], ""))
			f.Close()
			before, _ := os.ReadFile(cache)
			want, err = runCLI(t, append(args, "--no-cache")...)
			if err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadFile(cache); string(after) != string(before) {
				t.Fatalf("%s --no-cache changed the cache", name)
			}
			if got, err := runCLI(t, args...); err != nil || got != want {
				t.Fatalf("%s, after the session grew: %v\n%s\nwant (--no-cache)\n%s", name, err, got, want)
			}
		}
	}
}

// TestUsageNoCacheWithABridgeRunning: `usage --no-cache` reads every file
// again even when a bridge answers for it. A transcript changed in place
// (its size, its time and its first and last bytes as they were: what the
// cache looks at) fools the cache, on purpose; --no-cache must show the
// change, as a run with no bridge and no cache does, and leave the bridge's
// cache as it was.
func TestUsageNoCacheWithABridgeRunning(t *testing.T) {
	home := t.TempDir()
	copyCorpus(t, home)
	p := startBridgeProc(t, home, 0)
	args := []string{"usage", "--home", home, "--codex-home", filepath.Join(home, ".codex"), "--tz", "UTC", "--json", "--by", "session"}
	usage := func(extra ...string) string {
		t.Helper()
		out, err := runCLI(t, append(args, extra...)...)
		if err != nil {
			t.Fatalf("usage %q: %v %s", extra, err, out)
		}
		return out
	}
	before := usage()
	cache := filepath.Join(p.stateDir(), "usage.cache")
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("the bridge made no cache: %v", err)
	}

	// Every output token count in the middle of the biggest transcript
	// gets another first digit: same length, same ends, same time.
	var big string
	var size int64
	filepath.WalkDir(filepath.Join(home, ".claude", "projects"), func(p string, d os.DirEntry, err error) error {
		if info, e := d.Info(); err == nil && e == nil && !d.IsDir() && info.Size() > size {
			big, size = p, info.Size()
		}
		return nil
	})
	info, _ := os.Stat(big)
	b, _ := os.ReadFile(big)
	key := []byte(`"output_tokens":`)
	changed := 0
	for i := 64; i < len(b)-64; i++ {
		if !bytes.HasPrefix(b[i:], key) {
			continue
		}
		d := i + len(key)
		if d < len(b)-64 && b[d] >= '0' && b[d] <= '9' {
			b[d] = map[bool]byte{true: '8', false: '9'}[b[d] == '9']
			changed++
		}
	}
	if changed == 0 {
		t.Fatalf("no output token count in the middle of %s", big)
	}
	if err := os.WriteFile(big, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(big, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := usage(); got != before {
		t.Fatalf("the cache saw the change: the test's premise is gone\n%s", got)
	}
	cached, _ := os.ReadFile(cache)

	fresh := usage("--no-cache")
	if fresh == before {
		t.Errorf("--no-cache with a bridge running printed the cached report (%d counts changed in %s)", changed, filepath.Base(big))
	}
	// What a run with no bridge (another state folder, no port) and no
	// cache prints.
	alone, err := runCLI(t, append(args, "--state-dir", t.TempDir(), "--addr", "127.0.0.1:1", "--no-cache")...)
	if err != nil || alone != fresh {
		t.Errorf("--no-cache through the bridge:\n%s\nwant what a run with no bridge prints (%v):\n%s", fresh, err, alone)
	}
	if after, _ := os.ReadFile(cache); !bytes.Equal(after, cached) {
		t.Error("--no-cache changed the bridge's cache")
	}
}

// TestUsageCountsOpenCode: a real OpenCode session's turn (its rows as
// OpenCode 1.18.33 wrote them, in a database of its schema) counts in
// `usage`, read by the command itself and through a running bridge's
// /api/usage alike, with the cost OpenCode put on it.
func TestUsageCountsOpenCode(t *testing.T) {
	home := t.TempDir()
	copyCorpus(t, home)
	corpus, err := os.ReadFile(filepath.Join("..", "bridge", "agent", "opencode", "testdata", "run.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Turns []struct {
			Usage struct {
				InputTokens int64 `json:"input_tokens"`
			} `json:"usage"`
			Cost float64 `json:"cost"`
		} `json:"turns"`
	}
	w, err := os.ReadFile(filepath.Join("..", "bridge", "agent", "opencode", "testdata", "run.want.json"))
	if err != nil || json.Unmarshal(w, &want) != nil || len(want.Turns) != 1 {
		t.Fatalf("run.want.json: %v", err)
	}
	db := opencodetest.NewDB(t, filepath.Join(home, "oc", "opencode.db"), filepath.Join("..", "bridge", "agent", "opencode", "testdata", "schema.sql"))
	db.Commit(t, "", "", bytes.Split(bytes.TrimSpace(corpus), []byte("\n")))

	args := []string{"usage", "--home", home, "--codex-home", filepath.Join(home, ".codex"), "--opencode-db", db.Path,
		"--tz", "UTC", "--json", "--by", "session"}
	alone, err := runCLI(t, append(args, "--state-dir", t.TempDir(), "--addr", "127.0.0.1:1")...)
	if err != nil {
		t.Fatalf("usage: %v %s", err, alone)
	}
	rep := readUsageJSON(t, alone)
	// The Claude and Codex corpus's ten turns (TestUsageCommand), and the
	// OpenCode session's one.
	var oc []float64
	for _, r := range rep.Rows {
		if r.Agent == "acp" {
			oc = append(oc, r.CostUSD)
		}
	}
	if rep.Total.Turns != 11 || rep.Total.Usage.InputTokens != 9200+want.Turns[0].Usage.InputTokens ||
		len(oc) != 1 || math.Abs(oc[0]-want.Turns[0].Cost) > 1e-9 {
		t.Errorf("usage --json: %d turns, %d input tokens, OpenCode sessions' costs %v; want 11, %d, [%v]",
			rep.Total.Turns, rep.Total.Usage.InputTokens, oc, 9200+want.Turns[0].Usage.InputTokens, want.Turns[0].Cost)
	}

	p := startBridgeWith(t, home, 0, nil, "--headless", "--opencode-db", db.Path)
	viaBridge, err := runCLI(t, args...)
	if err != nil || viaBridge != alone {
		t.Errorf("usage through the bridge (%v):\n%s\nwant what the command alone prints:\n%s", err, viaBridge, alone)
	}
	if _, err := os.Stat(filepath.Join(p.stateDir(), "usage.cache")); err != nil {
		t.Errorf("the bridge made no cache: the report did not come from /api/usage (%v)", err)
	}
}

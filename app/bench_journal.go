package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// runBenchJournal is issue 12's risk 6: one turn of `calls` tool calls,
// each call (its response and its result) appended on its own and
// waited for, so each is one batch. The journal's growth per batch is
// compared between the turn's first and last calls: the resume state
// written with every batch must not grow with the turn.
func runBenchJournal(ctx context.Context, r *benchReport, exe, root string, calls int) error {
	h, err := makeBenchHome(root, 1, 1, 0)
	if err != nil {
		return err
	}
	c, err := startChild(ctx, exe, root)
	if err != nil {
		return err
	}
	defer c.close()
	if _, err := waitWorkspaces(ctx, c.base, c.token, 1, 30*time.Second); err != nil {
		return err
	}
	journals, _ := filepath.Glob(filepath.Join(c.state, "streams", "*.jsonl"))
	if len(journals) != 1 {
		return fmt.Errorf("want one journal, found %q", journals)
	}
	path, cwd := h.files[0][0], h.dirs[0]
	sid := filepath.Base(path)[:36]
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	size := func() int64 {
		info, err := os.Stat(journals[0])
		if err != nil {
			return -1
		}
		return info.Size()
	}
	// write appends s and returns how much the journal grew for it; -1
	// when it was compacted meanwhile (the growth is then unknown).
	write := func(s string) (int64, error) {
		before := size()
		if _, err := f.WriteString(s); err != nil {
			return 0, err
		}
		deadline := time.Now().Add(5 * time.Second)
		for size() == before {
			if time.Now().After(deadline) {
				return 0, fmt.Errorf("the journal did not grow after call")
			}
			time.Sleep(200 * time.Microsecond)
		}
		time.Sleep(2 * time.Millisecond) // a status event may follow the batch
		if after := size(); after > before {
			return after - before, nil
		}
		return -1, nil
	}
	ts := "2026-11-01T10:00:00Z"
	if _, err := write(fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"version":"2.1.328","timestamp":%q,"message":{"role":"user","content":"a long turn"}}`+"\n", sid, cwd, ts)); err != nil {
		return err
	}
	var grew []int64
	var transcript int64
	for i := range calls {
		call := fmt.Sprintf(`{"type":"assistant","sessionId":%q,"cwd":%q,"version":"2.1.328","requestId":"req_%05d","timestamp":%q,"message":{"id":"msg_%05d","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":40,"cache_read_input_tokens":20000},"content":[{"type":"tool_use","id":"toolu_%05d","name":"Bash","input":{"command":"go test ./..."}}]}}`+"\n", sid, cwd, i, ts, i, i) +
			fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"version":"2.1.328","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%05d","content":"ok"}]}}`+"\n", sid, cwd, ts, i)
		transcript += int64(len(call))
		n, err := write(call)
		if err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
		grew = append(grew, n)
	}
	mean := func(xs []int64) (float64, int) {
		var sum int64
		n := 0
		for _, x := range xs {
			if x > 0 {
				sum += x
				n++
			}
		}
		if n == 0 {
			return 0, 0
		}
		return float64(sum) / float64(n), n
	}
	k := min(10, len(grew)/2)
	first, n1 := mean(grew[:k])
	last, n2 := mean(grew[len(grew)-k:])
	all, _ := mean(grew)
	cond := fmt.Sprintf("one turn of %d tool calls, one batch per call (%d B of transcript each)", calls, transcript/int64(calls))
	r.add("journal bytes per batch, first calls", first, "B", fmt.Sprintf("%s; mean of calls 1–%d (%d measured)", cond, k, n1))
	r.add("journal bytes per batch, last calls", last, "B", fmt.Sprintf("%s; mean of the last %d (%d measured)", cond, k, n2))
	r.add("journal bytes per transcript byte", all*float64(len(grew))/float64(transcript), "×", cond+"; every batch (compactions excepted)")
	return nil
}

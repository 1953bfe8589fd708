package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	c, _, err := startStreaming(ctx, exe, root, 1, 30*time.Second)
	if err != nil {
		return err
	}
	defer c.close()
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
	// write appends s and returns how much the journal grew for it, and
	// how many of those bytes are the events' own JSON; -1 when it was
	// compacted meanwhile (the growth is then unknown).
	write := func(s string) (int64, int64, error) {
		before := size()
		if _, err := f.WriteString(s); err != nil {
			return 0, 0, err
		}
		deadline := time.Now().Add(5 * time.Second)
		for size() == before {
			if time.Now().After(deadline) {
				return 0, 0, fmt.Errorf("the journal did not grow after call")
			}
			time.Sleep(200 * time.Microsecond)
		}
		time.Sleep(2 * time.Millisecond) // a status event may follow the batch
		after := size()
		if after <= before {
			return -1, -1, nil
		}
		evs, err := eventBytes(journals[0], before, after)
		if err != nil {
			return -1, -1, nil // compacted between the two looks
		}
		return after - before, evs, nil
	}
	ts := "2026-11-01T10:00:00Z"
	if _, _, err := write(fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"version":"2.1.328","timestamp":%q,"message":{"role":"user","content":"a long turn"}}`+"\n", sid, cwd, ts)); err != nil {
		return err
	}
	var grew, events []int64
	var transcript int64
	for i := range calls {
		call := fmt.Sprintf(`{"type":"assistant","sessionId":%q,"cwd":%q,"version":"2.1.328","requestId":"req_%05d","timestamp":%q,"message":{"id":"msg_%05d","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":40,"cache_read_input_tokens":20000},"content":[{"type":"tool_use","id":"toolu_%05d","name":"Bash","input":{"command":"go test ./..."}}]}}`+"\n", sid, cwd, i, ts, i, i) +
			fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"version":"2.1.328","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%05d","content":"ok"}]}}`+"\n", sid, cwd, ts, i)
		transcript += int64(len(call))
		n, e, err := write(call)
		if err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
		grew, events = append(grew, n), append(events, e)
	}
	sum := func(xs []int64) (total int64, n int) {
		for _, x := range xs {
			if x > 0 {
				total += x
				n++
			}
		}
		return total, n
	}
	mean := func(xs []int64) (float64, int) {
		total, n := sum(xs)
		if n == 0 {
			return 0, 0
		}
		return float64(total) / float64(n), n
	}
	k := min(10, len(grew)/2)
	first, n1 := mean(grew[:k])
	last, n2 := mean(grew[len(grew)-k:])
	// Batches caught by a compaction are left out of both sums alike.
	var journaled, evBytes, measuredTranscript int64
	for i := range grew {
		if grew[i] > 0 && events[i] > 0 {
			journaled += grew[i]
			evBytes += events[i]
			measuredTranscript += transcript / int64(calls)
		}
	}
	_, measured := sum(grew)
	cond := fmt.Sprintf("one turn of %d tool calls, one batch per call (%d B of transcript each)", calls, transcript/int64(calls))
	r.add("journal bytes per batch, first calls", first, "B", fmt.Sprintf("%s; mean of calls 1–%d (%d measured)", cond, k, n1))
	r.add("journal bytes per batch, last calls", last, "B", fmt.Sprintf("%s; mean of the last %d (%d measured)", cond, k, n2))
	if evBytes > 0 && measuredTranscript > 0 {
		r.add("journal bytes per event byte", float64(journaled)/float64(evBytes), "×", fmt.Sprintf("%s; %d B journaled for %d B of events' JSON (%d batches, compactions excepted)", cond, journaled, evBytes, measured))
		r.add("journal bytes per transcript byte", float64(journaled)/float64(measuredTranscript), "×", cond+"; same batches")
	}
	return nil
}

// eventBytes sums the events' own JSON in the journal lines between two
// offsets: what the journal must hold whatever its resume state costs.
func eventBytes(path string, from, to int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, to-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return 0, err
	}
	var total int64
	for _, line := range bytes.Split(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n")) {
		var l struct {
			E []json.RawMessage `json:"e"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return 0, fmt.Errorf("journal line at %d: %w", from, err)
		}
		for _, e := range l.E {
			total += int64(len(e))
		}
	}
	return total, nil
}

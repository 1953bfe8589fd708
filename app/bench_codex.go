package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"conductorbridge/bridge/codex"
)

// The Codex benchmarks: the rollout parser's throughput, and line →
// event latency through a real bridge following plain Codex sessions.
// Their lines are shaped like Codex 0.169's (bridge/codex/testdata/corpus):
// the event_msg items the parser skips as well as the response_items it
// reads, so the figures are not flattered by a lean format.

// codexRollout writes one Codex 0.169-shaped session.
type codexRollout struct {
	w      io.Writer
	thread string
	ts     time.Time
	n      int
}

func (c *codexRollout) line(typ string, payload map[string]any) error {
	c.n++
	c.ts = c.ts.Add(40 * time.Millisecond)
	b, err := json.Marshal(map[string]any{"timestamp": c.ts.Format(time.RFC3339Nano), "ordinal": c.n, "type": typ, "payload": payload})
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

func (c *codexRollout) meta(cwd string) error {
	return c.line("session_meta", map[string]any{"id": c.thread, "cwd": cwd, "cli_version": "0.169.0", "originator": "codex_exec",
		"base_instructions": map[string]any{"text": string(bytes.Repeat([]byte("You are Codex, a coding agent. "), 200))}})
}

// prompt writes the person's prompt as 0.169 does: the response item and
// its item_completed event.
func (c *codexRollout) prompt(text string) error {
	if err := c.line("response_item", map[string]any{"type": "message", "role": "user",
		"content": []map[string]any{{"type": "input_text", "text": text}}}); err != nil {
		return err
	}
	return c.line("event_msg", map[string]any{"type": "item_completed", "thread_id": c.thread,
		"item": map[string]any{"type": "UserMessage", "content": []map[string]any{{"type": "text", "text": text}}}})
}

// turn writes a whole turn: start, prompt, reasoning, a message, a shell
// call and its output, usage, and the end.
func (c *codexRollout) turn(i int) error {
	id := fmt.Sprintf("turn-%d", i)
	call := fmt.Sprintf("call_%d", i)
	usage := map[string]any{"input_tokens": 1200, "cached_input_tokens": 800, "output_tokens": 300, "reasoning_output_tokens": 120, "total_tokens": 1500}
	out := "Chunk ID: 208168\nWall time: 0.0100 seconds\nProcess exited with code 0\nOutput:\n" + string(bytes.Repeat([]byte("ok  \tpkg/module\t0.012s\n"), 40))
	steps := []struct {
		typ     string
		payload map[string]any
	}{
		{"event_msg", map[string]any{"type": "task_started", "turn_id": id}},
		{"turn_context", map[string]any{"turn_id": id, "cwd": "/bench", "model": "gpt-5.5", "approval_policy": "never"}},
		{"response_item", map[string]any{"type": "reasoning", "summary": []map[string]any{{"type": "summary_text", "text": "**Planning**\n\nRun the tests first."}}}},
		{"response_item", map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": "Running the tests."}}}},
		{"response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": call, "arguments": `{"cmd":"go test ./...","yield_time_ms":10000}`}},
		{"token_usage_record", map[string]any{"thread_id": c.thread, "turn_id": id, "response_id": "resp_" + id, "usage": usage}},
		{"event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "CommandExecution", "id": call, "aggregated_output": out}}},
		{"response_item", map[string]any{"type": "function_call_output", "call_id": call, "output": out}},
		{"event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": usage, "last_token_usage": usage}}},
		{"response_item", map[string]any{"type": "message", "role": "assistant", "content": []map[string]any{{"type": "output_text", "text": "All tests pass."}}}},
		{"event_msg", map[string]any{"type": "task_complete", "turn_id": id, "last_agent_message": "All tests pass.", "duration_ms": 900}},
	}
	for j, s := range steps {
		if err := c.line(s.typ, s.payload); err != nil {
			return err
		}
		if j == 1 { // after task_started and turn_context, as Codex writes them
			if err := c.prompt("fix the failing test " + strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchCodexParse times the Codex rollout parser on mb MB of turns.
func benchCodexParse(r *benchReport, mb int) error {
	var buf bytes.Buffer
	c := &codexRollout{w: &buf, thread: "019a0000-0000-7000-8000-000000000000", ts: time.Now()}
	if err := c.meta("/bench"); err != nil {
		return err
	}
	for i := 0; buf.Len() < mb<<20; i++ {
		if err := c.turn(i); err != nil {
			return err
		}
	}
	size := buf.Len()
	p, _ := codex.NewParser(nil)
	events, bad, el := parseAll(buf.Bytes(), p.Line)
	cond := fmt.Sprintf("%d MB of Codex 0.169-shaped rollout, %d events, %d bad lines, one core", size>>20, events, bad)
	r.add("Codex parse throughput", float64(size)/(1<<20)/el.Seconds(), "MB/s", cond)
	return nil
}

// runBenchCodex follows nws plain Codex sessions with a real bridge and
// times each prompt from its append to its event on the stream, at 10
// lines/s per session.
func runBenchCodex(ctx context.Context, r *benchReport, exe, root string, nws, lines int, serve ...string) error {
	day := time.Now()
	dayDir := filepath.Join(root, ".codex", "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
	if err := os.MkdirAll(dayDir, 0o755); err != nil {
		return err
	}
	paths := make([]string, nws)
	threads := make([]string, nws)
	for i := range nws {
		dir := filepath.Join(root, "work", fmt.Sprintf("cx%04d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		threads[i] = fmt.Sprintf("019a%04x-0000-7000-8000-000000000000", i)
		paths[i] = filepath.Join(dayDir, "rollout-"+day.Format("2006-01-02T15-04-05")+"-"+threads[i]+".jsonl")
		f, err := os.Create(paths[i])
		if err != nil {
			return err
		}
		bw := bufio.NewWriter(f)
		c := &codexRollout{w: bw, thread: threads[i], ts: day.Add(-time.Minute)}
		err = c.meta(dir)
		if err == nil {
			err = c.turn(0)
		}
		if err == nil {
			err = bw.Flush()
		}
		f.Close()
		if err != nil {
			return err
		}
	}
	c, ids, err := startStreaming(ctx, exe, root, nws, 60*time.Second, serve...)
	if err != nil {
		return err
	}
	defer c.close()
	prompter := func(i, _ int) (func(string), func(), error) {
		f, err := os.OpenFile(paths[i], os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, nil, err
		}
		cr := &codexRollout{w: f, thread: threads[i], ts: time.Now(), n: 1000}
		return func(text string) { cr.prompt(text) }, func() { f.Close() }, nil
	}
	res, err := runStreamLoad(ctx, c, nil, ids, streamLoad{workspaces: nws, subs: 1, lines: lines, every: 100 * time.Millisecond, prompter: prompter})
	if err != nil {
		return err
	}
	cond := fmt.Sprintf("%d plain Codex sessions each appending 10 prompts/s (two rollout lines each) for %d prompts, 1 SSE subscriber each; %d/%d delivered",
		nws, lines, len(res.lat), res.expected)
	r.addLatencies("Codex line appended → event read", res.lat, cond)
	if n := len(res.lat); res.cpuOK && n > 0 {
		r.add("Codex bridge CPU per line", float64(res.bridgeCPU.Nanoseconds())/1e3/float64(2*n), "µs",
			cond+"; its user+system time from the first prompt to the last event read, per rollout line (two a prompt)")
	}
	if n := len(res.lat); res.switchesOK && n > 0 {
		r.add("Codex bridge context switches per line", float64(res.switches)/float64(2*n), "", cond+"; all its threads' voluntary and involuntary switches over the same time, per rollout line")
	}
	return nil
}

package usage

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// writeRandomHistory writes sessions of random Claude Code lines under
// projects, each with a subagent file: every kind of line the parser
// tells apart (prompts, interrupts, meta notes, tool calls and results in
// any order, responses of several lines with and without requestId or a
// stop reason, sidechains, progress relays, stop hook summaries, injected
// attachments, records it ignores, lines that are not JSON), so that the
// turns end from every state a parser can be in.
func writeRandomHistory(t *testing.T, projects string, sessions, lines int, seed uint64) {
	t.Helper()
	for i := range sessions {
		sid := fmt.Sprintf("%08x-3333-4333-8333-%012x", i, i)
		dir := filepath.Join(projects, fmt.Sprintf("-tmp-random%d", i%2))
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		writeRandomFile(t, filepath.Join(dir, sid+".jsonl"), sid, false, r, start, lines)
		writeRandomFile(t, filepath.Join(dir, sid, "subagents", fmt.Sprintf("agent-%08x.jsonl", i)), sid, true, r, start, lines/4)
	}
}

func writeRandomFile(t *testing.T, path, sid string, sub bool, r *rand.Rand, now time.Time, n int) {
	t.Helper()
	f := createFile(t, path)
	defer f.Close()
	w := bufio.NewWriter(f)
	var tools []string // tool ids called, some answered later
	msg := 0
	models := []string{"claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4.5", "no-such-model", "<synthetic>"}
	for k := range n {
		now = now.Add(time.Duration(r.IntN(4000)) * time.Millisecond)
		rec := map[string]any{"sessionId": sid, "cwd": "/tmp/random", "version": "2.1.328", "uuid": fmt.Sprint(k)}
		if r.IntN(20) != 0 {
			rec["timestamp"] = now.Format("2006-01-02T15:04:05.000Z")
		}
		if sub || r.IntN(12) == 0 {
			rec["isSidechain"] = true
		}
		user := func(content any) {
			rec["type"] = "user"
			rec["message"] = map[string]any{"role": "user", "content": content}
		}
		switch kind := r.IntN(16); kind {
		case 0, 1:
			user(fmt.Sprintf("prompt %d", k))
		case 2:
			user("[Request interrupted by user]")
		case 3:
			rec["isMeta"] = true
			text := "a note"
			if r.IntN(2) == 0 {
				text = event.InjectedMarker + "1] from the bridge"
			}
			user(text)
		case 4, 5:
			id := fmt.Sprintf("toolu_%d", r.IntN(k+1))
			if len(tools) > 0 && r.IntN(4) != 0 {
				id = tools[r.IntN(len(tools))]
			}
			blocks := []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "output", "is_error": r.IntN(5) == 0}}
			if r.IntN(6) == 0 {
				blocks = append(blocks, map[string]any{"type": "text", "text": "and also this"})
			}
			user(blocks)
		case 6:
			rec["type"] = "system"
			rec["subtype"] = []string{"stop_hook_summary", "other"}[r.IntN(2)]
		case 7:
			rec["type"] = "attachment"
			rec["attachment"] = map[string]any{"type": "queued_command", "prompt": event.InjectedMarker + "2] wake up"}
		case 8:
			rec["type"] = []string{"cost-state", "file-history-snapshot", "summary"}[r.IntN(3)]
		case 9:
			if _, err := w.WriteString(`{"type":"assistant","message":` + "\n"); err != nil {
				t.Fatal(err)
			}
			continue
		case 10:
			rec["type"] = "progress"
			msg++
			rec["data"] = map[string]any{"message": map[string]any{"type": "assistant", "requestId": fmt.Sprintf("req_p%d", msg),
				"message": map[string]any{"id": fmt.Sprintf("msg_p%d", msg), "model": models[r.IntN(3)], "usage": randomUsage(r)}}}
		default: // an assistant line: a new response, or another line of the last
			if r.IntN(3) != 0 || msg == 0 {
				msg++
			}
			var block any
			switch r.IntN(4) {
			case 0:
				id := fmt.Sprintf("toolu_%d", k)
				tools = append(tools, id)
				block = map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": "ls"}}
			case 1:
				block = map[string]any{"type": "thinking", "thinking": "hmm"}
			default:
				block = map[string]any{"type": "text", "text": fmt.Sprintf("answer %d", k)}
			}
			m := map[string]any{"id": fmt.Sprintf("msg_%s_%d", sid[:8], msg), "model": models[r.IntN(len(models))],
				"content": []any{block}, "usage": randomUsage(r)}
			switch r.IntN(4) {
			case 0:
				m["stop_reason"] = nil
			case 1:
				m["stop_reason"] = "tool_use"
			case 2:
				m["stop_reason"] = "end_turn"
			}
			rec["type"] = "assistant"
			rec["message"] = m
			if r.IntN(3) != 0 {
				rec["requestId"] = fmt.Sprintf("req_%s_%d", sid[:8], msg)
			}
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

func randomUsage(r *rand.Rand) map[string]any {
	u := map[string]any{"input_tokens": r.IntN(5000), "output_tokens": 1 + r.IntN(900),
		"cache_read_input_tokens": r.IntN(90000), "cache_creation_input_tokens": r.IntN(3000)}
	if r.IntN(3) == 0 {
		u["cache_creation"] = map[string]any{"ephemeral_5m_input_tokens": r.IntN(2000), "ephemeral_1h_input_tokens": r.IntN(2000)}
	}
	return u
}

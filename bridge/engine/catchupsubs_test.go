package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// subAt is a line of a subagent's transcript for session sid, stamped at,
// as Claude Code stamps every line; it spent 1 input and 1 output token.
func subAt(sid, text string, at time.Time) string {
	return fmt.Sprintf(`{"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":%q,"cwd":%q,"timestamp":%q,"message":{"id":"sm-%s","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"text","text":%q}]}}`,
		sid, cwdOf[sid], at.UTC().Format(time.RFC3339Nano), text, text)
}

// An old session with day-old subagent files, resumed (while the bridge
// was down, and while it was up but not following the session): the
// subagents of the new turn are published and counted in it, and of a
// subagent resumed in it only what it wrote since; a day-old subagent's
// events are not published again nor its tokens counted in the new turn.
// Claude Code 2.1 writes its subagents to <session>/subagents, 2.0 beside
// the transcript. Failed before: the old subagent's line was published
// again and the turn counted 13/8.
func TestOldSubagentsOfAResumedSessionStayHistory(t *testing.T) {
	const c = "cccccccc-4444-4444-8444-0000000000c1"
	layouts := []struct {
		name   string
		subDir func(proj string) string
	}{
		{"2.1 subagents folder", func(proj string) string { return filepath.Join(proj, c, "subagents") }},
		{"2.0 beside the transcript", func(proj string) string { return proj }},
	}
	for _, layout := range layouts {
		for _, whileUp := range []bool{false, true} {
			name := layout.name + map[bool]string{false: ", resumed while down", true: ", resumed while up"}[whileUp]
			t.Run(name, func(t *testing.T) {
				h := newHome(t)
				dir, proj := h.workspace("resumed")
				const a = "aaaaaaaa-4444-4444-8444-0000000000a1"
				cwdOf[a], cwdOf[c] = dir, dir
				day := time.Now().Add(-24 * time.Hour)
				old := filepath.Join(proj, c+".jsonl")
				h.write(old, prompt(c, "yesterday"), answer(c, "m0", strings.Repeat("old ", 2000), "end_turn"))
				subDir := layout.subDir(proj)
				os.MkdirAll(subDir, 0o755)
				done := filepath.Join(subDir, "agent-done1.jsonl")
				h.write(done, subAt(c, "old subagent", day))
				again := filepath.Join(subDir, "agent-again1.jsonl")
				h.write(again, subAt(c, "old part", day))
				for _, p := range []string{old, done, again} {
					os.Chtimes(p, day, day)
				}
				h.write(filepath.Join(proj, a+".jsonl"), now(prompt(a, "one")), now(answer(a, "m1", "a1", "end_turn")))
				r := h.start()
				id, seen := r.firstTurn(t, dir)
				if !whileUp {
					r.stop()
				}

				// The new turn: a new subagent and one resumed, then the
				// session's own lines (the agent writes them last).
				h.write(filepath.Join(subDir, "agent-new1.jsonl"), subAt(c, "new subagent", time.Now()))
				h.write(again, subAt(c, "resumed part", time.Now()))
				h.write(old, now(prompt(c, "today")), now(answer(c, "m2", "resumed", "end_turn")))
				if !whileUp {
					r = h.start()
					r.waitWorkspace(t, dir)
				}
				after := r.collect(t, id, seen, func(evs []event.Event) bool { return countTurns(evs, c) >= 1 })
				got := summary(after)
				wantIn(t, got, "user:today", "assistant:resumed", "assistant:new subagent", "assistant:resumed part")
				for _, stale := range []string{"yesterday", "old subagent", "old part"} {
					if strings.Contains(got, stale) {
						t.Errorf("%q published again: %s", stale, got)
					}
				}
				// 10/5 the session's answer, 1/1 each subagent line of the turn.
				var tc event.Event
				for _, e := range after {
					if e.Type == event.TurnComplete && e.SessionID == c {
						tc = e
					}
				}
				if want := (event.Usage{InputTokens: 12, OutputTokens: 7}); tc.Usage != want {
					t.Errorf("turn usage %+v, want %+v", tc.Usage, want)
				}
				if want := (event.Usage{InputTokens: 2, OutputTokens: 2}); tc.SubagentUsage != want {
					t.Errorf("subagent usage %+v, want %+v", tc.SubagentUsage, want)
				}
			})
		}
	}
}

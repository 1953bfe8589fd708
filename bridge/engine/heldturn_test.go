//go:build linux || darwin

package engine

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/agenttest"
	"conductorbridge/testkit/eventtest"
)

// Claude Code 2.0 writes each block of a response as a line of its own,
// with no stop reason, so a turn's end is inferred from a quiet spell with
// no tool call open. These lines are one response (m1): its text, then —
// after a pause as long as its input takes to stream — its tool call.

func call20(sid, msg, tool string) string {
	return fmt.Sprintf(`{"type":"assistant","sessionId":%q,"cwd":%q,"requestId":"r-%s","timestamp":"2026-01-01T00:00:03Z","message":{"id":%q,"model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":5},"content":[{"type":"tool_use","id":%q,"name":"Write","input":{"file_path":"/tmp/big.go"}}]}}`, sid, cwdOf[sid], msg, msg, tool)
}

func result20(sid, tool string) string {
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"written"}]}}`, sid, cwdOf[sid], tool)
}

// quietSpell stages the quiet spell's end in the workspace's goroutine, as
// its timer would after QuietAfter with no line written.
func (r *running) quietSpell(t *testing.T, id string) {
	t.Helper()
	w, ok := r.eng.followed(id)
	if !ok {
		t.Fatalf("workspace %s not followed", id)
	}
	done := make(chan struct{})
	w.enqueue(func() { w.quietSync(); close(done) })
	<-done
}

// TestAHooked20TurnWaitsForItsStopHook: in a 2.0 session whose hooks call
// the bridge, a quiet spell between a response's text line and its tool
// call's line ends nothing; the turn ends once, at its Stop hook's word,
// with everything it spent. Without the hooks the quiet rule still ends a
// turn at each such spell (two turns here), as it must where nothing else
// tells. Failed before: the hooked session's turn ended at the text.
func TestAHooked20TurnWaitsForItsStopHook(t *testing.T) {
	for _, tt := range []struct {
		name      string
		hooked    bool
		wantTurns int
	}{
		{"hooks call in", true, 1},
		{"no hooks", false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			const sid = "cccccccc-7777-4777-8777-0000000000c1"
			dir, path := h.session("held", sid)
			h.write(path, prompt(sid, "write the big file"))
			r := h.startWith(func(c *Config) { c.QuietAfter = time.Hour }) // the test says when a spell is over
			id := r.waitPrompt(t, dir, "write the big file")
			if tt.hooked {
				r.eng.HooksCall(id, Call{SessionID: sid}) // the UserPromptSubmit hook
			}
			h.write(path, answer(sid, "m1", "I'll write it.", ""))
			r.collect(t, id, 0, has(event.Assistant, "I'll write it."))
			r.quietSpell(t, id) // the tool call's input still streaming

			h.write(path, call20(sid, "m1", "t1"), result20(sid, "t1"), answer(sid, "m2", "Written.", ""))
			r.collect(t, id, 0, has(event.Assistant, "Written."))
			r.quietSpell(t, id) // the Stop hooks running
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if !r.eng.TurnEnded(ctx, id, Call{SessionID: sid}) {
				t.Fatal("the Stop hook's call was not taken")
			}
			evs := r.collect(t, id, 0, func(evs []event.Event) bool {
				return len(eventtest.OfType(evs, event.TurnComplete)) > 0 && evs[len(evs)-1].Type == event.Status && evs[len(evs)-1].State == event.StateIdle
			})
			tcs := eventtest.OfType(evs, event.TurnComplete)
			if len(tcs) != tt.wantTurns {
				t.Fatalf("%d turn_complete events, want %d: %s", len(tcs), tt.wantTurns, summary(evs))
			}
			// Two responses of 10 in and 5 out each, whichever turns hold them.
			var u event.Usage
			for _, tc := range tcs {
				u.InputTokens += tc.Usage.InputTokens
				u.OutputTokens += tc.Usage.OutputTokens
				if tc.Interrupted {
					t.Errorf("interrupted: %+v", tc)
				}
			}
			if u.InputTokens != 20 || u.OutputTokens != 10 {
				t.Errorf("the turns spent %+v, want 20 in and 10 out", u)
			}
		})
	}
}

// TestAHeldTurnStillEnds: a hooked 2.0 turn held for its Stop hook ends
// without the hook's word when its record stays quiet for StopWait (the
// bridge was down when the hook ran) — the quiet spell's timer waits for
// that — and, interrupted, when its agent dies.
func TestAHeldTurnStillEnds(t *testing.T) {
	for _, tt := range []struct {
		name        string
		kill        bool // the agent dies; else StopWait passes
		staged      bool // the test says when the quiet spell is over; else the engine's timer
		interrupted bool
	}{
		{"quiet for StopWait", false, true, false},
		{"quiet for StopWait, by the timer", false, false, false},
		{"agent killed", true, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			const sid = "cccccccc-8888-4888-8888-0000000000c2"
			dir, path := h.session("heldend", sid)
			agent, _ := agenttest.StartAs(t, "claude", "")
			ps := &pidScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}, dir: dir}
			ps.pid.Store(int64(agent.Process.Pid))
			h.write(path, prompt(sid, "look around"))
			const stagedStopWait = time.Millisecond
			r := h.startWith(func(c *Config) {
				c.Scanner = ps
				switch {
				case tt.staged:
					c.QuietAfter = time.Hour
					c.StopWait = stagedStopWait
				case !tt.kill:
					c.StopWait = 2 * c.QuietAfter // a spell or two pass first, ending nothing
				}
			})
			id := r.waitPrompt(t, dir, "look around")
			r.eng.HooksCall(id, Call{SessionID: sid})
			h.write(path, answer(sid, "m1", "Looking.", ""))
			evs := r.collect(t, id, 0, has(event.Assistant, "Looking."))
			last := evs[len(evs)-1].ID
			if tt.kill {
				reaps := r.eng.reaps.Load()
				waitFor(t, "a look at the live agent's turn", func() bool { return r.eng.reaps.Load() >= reaps+2 })
				if in, _ := r.eng.Workspace(id); in.Status != event.StateWorking {
					t.Fatalf("the held turn ended while its agent lives: %s", in.Status)
				}
				agent.Process.Kill()
				agent.Wait()
			} else if tt.staged {
				// The engine can read the line, publish it and take the
				// spell within StopWait of the write: the record must in
				// fact have been quiet that long first.
				waitFor(t, "the record quiet for StopWait", func() bool {
					info, err := os.Stat(path)
					return err == nil && time.Since(info.ModTime()) >= stagedStopWait
				})
				r.quietSpell(t, id)
			}
			evs = r.collect(t, id, last, has(event.TurnComplete, ""))
			tcs := eventtest.OfType(evs, event.TurnComplete)
			if len(tcs) != 1 || tcs[0].Interrupted != tt.interrupted || tcs[0].Usage.InputTokens != 10 {
				t.Errorf("turn_complete events %+v, want one with 10 in, interrupted %v", tcs, tt.interrupted)
			}
		})
	}
}

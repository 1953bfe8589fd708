package conductor

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
)

// cursorTurn is a Cursor tab's turn as Conductor renders it: Claude-style
// envelopes, a subagent's frame among them.
func cursorTurn(long string) []any {
	return []any{
		"make the header blue",
		obj{"type": "system", "subtype": "init", "session_id": "cur-1", "model": "composer-2"},
		obj{"type": "assistant", "session_id": "cur-1", "parent_tool_use_id": nil, "message": obj{"id": "m1", "model": "composer-2",
			"content": []any{obj{"type": "text", "text": "Looking at header.css"},
				obj{"type": "tool_use", "id": "t1", "name": "Read", "input": obj{"file_path": "/w/tokyo/header.css"}}},
			"usage": obj{"input_tokens": 1200, "output_tokens": 40}}},
		obj{"type": "user", "session_id": "cur-1", "message": obj{"role": "user",
			"content": []any{obj{"type": "tool_result", "tool_use_id": "t1", "content": long}}}},
		obj{"type": "assistant", "session_id": "cur-1", "parent_tool_use_id": "t9", "message": obj{"id": "m-sub",
			"content": []any{obj{"type": "text", "text": "subagent says hi"}}}},
		obj{"type": "assistant", "session_id": "cur-1", "message": obj{"id": "m2", "model": "composer-2",
			"content": []any{obj{"type": "text", "text": "Done: the header is blue."}}, "usage": obj{"input_tokens": 1300, "output_tokens": 12}}},
		obj{"type": "result", "subtype": "success", "session_id": "cur-1", "total_cost_usd": 0.0123, "duration_ms": 4200,
			"usage": obj{"input_tokens": 2500, "output_tokens": 52}},
	}
}

// sdkTurn is an unknown agent's turn whose frames carry the agent's own
// messages (the Cursor SDK's) as content.rawPayload.
func sdkTurn() []any {
	raw := func(v obj) obj { return obj{"type": "assistant", "content": obj{"rawPayload": v}} }
	return []any{
		"rename the button",
		raw(obj{"type": "system", "subtype": "init", "agent_id": "a1", "run_id": "r1"}),
		raw(obj{"type": "thinking", "agent_id": "a1", "run_id": "r1", "text": "which file?"}),
		raw(obj{"type": "assistant", "agent_id": "a1", "run_id": "r1", "message": obj{"role": "assistant",
			"content": []any{obj{"type": "text", "text": "Renaming it"}}}}),
		raw(obj{"type": "tool_call", "agent_id": "a1", "run_id": "r1", "call_id": "c1", "name": "shell", "status": "running",
			"args": obj{"command": "git mv old.tsx new.tsx"}}),
		raw(obj{"type": "tool_call", "agent_id": "a1", "run_id": "r1", "call_id": "c1", "name": "shell", "status": "completed",
			"args": obj{"command": "git mv old.tsx new.tsx"}, "result": obj{"stdout": "renamed"}}),
		raw(obj{"type": "usage", "agent_id": "a1", "run_id": "r1", "usage": obj{"inputTokens": 900, "outputTokens": 30, "cacheReadTokens": 100, "cacheWriteTokens": 0}}),
		raw(obj{"type": "status", "agent_id": "a1", "run_id": "r1", "status": "FINISHED"}),
	}
}

// TestFollowsTabsWhileConductorWrites streams a Cursor tab (Claude-style
// envelopes) and an unknown agent's tab (rawPayload) from a real SQLite
// file of each schema shape, written as Conductor writes it, while a
// second writer commits to another tab as fast as it can and waits for no
// lock: a reader that ever blocked it would fail its commit.
func TestFollowsTabsWhileConductorWrites(t *testing.T) {
	long := strings.Repeat("é", 700) // 700 runes, 1400 bytes
	want := map[string][]string{
		"s-cursor": {
			`user "make the header blue" cut=false`,
			`assistant "Looking at header.css" cut=false`,
			`tool_use t1 Read "/w/tokyo/header.css" cut=false`,
			`tool_result t1 Read "` + strings.Repeat("é", 500) + `" cut=true err=false`,
			`assistant (side) "subagent says hi" cut=false`,
			`assistant "Done: the header is blue." cut=false`,
			`turn_complete $0.0123 4200ms in=2500 out=52 model=composer-2`,
		},
		"s-future": {
			`user "rename the button" cut=false`,
			`thinking "which file?" cut=false`,
			`assistant "Renaming it" cut=false`,
			`tool_use c1 shell "git mv old.tsx new.tsx" cut=false`,
			`tool_result c1 shell "renamed" cut=false err=false`,
			`turn_complete unknown in=900 out=30 model=`,
		},
	}
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-cursor", "cursor", "s-future", "devin-2", "s-claude", "claude")
			rec := newRecorder()
			rec.run(t, w.Path, map[string]Cursor{"s-cursor": {}, "s-future": {}})

			other, err := w.Second()
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			var stop atomic.Bool
			var commits, failures atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					if _, err := other.Message("s-claude", "assistant", `{"type":"assistant","message":{"content":[{"type":"text","text":"busy"}]}}`); err != nil {
						failures.Add(1)
						t.Errorf("the second writer was blocked: %v", err)
						return
					}
					commits.Add(1)
				}
			}()

			write(t, w, "s-cursor", cursorTurn(long)...)
			write(t, w, "s-future", sdkTurn()...)
			got := map[string][]event.Event{
				"s-cursor": rec.turns(t, "s-cursor", 1),
				"s-future": rec.turns(t, "s-future", 1),
			}
			stop.Store(true)
			wg.Wait()
			for i := range got["s-future"] {
				got["s-future"][i].DurationMS = 0 // the rows' times: a clock's, not the record's
			}
			for tab, lines := range want {
				if have := describe(got[tab]); have != strings.Join(lines, "\n")+"\n" {
					t.Errorf("%s:\n got %s\nwant %s", tab, have, strings.Join(lines, "\n"))
				}
			}
			if commits.Load() == 0 || failures.Load() != 0 {
				t.Errorf("second writer: %d commits, %d failed", commits.Load(), failures.Load())
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if _, ok := rec.events["s-claude"]; ok {
				t.Error("a tab nobody follows was handed over")
			}
			for tab, rows := range rec.rows {
				if !slices.IsSorted(rows) || len(slices.Compact(slices.Clone(rows))) != len(rows) {
					t.Errorf("%s: rows handed over out of order or twice: %v", tab, rows)
				}
			}
		})
	}
}

package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// subLine is a subagent's assistant line of session sid, as 2.0 (beside
// the session's file) and 2.1 (in its subagents folder) write them.
func subLine(sid, text string) string {
	return fmt.Sprintf(`{"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":%q,"cwd":%q,"message":{"id":"sm-%s","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"text","text":%q}]}}`, sid, cwdOf[sid], text, text)
}

// TestFoldersLookedAtOnlyAfterAFileEvent: where folders are watched, the
// lines of a busy session are read without looking at its folders for
// subagent files (two stats a line), and subagents that start later are
// still found from their folder's events alone, with no line of the
// session's own to bring the workspace round: in a 2.1 subagents folder
// whether the session's own folder was there before it (tool results)
// or not, and beside the session's file (2.0).
func TestFoldersLookedAtOnlyAfterAFileEvent(t *testing.T) {
	for _, ownFolderFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("ownFolderFirst=%v", ownFolderFirst), func(t *testing.T) {
			h := newHome(t)
			dir, proj := h.workspace("folders")
			sid := "77777777-0000-4000-8000-000000000007"
			cwdOf[sid] = dir
			main := filepath.Join(proj, sid+".jsonl")
			h.write(main, prompt(sid, "start"))
			own := filepath.Join(proj, sid)
			if ownFolderFirst {
				if err := os.MkdirAll(filepath.Join(own, "tool-results"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			watch := true
			r := h.startWith(func(c *Config) {
				c.WatchDirs = &watch
				c.SweepEvery, c.ScanEvery = time.Hour, time.Hour // nothing but file events
			})
			id := r.waitWorkspace(t, dir)
			last := r.collect(t, id, 0, has(event.User, "start"))
			after := last[len(last)-1].ID

			before := r.eng.looks.Load()
			const lines = 20
			for i := range lines {
				text := fmt.Sprintf("line %d", i)
				h.write(main, prompt(sid, text))
				evs := r.collect(t, id, after, has(event.User, text))
				after = evs[len(evs)-1].ID
			}
			if looks := r.eng.looks.Load() - before; looks > 2 {
				t.Errorf("the folders were looked at %d times for %d lines; want none once watched", looks, lines)
			}

			if err := os.MkdirAll(filepath.Join(own, "subagents"), 0o755); err != nil {
				t.Fatal(err)
			}
			h.write(filepath.Join(own, "subagents", "agent-a1.jsonl"), subLine(sid, "from 2.1"))
			evs := r.collect(t, id, after, has(event.Assistant, "from 2.1"))
			after = evs[len(evs)-1].ID

			h.write(filepath.Join(proj, "agent-b2.jsonl"), subLine(sid, "from 2.0"))
			evs = r.collect(t, id, after, has(event.Assistant, "from 2.0"))
			for _, e := range evs {
				if (e.Content == "from 2.1" || e.Content == "from 2.0") && !e.Sidechain {
					t.Errorf("subagent event not marked sidechain: %+v", e)
				}
			}
		})
	}
}

package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/inject"
	"conductorbridge/bridge/transcript"
)

// TestAgentWritesOneTurnPerPromptAndMarksReplays plays the script past its
// end, fast, with a Stop hook that hands over a message once, as the
// bridge answers Claude Code 2.1.328 (additional context): the message is
// recorded as 2.1.328 records it and answered in the same turn, so the
// record holds one turn per prompt (read as the usage report reads it),
// and the second round of the script says it is a replay.
func TestAgentWritesOneTurnPerPromptAndMarksReplays(t *testing.T) {
	dir := t.TempDir()
	w := Workspace{Name: "tokyo", SessionID: "0a0a0a0a-1111-4111-8111-000000000001", Dir: dir, Transcript: filepath.Join(dir, "s.jsonl")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	handed := false
	hooks := func(_ context.Context, ev string, in map[string]any) (inject.Answer, error) {
		if p, _ := in["prompt"].(string); ev == inject.HookUserPromptSubmit && strings.HasPrefix(p, "(demo replay, round 2) ") {
			cancel() // the script began again: enough
		}
		if ev == inject.HookStop && !handed {
			handed = true
			b, _ := json.Marshal(map[string]any{"systemMessage": "From the side panel: check the footer",
				"hookSpecificOutput": map[string]string{"hookEventName": "Stop", "additionalContext": inject.Frame(inject.Message{ID: "m-1", Text: "check the footer"})}})
			return inject.Answer{Stdout: string(b)}, nil
		}
		return inject.Answer{}, nil
	}
	prompts := 0
	a := &Agent{W: w, Hooks: hooks, Speed: 50000, Rand: rand.New(rand.NewPCG(1, 2))}
	a.Run(ctx)

	f, err := os.Open(w.Transcript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var p transcript.Parser
	p.CountOnly()
	var evs []event.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var kinds []string
	for sc.Scan() {
		var rec struct {
			Type       string
			Message    struct{ Content any }
			Attachment struct{ Type, HookEvent string }
		}
		json.Unmarshal(sc.Bytes(), &rec)
		if s, ok := rec.Message.Content.(string); ok && rec.Type == "user" && !strings.Contains(s, event.InjectedMarker) {
			prompts++
		}
		if rec.Attachment.Type != "" {
			kinds = append(kinds, rec.Attachment.Type+"@"+rec.Attachment.HookEvent)
		}
		if evs, err = p.Line(sc.Bytes(), evs); err != nil {
			t.Fatal(err)
		}
	}
	evs = p.Flush(evs)
	turns := 0
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			turns++
		}
	}
	if !strings.Contains(strings.Join(kinds, ","), "hook_additional_context@Stop") {
		t.Errorf("the handed-over message is not recorded as 2.1.328 records it: %v", kinds)
	}
	// The last prompt's turn may have been cut off by the stop.
	if turns != prompts && turns != prompts-1 {
		t.Errorf("%d turns for %d prompts: a message handed over at a turn's end split it", turns, prompts)
	}
	if prompts < len(script)+1 {
		t.Errorf("%d prompts: the script never began again", prompts)
	}
}

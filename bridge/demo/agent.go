package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"conductorbridge/bridge/inject"
)

// Hooks calls one of the bridge's hooks, the way `conductor-bridge hook`
// relays Claude Code's calls.
type Hooks func(ctx context.Context, event string, in map[string]any) (inject.Answer, error)

// Agent plays the script into a workspace's transcript in real time, in
// Claude Code 2.1's format, and takes messages from the side panel the way
// a real agent does: through the Stop hook at the end of a turn, or the
// rewake hook while it is idle. It answers each one in its next turn.
type Agent struct {
	W     Workspace
	Hooks Hooks
	Speed float64 // 1 is a real agent's pace; 10 is ten times faster
	Rand  *rand.Rand

	n    int    // records written
	last string // uuid of the last record
}

// Run plays until ctx ends.
func (a *Agent) Run(ctx context.Context) error {
	if a.Speed <= 0 {
		a.Speed = 1
	}
	for i := 0; ctx.Err() == nil; i++ {
		t := script[i%len(script)]
		prompt := t.prompt
		if round := i/len(script) + 1; round > 1 {
			// The script again, in the same session: said so, or it reads
			// as the same events twice.
			prompt = fmt.Sprintf("(demo replay, round %d) %s", round, prompt)
		}
		if err := a.record(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}}); err != nil {
			return err
		}
		if _, err := a.Hooks(ctx, inject.HookUserPromptSubmit, a.input(inject.HookUserPromptSubmit, map[string]any{"prompt": prompt})); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := a.play(ctx, t); err != nil {
			return err
		}
		if err := a.idle(ctx, 6*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// play does a turn's steps and ends it; then the Stop hook may hand over a
// message, which the agent answers in the same turn, as Claude Code 2.1
// does, before it stops for real.
func (a *Agent) play(ctx context.Context, t turn) error {
	for _, s := range t.steps {
		if err := a.step(ctx, s); err != nil {
			return err
		}
	}
	if err := a.assistant(ctx, "end_turn", map[string]any{"type": "text", "text": t.answer}); err != nil {
		return err
	}
	for active := false; ; active = true {
		ans, err := a.Hooks(ctx, inject.HookStop, a.input(inject.HookStop, map[string]any{"stop_hook_active": active}))
		if err != nil {
			return ctx.Err()
		}
		framed, err := a.stopHookRecords(ans.Stdout)
		if err != nil || framed == "" {
			return err
		}
		if err := a.answer(ctx, framed); err != nil {
			return err
		}
	}
}

// stopHookRecords writes what Claude Code 2.1.328 records of its Stop
// hook's answer (transcript lines its own tests read): the notice and the
// additional context it goes on with the turn from, then the hooks'
// summary. It returns the message handed over, "" for none. An older
// agent's block (decision, reason) is recorded as its feedback.
func (a *Agent) stopHookRecords(stdout string) (string, error) {
	var out struct {
		SystemMessage      string `json:"systemMessage"`
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		Decision, Reason string
	}
	_ = json.Unmarshal([]byte(stdout), &out) // no answer, or not JSON: nothing handed over
	framed := out.HookSpecificOutput.AdditionalContext
	hook := func(typ string, content any) map[string]any {
		return map[string]any{"type": "attachment", "attachment": map[string]any{"type": typ, "content": content, "hookName": "Stop", "hookEvent": "Stop"}}
	}
	var recs []map[string]any
	if out.SystemMessage != "" {
		recs = append(recs, hook("hook_system_message", out.SystemMessage))
	}
	context := []string{}
	if framed != "" {
		context = append(context, framed)
		recs = append(recs, hook("hook_additional_context", context))
	}
	if framed == "" && out.Decision == "block" && out.Reason != "" {
		framed = out.Reason
		recs = append(recs, map[string]any{"type": "user", "isMeta": true,
			"message": map[string]any{"role": "user", "content": "Stop hook feedback:\n" + framed}})
	}
	recs = append(recs, map[string]any{"type": "system", "subtype": "stop_hook_summary", "hookCount": 1,
		"hookAdditionalContext": context, "preventedContinuation": false, "hasOutput": stdout != ""})
	for _, r := range recs {
		if err := a.record(r); err != nil {
			return "", err
		}
	}
	return framed, nil
}

// idle waits for the next prompt. A message sent meanwhile wakes the agent
// (Claude Code's asyncRewake Stop hook), and it answers at once.
func (a *Agent) idle(ctx context.Context, d time.Duration) error {
	wait, cancel := context.WithTimeout(ctx, a.scale(d))
	defer cancel()
	ans, err := a.Hooks(wait, inject.HookRewake, a.input(inject.HookRewake, nil))
	if err != nil || ans.Exit != 2 {
		<-wait.Done() // no message: the person's next prompt comes when it comes
		return ctx.Err()
	}
	if err := a.record(map[string]any{"type": "user", "origin": map[string]any{"kind": "task-notification"},
		"message": map[string]any{"role": "user", "content": ans.Stderr}}); err != nil {
		return err
	}
	if err := a.answer(ctx, ans.Stderr); err != nil {
		return err
	}
	return a.idle(ctx, d)
}

// answer plays the turn that answers a framed message.
func (a *Agent) answer(ctx context.Context, framed string) error {
	_, msg, ok := inject.Unframe(framed)
	if !ok {
		msg = framed
	}
	return a.play(ctx, reply(msg))
}

func (a *Agent) step(ctx context.Context, s step) error {
	switch {
	case s.ask != "":
		// The agent needs the person (a permission prompt); they answer
		// in Conductor after a moment.
		if _, err := a.Hooks(ctx, inject.HookNotification, a.input(inject.HookNotification,
			map[string]any{"notification_type": s.ask, "message": "Claude needs your permission to use Bash"})); err != nil {
			return err
		}
		return a.sleep(ctx, 5*time.Second)
	case s.think != "":
		return a.assistant(ctx, nil, map[string]any{"type": "thinking", "thinking": s.think, "signature": "demo"})
	case s.say != "":
		return a.assistant(ctx, nil, map[string]any{"type": "text", "text": s.say})
	}
	id := fmt.Sprintf("toolu_demo_%s_%04d", a.W.Name, a.n)
	if err := a.assistant(ctx, "tool_use", map[string]any{"type": "tool_use", "id": id, "name": s.tool, "input": s.input}); err != nil {
		return err
	}
	if err := a.sleep(ctx, 1200*time.Millisecond); err != nil { // the tool runs
		return err
	}
	return a.record(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": s.output, "is_error": s.failing}}}})
}

// assistant writes one API response of one block, after thinking about it.
func (a *Agent) assistant(ctx context.Context, stop any, block map[string]any) error {
	if err := a.sleep(ctx, time.Duration(800+a.Rand.IntN(1700))*time.Millisecond); err != nil {
		return err
	}
	id := fmt.Sprintf("msg_demo_%s_%04d", a.W.Name, a.n)
	return a.record(map[string]any{"type": "assistant", "requestId": "req_" + id, "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": 4 + a.Rand.IntN(40), "output_tokens": 60 + a.Rand.IntN(600),
			"cache_creation_input_tokens": a.Rand.IntN(3000), "cache_read_input_tokens": 12000 + a.Rand.IntN(30000),
		},
	}})
}

// record appends one transcript line, the way Claude Code does.
func (a *Agent) record(rec map[string]any) error {
	a.n++
	uuid := fmt.Sprintf("%s-%08x", a.W.SessionID[:23], a.n)
	rec["uuid"], rec["parentUuid"] = uuid, a.last
	rec["sessionId"], rec["cwd"], rec["gitBranch"] = a.W.SessionID, a.W.Dir, a.W.Branch
	rec["version"], rec["userType"], rec["isSidechain"] = "2.1.328", "external", false
	rec["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
	a.last = uuid
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(a.W.Transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write the demo transcript: %w", err)
	}
	defer f.Close()
	_, err = f.Write(append(b, '\n'))
	return err
}

// input is what Claude Code gives a hook on stdin.
func (a *Agent) input(event string, extra map[string]any) map[string]any {
	in := map[string]any{"session_id": a.W.SessionID, "transcript_path": a.W.Transcript, "cwd": a.W.Dir,
		"hook_event_name": event}
	for k, v := range extra {
		in[k] = v
	}
	return in
}

func (a *Agent) scale(d time.Duration) time.Duration { return time.Duration(float64(d) / a.Speed) }

func (a *Agent) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(a.scale(d))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

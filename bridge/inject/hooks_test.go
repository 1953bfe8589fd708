package inject

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/engine"
)

type fakeEngine struct {
	agent   string
	version string
	needs   []string
	ended   int
	goesOn  int
	relooks int
	hooked  int
}

func (f *fakeEngine) Place(c engine.Call) (string, bool) {
	switch c.Cwd {
	case "/w":
		return "ws", true
	case "/plain":
		return "plain", true
	}
	return "", false
}
func (f *fakeEngine) Adopted(id string) bool { return id == "ws" }
func (f *fakeEngine) Session(ws, session string) (engine.SessionInfo, bool) {
	return engine.SessionInfo{SessionID: session, Agent: f.agent, Version: f.version}, true
}
func (f *fakeEngine) NeedsInput(_ context.Context, _ string, _ engine.Call, reason string) bool {
	f.needs = append(f.needs, reason)
	return true
}
func (f *fakeEngine) TurnEnded(context.Context, string, engine.Call) bool  { f.ended++; return true }
func (f *fakeEngine) TurnGoesOn(context.Context, string, engine.Call) bool { f.goesOn++; return true }
func (f *fakeEngine) Relook(string, engine.Call)                           { f.relooks++ }
func (f *fakeEngine) AgentPID(string, engine.Call, bool)                   {}
func (f *fakeEngine) HooksCall(string, engine.Call)                        { f.hooked++ }
func (f *fakeEngine) Hint(context.Context, string, string) (string, bool)  { return "", false }

func newHooks(t *testing.T) (*Hooks, *fakeEngine) {
	q, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &fakeEngine{}
	return &Hooks{Queue: q, Engine: e, Log: zerolog.Nop(), Agents: []HookAgent{claude.Agent{}, codex.Agent{}}}, e
}

var in = HookInput{SessionID: "s", Cwd: "/w"}

// hookOutput is the part of a hook's JSON answer the agents read.
type hookOutput struct {
	Decision, Reason   string
	SystemMessage      string
	HookSpecificOutput struct{ HookEventName, AdditionalContext string }
}

func decode(t *testing.T, a Answer) hookOutput {
	t.Helper()
	var out hookOutput
	if err := json.Unmarshal([]byte(a.Stdout), &out); err != nil {
		t.Fatalf("answer %+v: %v", a, err)
	}
	return out
}

func TestStopAndPostToolUseDeliver(t *testing.T) {
	h, e := newHooks(t)
	e.version = "2.1.328"
	ctx := context.Background()
	if a := h.Handle(ctx, HookStop, in); a != (Answer{}) {
		t.Errorf("nothing queued: %+v", a)
	}
	m, _, _ := h.Queue.Enqueue("ws", "test the mobile view")
	out := decode(t, h.Handle(ctx, HookStop, in))
	if id, text, ok := Unframe(out.HookSpecificOutput.AdditionalContext); !ok || id != m.ID || text != "test the mobile view" {
		t.Errorf("framing does not round-trip: %q %q %v", id, text, ok)
	}
	// The turn the message went to goes on: only the first Stop, with
	// nothing to hand over, ended it.
	if e.ended != 1 {
		t.Errorf("TurnEnded called %d times, want once", e.ended)
	}
	// The engine hears that it goes on before the agent does: the next
	// Stop hook's word can come ahead of the record of this one.
	if e.goesOn != 1 {
		t.Errorf("TurnGoesOn called %d times, want once (for the hand-over)", e.goesOn)
	}
	h.Queue.Enqueue("ws", "second")
	out = decode(t, h.Handle(ctx, HookPostToolUse, in))
	if out.HookSpecificOutput.HookEventName != "PostToolUse" || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "second") {
		t.Errorf("post-tool-use answer: %+v", out)
	}
	if a := h.Handle(ctx, HookPostToolUse, in); a != (Answer{}) {
		t.Errorf("delivered twice: %+v", a)
	}
	h.Queue.Enqueue("ws", "elsewhere")
	if a := h.Handle(ctx, HookStop, HookInput{Cwd: "/not/a/workspace"}); a != (Answer{}) {
		t.Errorf("unknown workspace got a message: %+v", a)
	}
}

// TestHookAnswersByRelease pins the answer each agent release gets, as
// recorded from the real binaries (app/words_e2e_test.go): Claude Code from
// 2.1.163 continues a turn by Stop context, which is no hook error; older
// releases, an unknown version and Codex (whose Stop output has no
// hookSpecificOutput) get the block every release takes. 2.1 shows the
// person's words as a notice (systemMessage); 1.0 prints its hook context
// as a user message already.
func TestHookAnswersByRelease(t *testing.T) {
	const words = "no, test the mobile view"
	for _, tt := range []struct {
		hook, agent, version string
		block, notice        bool
	}{
		{HookStop, "claude", "2.1.328", false, true},
		{HookStop, "claude", "2.1.163", false, true},
		{HookStop, "", "2.1.328", false, true}, // a session the engine lists without its agent yet
		{HookStop, "claude", "2.1.162", true, false},
		{HookStop, "claude", "2.0.77", true, false},
		{HookStop, "claude", "", true, false},
		{HookStop, "codex", "0.169.0", true, false},
		{HookStop, "codex", "2.1.328", true, false}, // a future Codex numbered like Claude Code
		{HookPostToolUse, "claude", "2.1.328", false, true},
		{HookPostToolUse, "claude", "1.0.128", false, false},
	} {
		t.Run(tt.hook+" "+tt.agent+" "+tt.version, func(t *testing.T) {
			h, e := newHooks(t)
			e.agent, e.version = tt.agent, tt.version
			m, _, _ := h.Queue.Enqueue("ws", words)
			out := decode(t, h.Handle(context.Background(), tt.hook, in))
			framed := out.HookSpecificOutput.AdditionalContext
			if tt.block {
				framed = out.Reason
				if out.Decision != "block" || out.HookSpecificOutput != (struct{ HookEventName, AdditionalContext string }{}) {
					t.Errorf("want a block and nothing else: %+v", out)
				}
			} else if out.Decision != "" || out.HookSpecificOutput.HookEventName != map[string]string{HookStop: "Stop", HookPostToolUse: "PostToolUse"}[tt.hook] {
				t.Errorf("want hook context, no block: %+v", out)
			}
			if id, text, ok := Unframe(framed); !ok || id != m.ID || text != words {
				t.Errorf("framed message %q does not round-trip", framed)
			}
			if want := map[bool]string{true: "From the side panel: " + words}[tt.notice]; out.SystemMessage != want {
				t.Errorf("systemMessage %q, want %q", out.SystemMessage, want)
			}
		})
	}
}

func TestRewakeWaitsAndIsCancelledWhenBusy(t *testing.T) {
	h, _ := newHooks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got := make(chan Answer, 1)
	go func() { got <- h.Handle(ctx, HookRewake, in) }()
	time.Sleep(50 * time.Millisecond)
	h.Queue.Enqueue("ws", "wake up")
	a := <-got
	if a.Exit != 2 || !strings.Contains(a.Stderr, "wake up") {
		t.Fatalf("rewake: %+v", a)
	}

	// A waiter is sent home when the agent turns busy, and replaced by a newer one.
	first := make(chan Answer, 1)
	go func() { first <- h.Handle(ctx, HookRewake, in) }()
	time.Sleep(50 * time.Millisecond)
	second := make(chan Answer, 1)
	go func() { second <- h.Handle(ctx, HookRewake, in) }()
	if a := <-first; a != (Answer{}) {
		t.Errorf("replaced waiter answered %+v", a)
	}
	time.Sleep(50 * time.Millisecond)
	h.Handle(ctx, HookUserPromptSubmit, in)
	if a := <-second; a != (Answer{}) {
		t.Errorf("busy agent's waiter answered %+v", a)
	}
	if n := len(h.Queue.List("ws")); n != 1 {
		t.Errorf("messages: %d", n)
	}
}

func TestNotificationAndSessionHooks(t *testing.T) {
	h, e := newHooks(t)
	ctx := context.Background()
	h.Handle(ctx, HookNotification, HookInput{Cwd: "/w", NotificationType: "permission_prompt"})
	h.Handle(ctx, HookNotification, HookInput{Cwd: "/w", Message: "Claude is waiting for your input"})
	h.Handle(ctx, HookSessionStart, in)
	h.Handle(ctx, HookSessionEnd, in)
	if len(e.needs) != 2 || e.needs[0] != "permission_prompt" || e.relooks != 2 {
		t.Errorf("needs %v relooks %d", e.needs, e.relooks)
	}
}

// TestCodexPermissionRequest: Codex's PermissionRequest hook marks the
// session as waiting for an approval and answers nothing, even with a
// message queued, so Codex goes on to ask the person as without the hook.
func TestCodexPermissionRequest(t *testing.T) {
	h, e := newHooks(t)
	if _, _, err := h.Queue.EnqueueTo("ws", "s", "not for this hook"); err != nil {
		t.Fatal(err)
	}
	ans := h.Handle(context.Background(), HookPermissionRequest, HookInput{SessionID: "s", Cwd: "/w", HookEventName: "PermissionRequest"})
	if ans != (Answer{}) {
		t.Errorf("answer %+v: the hook must leave the decision to the person", ans)
	}
	if len(e.needs) != 1 || e.needs[0] != ReasonPermission {
		t.Errorf("needs %v", e.needs)
	}
}

func TestUserScopeHooksActOnlyInAdoptedWorkspaces(t *testing.T) {
	h, _ := newHooks(t)
	ctx := context.Background()
	h.Queue.Enqueue("plain", "for a plain project")
	h.Queue.Enqueue("ws", "for conductor")
	if a := h.Handle(ctx, HookStop, HookInput{Cwd: "/plain", UserScope: true}); a != (Answer{}) {
		t.Errorf("user-scope hook acted in a plain project: %+v", a)
	}
	if a := h.Handle(ctx, HookStop, HookInput{Cwd: "/w", UserScope: true}); !strings.Contains(a.Stdout, "for conductor") {
		t.Errorf("user-scope hook in a Conductor workspace: %+v", a)
	}
	if a := h.Handle(ctx, HookStop, HookInput{Cwd: "/plain"}); !strings.Contains(a.Stdout, "for a plain project") {
		t.Errorf("project hook in a plain project: %+v", a)
	}
}

func TestPostToolUseWaitsForStopOnClaude20(t *testing.T) {
	h, e := newHooks(t)
	e.version = "2.0.77"
	ctx := context.Background()
	h.Queue.Enqueue("ws", "later")
	if a := h.Handle(ctx, HookPostToolUse, in); a != (Answer{}) {
		t.Errorf("2.0 got a mid-turn message it would not record: %+v", a)
	}
	if a := h.Handle(ctx, HookStop, in); !strings.Contains(a.Stdout, "later") {
		t.Errorf("stop: %+v", a)
	}
}

func TestNoHandOverToAHookThatGaveUp(t *testing.T) {
	h, e := newHooks(t)
	e.version = "2.1.328"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.Queue.Enqueue("ws", "keep me")
	for _, ev := range []string{HookStop, HookPostToolUse, HookRewake} {
		if a := h.Handle(ctx, ev, in); a != (Answer{}) {
			t.Errorf("%s answered a gone hook: %+v", ev, a)
		}
	}
	if m := h.Queue.List("ws")[0]; m.State != Queued {
		t.Errorf("message is %s, want still queued", m.State)
	}
}

// A message for one tab wakes that tab's idle agent only: the other tab's
// rewake hook keeps waiting.
func TestRewakeWakesOnlyTheTargetSession(t *testing.T) {
	h, e := newHooks(t)
	e.version = "2.1.328"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answers := make(chan string, 2)
	for _, s := range []string{"tab-a", "tab-b"} {
		go func() {
			a := h.Handle(ctx, HookRewake, HookInput{SessionID: s, Cwd: "/w"})
			answers <- s + ":" + a.Stderr
		}()
	}
	time.Sleep(50 * time.Millisecond) // both waiting
	if _, _, err := h.Queue.EnqueueTo("ws", "tab-b", "for b"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answers:
		if !strings.HasPrefix(got, "tab-b:") || !strings.Contains(got, "for b") {
			t.Fatalf("woken: %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no session woken")
	}
	select {
	case got := <-answers:
		t.Fatalf("the other tab was woken too: %q", got)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestStopAnswerFollowsTheAgent: a queued message goes out on the Stop
// hook as additional context only to an agent whose release takes it
// (Claude Code from 2.1.163, by its driver); every other session gets the
// block every release takes.
func TestStopAnswerFollowsTheAgent(t *testing.T) {
	// agent and version → whether the message goes as context.
	for tt, asContext := range map[[2]string]bool{
		{"claude", "2.1.328"}: true,
		{"claude", "2.1.163"}: true,
		{"claude", "2.1.162"}: false,
		{"claude", "2.0.77"}:  false,
		{"claude", ""}:        false,
		{"", "2.1.328"}:       true, // the default agent's
		{"codex", "0.169.0"}:  false,
		{"codex", "2.1.328"}:  false, // Codex numbers its own releases
		{"cursor", "2.1.328"}: false,
	} {
		h, e := newHooks(t)
		e.agent, e.version = tt[0], tt[1]
		if _, _, err := h.Queue.Enqueue("ws", "hello"); err != nil {
			t.Fatal(err)
		}
		a := h.Handle(context.Background(), HookStop, in)
		var out struct {
			Decision string `json:"decision"`
			Specific *struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(a.Stdout), &out); err != nil {
			t.Fatalf("%q: %q: %v", tt, a.Stdout, err)
		}
		if got := out.Specific != nil && out.Specific.AdditionalContext != ""; got != asContext || got == (out.Decision == "block") {
			t.Errorf("%q: %s; want additional context %v, else the block", tt, a.Stdout, asContext)
		}
	}
}

// TestNotifyHookEndsTheTurn: an agent's notify program (Codex's, named by
// its driver) is a hook event the bridge answers only while that driver is
// listed; its call ends the turn and is no sign that the session's hooks
// call in.
func TestNotifyHookEndsTheTurn(t *testing.T) {
	h, e := newHooks(t)
	for _, c := range []struct {
		event string
		want  bool
	}{{"codex-notify", true}, {"stop", true}, {"permission-request", true}, {"rm-rf", false}, {"", false}} {
		if got := h.Knows(c.event); got != c.want {
			t.Errorf("Knows(%q) = %v, want %v", c.event, got, c.want)
		}
	}
	if a := h.Handle(context.Background(), "codex-notify", in); a != (Answer{}) {
		t.Errorf("answer %+v, want none", a)
	}
	if e.ended != 1 || e.hooked != 0 {
		t.Errorf("turns ended %d, hooks noted %d; want 1 and 0", e.ended, e.hooked)
	}
	h.Agents = []HookAgent{claude.Agent{}}
	if h.Knows("codex-notify") {
		t.Error("codex-notify known with no Codex driver listed")
	}
}

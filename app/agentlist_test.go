package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/paths"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/transcript"
)

// fakeAgent is a throwaway agent, as a new driver package would be: its
// records (in Claude Code's transcript format, read by its parser) are
// the *.jsonl files of one folder, which its own flag names; each is a
// plain run, placed by its first line's cwd; its sessions take messages
// by a route of its own, which turns every message away.
type fakeAgent struct{ records string }

func (*fakeAgent) Name() string  { return "fake" }
func (*fakeAgent) Label() string { return "Fake" }

func (f *fakeAgent) Owns(record string) bool { return filepath.Dir(record) == f.records }

func (*fakeAgent) NewParser(saved json.RawMessage, _ *price.Table) (agent.Parser, error) {
	return transcript.NewParser(saved)
}

func (f *fakeAgent) Flags(fs *flag.FlagSet) {
	fs.StringVar(&f.records, "fake-records", "", "the fake agent's records")
}

func (f *fakeAgent) Resolve(r paths.Roots, _ func(string) string) {
	if f.records == "" {
		f.records = filepath.Join(r.Home, ".fake")
	}
}

// Runs lists every record of the folder (discover.Runs).
func (f *fakeAgent) Runs(_ time.Time, run func(dir, id, record string)) error {
	files, err := filepath.Glob(filepath.Join(f.records, "*.jsonl"))
	for _, file := range files {
		var first struct{ Cwd, SessionID string }
		if r, err := os.Open(file); err == nil {
			line, _ := bufio.NewReader(r).ReadBytes('\n')
			r.Close()
			if json.Unmarshal(line, &first) == nil {
				run(first.Cwd, first.SessionID, file)
			}
		}
	}
	return err
}

func (*fakeAgent) NewPusher() agent.Pusher { return fakePusher{} }

// fakeRefusal is what the fake agent's route answers every message.
const fakeRefusal = "the fake agent takes no message"

type fakePusher struct{}

func (fakePusher) Name() string                              { return "fake" }
func (fakePusher) Label() string                             { return "Fake" }
func (fakePusher) Route(string, string, bool) (bool, string) { return false, fakeRefusal }
func (fakePusher) Held(error) bool                           { return false }
func (fakePusher) Via() string                               { return "fake" }
func (fakePusher) Push(context.Context, string, string, string) (agent.Pushed, error) {
	return nil, errors.New("the fake agent takes no message")
}

// TestAnAgentIsOneLine: an agent added to the list, and nothing else,
// declares its flag on the bridge's commands, has its sessions found and
// streamed, and its route asked before a message is queued (issue 27).
func TestAnAgentIsOneLine(t *testing.T) {
	home := t.TempDir()
	records, work := filepath.Join(home, "fake-records"), filepath.Join(home, "work")
	for _, d := range []string{records, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	work, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	const session, prompt = "5b0c7c1e-8f3a-4d2b-9e6f-1a2b3c4d5e6f", "hello from the fake agent"
	line, _ := json.Marshal(map[string]any{"type": "user", "uuid": "u1", "sessionId": session, "cwd": work,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "message": map[string]any{"role": "user", "content": prompt}})
	if err := os.WriteFile(filepath.Join(records, session+".jsonl"), append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}

	agents := append(agentList(), &fakeAgent{}) // the one line
	declared := flag.NewFlagSet("serve", flag.ContinueOnError)
	(&config{agents: agents}).register(declared)
	if declared.Lookup("fake-records") == nil {
		t.Fatal("the fake agent's flag is not declared")
	}
	b, _ := startServe(t, agents, "--home", home, "--fake-records", records)

	changes := b.engine.Changes()
	guard := time.After(60 * time.Second) // a hang guard, not a timing assertion
	var wsID string
	for {
		wsID = streamed(b, work, session, prompt)
		if wsID != "" {
			break
		}
		select {
		case <-changes:
		case <-time.After(100 * time.Millisecond): // topics publish without a change
		case <-guard:
			t.Fatalf("the fake agent's session in %s was not listed with its prompt streamed; workspaces: %+v", work, b.engine.Workspaces())
		}
	}

	si, ok := b.engine.Session(wsID, session)
	if !ok || si.Agent != "fake" {
		t.Fatalf("session %s: %+v, %v; want the fake agent's", session, si, ok)
	}
	var refusals []string
	for _, r := range b.api.Routes {
		if r.Agent() == "fake" {
			refusals = append(refusals, r.Refusal(si))
		}
	}
	if len(refusals) != 1 || !strings.Contains(refusals[0], fakeRefusal) {
		t.Errorf("the fake agent's route answers %q, want one answer saying %q", refusals, fakeRefusal)
	}
}

// startServe starts a bridge in this process as serve does with args
// (after --addr 127.0.0.1:0) and the agent list agents; stop stops it
// (and is called when the test ends, if it was not).
func startServe(t *testing.T, agents []agent.Agent, args ...string) (*bridge, func()) {
	t.Helper()
	c := config{agents: agents}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.register(fs)
	if err := fs.Parse(append([]string{"--addr", "127.0.0.1:0"}, args...)); err != nil {
		t.Fatal(err)
	}
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b, err := startBridge(ctx, c, zerolog.Nop())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-b.done
			b.hub.Close()
		}
	}
	t.Cleanup(stop)
	return b, stop
}

// streamed is the id of the workspace of dir when it lists session as the
// fake agent's and its stream holds prompt, "" until then.
func streamed(b *bridge, dir, session, prompt string) string {
	for _, w := range b.engine.Workspaces() {
		if w.Directory != dir {
			continue
		}
		topic, ok := b.engine.Topic(w.ID)
		if !ok {
			return ""
		}
		for _, it := range topic.History(0) {
			if it.Type == "user" && it.SessionID == session && strings.Contains(string(it.Data), prompt) {
				return w.ID
			}
		}
	}
	return ""
}

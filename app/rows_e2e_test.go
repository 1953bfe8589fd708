package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/rowcorpus"
)

func readCorpus(t *testing.T, name string) ([]rowcorpus.Row, string) {
	return rowcorpus.Read(t, filepath.Join("..", "bridge", "agent", "conductor", "testdata", "corpus", name))
}

// TestTabsWithNoReaderStreamFromConductorsRows runs a real bridge over a
// Conductor database (both schema shapes) with a Cursor tab and a tab of
// an agent_type no package reads. Their rows are written as Conductor
// writes them (one transaction a frame, WAL), the Cursor tab's in
// Claude-style envelopes and the unknown agent's as content.rawPayload,
// while a second writer commits rows of another tab all along. The bridge
// is stopped halfway and rows written while it is down: each tab streams
// exactly its recorded events (turns priced from the result frames), none
// lost and none twice, is listed with "source": "conductor" and a reason
// messages cannot reach it, and ends idle.
func TestTabsWithNoReaderStreamFromConductorsRows(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) { testRowTabs(t, shape) })
	}
}

func testRowTabs(t *testing.T, shape conductordb.Shape) {
	home := t.TempDir()
	dir := filepath.Join(home, "work", "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := conductordb.CreateIn(home, shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tabs := []struct{ tab, agent, corpus string }{
		{"s-cursor", "cursor", "claude-2.1.328"},
		{"s-other", "gemini", "codex-0.169.0"},
		{"s-busy", "cursor", ""}, // the second writer's
	}
	for _, tb := range tabs {
		if err := w.AddTab(shape, "w-rows", tb.tab, tb.agent, "Tab "+tb.tab); err != nil {
			t.Fatal(err)
		}
	}
	must(t, w.PlaceWorkspace("w-rows", "demo", dir, dir, "me/rows"))

	// The second writer commits all along, as Conductor's other process does.
	second, err := w.Second()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	stop := make(chan struct{})
	var busy sync.WaitGroup
	busy.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := second.Message("s-busy", "user", fmt.Sprintf("note %d", i)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	defer func() { close(stop); busy.Wait() }()

	corpora := map[string][]rowcorpus.Row{}
	want := map[string]string{}
	for _, tb := range tabs[:2] {
		corpora[tb.tab], want[tb.tab] = readCorpus(t, tb.corpus)
	}
	n := 0
	write := func(tab string, rows []rowcorpus.Row) {
		for _, r := range rows {
			n++
			content := string(r.Frame)
			if r.Text != nil {
				content = *r.Text
			}
			must(t, w.Exec("INSERT INTO session_messages (id, session_id, role, content, created_at) VALUES (?, ?, ?, ?, ?)",
				fmt.Sprintf("%s-%04d", tab, n), tab, r.Role, content, r.At))
		}
	}
	half := func(tab string) int { return len(corpora[tab]) / 2 }
	write("s-cursor", corpora["s-cursor"][:half("s-cursor")])

	p := startBridgeProc(t, home, 0)
	ws := p.waitFor(func(a apiWorkspace) bool { return a.ID == "w-rows" })
	c := openStream(t, p, ws.ID, 0)
	write("s-other", corpora["s-other"][:half("s-other")])
	c.until(t, 30*time.Second, func(evs []event.Event) bool {
		return countType(evs, "s-cursor", event.User) > 0 && countType(evs, "s-other", event.User) > 0
	})
	p.kill(syscall.SIGTERM)

	// Written while the bridge is down, and after it is back.
	write("s-cursor", corpora["s-cursor"][half("s-cursor"):])
	p = startBridgeProc(t, home, 0)
	write("s-other", corpora["s-other"][half("s-other"):])
	evs := openStream(t, p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		return countType(evs, "s-cursor", event.TurnComplete) == 2 && countType(evs, "s-other", event.TurnComplete) == 1
	})
	for tab, wantText := range want {
		got := eventtest.Describe(eventtest.OfSession(evs, tab))
		if got != wantText {
			t.Errorf("%s streamed\n%s\nwant\n%s", tab, got, wantText)
		}
	}
	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		must(t, getJSON(t.Context(), p.cl(), "/api/workspaces/"+ws.ID, p.token(), &list))
		ok := 0
		for _, s := range list.Sessions {
			if id := s["session_id"]; (id == "s-cursor" || id == "s-other") && s["source"] == "conductor" && s["status"] == event.StateIdle && s["messages_blocked"] != nil {
				ok++
			}
		}
		if ok == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tabs are not listed idle from Conductor's record: %v", list.Sessions)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func countType(evs []event.Event, session, typ string) int {
	n := 0
	for _, ev := range evs {
		if ev.SessionID == session && ev.Type == typ {
			n++
		}
	}
	return n
}

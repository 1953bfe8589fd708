package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"conductorbridge/testkit/browsertest"
)

// secondTab starts another Claude Code session in the same project as w,
// as a second terminal (or a second Conductor tab) would: its own
// transcript file, its own session id.
func secondTab(w *transcriptWriter, id string) *transcriptWriter {
	tab := &transcriptWriter{t: w.t, path: filepath.Join(filepath.Dir(w.path), id+".jsonl"), cwd: w.cwd, ts: w.ts}
	tab.prompt("hello from the second tab")
	return tab
}

// twoTabsAnswer opens a second tab (session id second) beside tokyo's
// first, has each answer ("first tab answers", "second tab answers"), and
// waits until the page shows both answers labelled and its tab picker.
func (e *viewerEnv) twoTabsAnswer(second string) {
	e.t.Helper()
	tab := secondTab(e.tokyo, second)
	e.tokyo.assistant("end_turn", map[string]any{"type": "text", "text": "first tab answers"})
	tab.assistant("end_turn", map[string]any{"type": "text", "text": "second tab answers"})
	e.poll("both tabs' answers, labelled", `[...document.querySelectorAll('#log > .bubble.claude')].filter(n => n.dataset.tab).length >= 2`)
	e.poll("the picker", `!document.querySelector('#tab').hidden && document.querySelectorAll('#tab option').length === 3`)
}

// TestViewerShowsTabsInRealChromium: the real bridge follows two sessions
// of one workspace; the viewer labels each event with its tab, its picker
// narrows the view to one, and a message typed with a tab picked is
// queued for that tab.
func TestViewerShowsTabsInRealChromium(t *testing.T) {
	e := newViewerEnv(t)
	first := strings.TrimSuffix(filepath.Base(e.tokyo.path), ".jsonl")
	const second = "0b0b0b0b-2222-4222-8222-000000000002"
	e.twoTabsAnswer(second)
	labels := browsertest.Eval[map[string]string](t, e.ctx, `Object.fromEntries([...document.querySelectorAll('#log > .bubble.claude')].map(n => [n.textContent, n.dataset.tab + ' / ' + n.dataset.session]))`)
	if got := labels["first tab answers"]; got != "0a0a0a0a · Claude / "+first {
		t.Errorf("first tab's answer labelled %q", got)
	}
	if got := labels["second tab answers"]; got != "0b0b0b0b · Claude / "+second {
		t.Errorf("second tab's answer labelled %q", got)
	}

	// Pick the second tab: only its events remain, and the box names it.
	picked := browsertest.Eval[string](t, e.ctx, `(s => { s.value = '`+second+`'; s.dispatchEvent(new Event('change')); return s.value; })(document.querySelector('#tab'))`)
	if picked != second {
		t.Fatalf("picked %q", picked)
	}
	shown := browsertest.Eval[[]string](t, e.ctx, `[...new Set([...document.querySelectorAll('#log > [data-session]')].filter(n => !n.hidden).map(n => n.dataset.session))]`)
	if !slices.Equal(shown, []string{second}) {
		t.Errorf("with the second tab picked, sessions shown: %q", shown)
	}
	if to := browsertest.Eval[string](t, e.ctx, `document.querySelector('#target').textContent`); to != "To: 0b0b0b0b · Claude" {
		t.Errorf("target %q", to)
	}
	e.send("only for the second tab")
	e.poll("the sent message", `document.querySelector('#sent li') !== null`)
	var list struct {
		Messages []struct {
			Text      string `json:"message"`
			SessionID string `json:"session_id"`
		} `json:"messages"`
	}
	if err := getJSON(context.Background(), e.p.cl(), "/workspace/"+e.wsA.ID+"/session/messages", e.p.token(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Messages) != 1 || list.Messages[0].Text != "only for the second tab" || list.Messages[0].SessionID != second {
		t.Errorf("queue: %+v", list.Messages)
	}
	e.screenshot("viewer-tabs.png")
}

// TestSidePanelShowsTabsInRealChromium: the same in the Chrome side panel,
// following the paired workspace.
func TestSidePanelShowsTabsInRealChromium(t *testing.T) {
	e := newPanelEnv(t)
	e.cli("pair", "tokyo")
	e.poll("tokyo shown", `document.querySelector('#workspace').textContent.includes('tokyo') && document.querySelector('#notice').hidden`)
	const second = "0b0b0b0b-2222-4222-8222-000000000002"
	e.twoTabsAnswer(second)
	browsertest.Eval[string](t, e.ctx, `(s => { s.value = '`+second+`'; s.dispatchEvent(new Event('change')); return s.value; })(document.querySelector('#tab'))`)
	shown := browsertest.Eval[[]string](t, e.ctx, `[...document.querySelectorAll('#log > .bubble.claude')].filter(n => !n.hidden).map(n => n.textContent)`)
	if !slices.Equal(shown, []string{"second tab answers"}) {
		t.Errorf("with the second tab picked, answers shown: %q", shown)
	}
	if to := browsertest.Eval[string](t, e.ctx, `document.querySelector('#target').textContent`); to != "To: 0b0b0b0b · Claude" {
		t.Errorf("target %q", to)
	}
}

package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/inject"
	usagerep "conductorbridge/bridge/usage"
)

// demoTurnsMatch checks that `usage` (the bridge's report, as the command
// asks it) counts as many turns for the demo's session as the session's
// stream carried turn_complete events (issue 26: a message that arrives
// while the agent waits must not split a turn). The agent goes on working
// while the two are read, so the stream is counted up to the last turn
// usage saw: its row's end, that turn_complete's time.
//
// usage is read once the agent idles between turns. A report read while a
// turn was still being written counts that turn as cut off where the file
// ended (usage's rule for a killed agent), at a time no turn_complete has:
// then the next pause between turns is tried.
func demoTurnsMatch(t *testing.T, c *sseClient, seen []event.Event, cfg config, session string) {
	t.Helper()
	evs := seen
	idle := func(more []event.Event) bool {
		return len(more) > 0 && more[len(more)-1].Type == event.Status && more[len(more)-1].State == event.StateIdle
	}
	for try := 1; try <= 10; try++ {
		evs = append(evs, c.until(t, 60*time.Second, idle)...)
		row := sessionUsage(t, cfg, session)
		// n: the stream's turns up to usage's last; at: one of them ended
		// then; past: the stream is past that time.
		count := func(evs []event.Event) (n int, at, past bool) {
			for _, e := range evs {
				if e.Type == event.TurnComplete && e.SessionID == session {
					past = past || e.TS.After(row.End)
					if !e.TS.After(row.End) {
						n++
						at = at || e.TS.Equal(row.End)
					}
				}
			}
			return n, at, past
		}
		if _, at, past := count(evs); !at && !past {
			evs = append(evs, c.until(t, 60*time.Second, func(more []event.Event) bool {
				_, at, past := count(more)
				return at || past
			})...)
		}
		n, at, _ := count(evs)
		if !at {
			t.Logf("usage's last turn for the session ends at %s, when no turn_complete did: read mid-turn; again",
				row.End.Format(time.RFC3339Nano))
			continue
		}
		if n != row.Turns {
			t.Errorf("the stream carried %d turn_complete events for the session up to %s; usage counts %d turns",
				n, row.End.Format(time.RFC3339Nano), row.Turns)
			for _, e := range evs {
				if e.SessionID == session && (e.Type == event.TurnComplete || e.Type == event.User) {
					t.Logf("%d %s %s %.60q", e.ID, e.TS.Format(time.RFC3339Nano), e.Type, e.Content)
				}
			}
		}
		t.Logf("pause %d: the stream carried %d turn_complete events, usage counts %d turns", try, n, row.Turns)
		return
	}
	t.Fatal("usage was read mid-turn at each of 10 pauses between turns")
}

// sessionUsage is the bridge's usage row for a session.
func sessionUsage(t *testing.T, cfg config, session string) usagerep.Row {
	t.Helper()
	rep, err := bridgeUsage(context.Background(), cfg, "session", "", "", "", false)
	if err != nil {
		t.Fatalf("usage: %v", err)
	}
	for _, r := range rep.Rows {
		if strings.HasSuffix(r.Key, session) {
			return r
		}
	}
	t.Fatalf("usage has no row for the session %s: %+v", session, rep.Rows)
	return usagerep.Row{}
}

// demoWaitingMessage sends the demo's agent a message as it starts a turn,
// so that the Stop hook hands it over at the turn's end and the agent goes
// on with the same turn: the moment that split a turn in two (issue 26).
// A turn that ends before the message is queued has it answered after,
// woken (rewake); then the next turn is tried. It returns the events read.
func demoWaitingMessage(t *testing.T, c *sseClient, cfg config, ws string) []event.Event {
	t.Helper()
	var evs []event.Event
	for try := 1; try <= 5; try++ {
		// A turn starts: the person's prompt, not a message of the bridge's.
		evs = append(evs, c.until(t, 60*time.Second, func(more []event.Event) bool {
			return len(more) > 0 && more[len(more)-1].Type == event.User && more[len(more)-1].MessageID == ""
		})...)
		text := fmt.Sprintf("while you work: check the tablet view too (%d)", try)
		var res struct{ ID string }
		if err := apiCall(context.Background(), cfg, http.MethodPost, "/workspace/"+ws+"/session/messages",
			map[string]string{"message": text}, &res); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, c.until(t, 60*time.Second, func(more []event.Event) bool {
			return len(more) > 0 && more[len(more)-1].Type == event.User && more[len(more)-1].MessageID == res.ID
		})...)
		var list struct{ Messages []inject.Message }
		if err := apiCall(context.Background(), cfg, http.MethodGet, "/workspace/"+ws+"/session/messages", nil, &list); err != nil {
			t.Fatal(err)
		}
		for _, m := range list.Messages {
			if m.ID == res.ID && m.Via == "stop" {
				return evs
			}
			if m.ID == res.ID {
				t.Logf("message %d delivered via %q, not at the turn's end; again", try, m.Via)
			}
		}
	}
	t.Fatal("no message reached the agent at a turn's end in 5 turns")
	return nil
}

package event

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestAppendWireIsJSON: the hand-written encoding of each common event
// type is byte for byte what encoding/json makes of the wire struct, for
// text full of what JSON escapes (quotes, control characters, HTML, bad
// UTF-8, U+2028) and for random strings.
func TestAppendWireIsJSON(t *testing.T) {
	nasty := []string{"", "plain", `quote " and \ back`, "tab\tnl\ncr\rbs\bff\f\x00\x1f\x7f", "<b>&amp;</b>",
		"bad \xff\xfe utf8 \xe2\x82", "line\u2028para\u2029", "日本語 😀", strings.Repeat("x", 600)}
	ts := time.Date(2026, 12, 3, 10, 0, 0, 123456789, time.FixedZone("x", 3600))
	var events []Event
	for i, s := range nasty {
		for _, typ := range []string{Assistant, Thinking, User, ToolUse, ToolResult, Status} {
			e := Event{Type: typ, ID: int64(i), SessionID: s, Agent: "claude", Content: s, MessageID: s,
				Name: s, ToolUseID: s, Input: s, Output: s, State: s, Reason: s,
				Truncated: i%2 == 0, TruncIn: i%3 == 0, TruncOut: i%2 == 1, IsError: i%3 == 1,
				Sidechain: i%2 == 1, System: i%3 == 2, Model: "not on these types"}
			if i%2 == 0 {
				e.TS = ts
			}
			events = append(events, e)
		}
	}
	for i, s := range nasty {
		for _, action := range []string{BrowseStart, BrowseEnd, BrowseNavigation, BrowseError, BrowseGap, s} {
			events = append(events, Event{Type: Browse, ID: int64(i), TS: ts, SessionID: s, Agent: s, Sidechain: i%2 == 1,
				System: true, Action: action, Command: s, Args: s, URL: s, OK: i%2 == 0, Error: s, Result: s,
				DurationMS: int64(i * 7), BrowseID: int64(i + 1), GapFrom: int64(i), AvailableFrom: int64(i + 9),
				Content: s, Name: s, Input: s, Model: "not on browse events"})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		events = append(events, Event{Type: User, ID: rng.Int64(), Content: string(b)},
			Event{Type: ToolResult, Output: string(b), Name: string(b[:len(b)/2])},
			Event{Type: Browse, Action: BrowseEnd, Args: string(b), URL: string(b[len(b)/2:]), Result: string(b), BrowseID: rng.Int64()})
	}
	for _, e := range events {
		want, err := e.marshalWire()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := e.appendWire(nil)
		if !ok {
			t.Fatalf("%s: no fast path", e.Type)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", e.Type, got, want)
		}
		viaJSON, _ := json.Marshal(e) // as a caller of encoding/json sees it
		if !bytes.Equal(viaJSON, want) {
			t.Fatalf("json.Marshal %s:\n got %s\nwant %s", e.Type, viaJSON, want)
		}
	}
	for _, typ := range []string{TurnComplete, Session, Pairing, Gap} {
		if _, ok := (&Event{Type: typ}).appendWire(nil); ok {
			t.Errorf("%s took the fast path, which does not write its fields", typ)
		}
	}
}

func BenchmarkMarshalToolResult(b *testing.B) {
	e := Event{Type: ToolResult, ID: 42, TS: time.Now(), SessionID: "0123456789abcdef", Agent: "claude", Name: "Bash",
		ToolUseID: "toolu_01ABCDEF", Output: strings.Repeat("total 8 drwxr-xr-x file.go\n", 12)}
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(e)
		}
	})
	b.Run("append", func(b *testing.B) {
		for b.Loop() {
			e.MarshalJSON()
		}
	})
}

// TestAppendJSONIsMarshalJSON: AppendJSON adds to what the buffer holds
// exactly the bytes MarshalJSON returns, for the types it writes itself
// and for those it encodes through wire.
func TestAppendJSONIsMarshalJSON(t *testing.T) {
	cases := []Event{
		{Type: User, ID: 7, SessionID: "s", Content: "say \"hi\"\n<b>"},
		{Type: ToolResult, ID: 8, Name: "Bash", Output: "ok", IsError: true},
		{Type: TurnComplete, ID: 9, Usage: Usage{InputTokens: 3, OutputTokens: 4}, CostUSD: 0.5, CostKnown: true, Model: "m"},
		{Type: Session, ID: 10, Path: "/p", Workspace: "w", Reason: FollowReason, Paired: true},
		{Type: Gap, ID: 11, GapFrom: 2, AvailableFrom: 5},
	}
	for _, e := range cases {
		t.Run(e.Type, func(t *testing.T) {
			want, err := e.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.AppendJSON([]byte("prefix:"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "prefix:"+string(want) {
				t.Fatalf("AppendJSON = %s\nwant prefix:%s", got, want)
			}
		})
	}
}

package tray

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"conductorbridge/bridge/event"
)

// A note is one notification, waiting to be shown.
type note struct {
	workspace string
	kind      string // event.TurnComplete or event.StateNeedsInput
	title     string
	body      string
	line      string // how it reads as one line of a summary
}

func finishedNote(id, name string, e event.Event, answer string) note {
	facts := fmt.Sprintf("$%.2f · %s", e.CostUSD, duration(time.Duration(e.DurationMS)*time.Millisecond))
	words := firstWords(answer, 90)
	body := facts
	if words != "" {
		body = words + "\n" + facts
	}
	return note{workspace: id, kind: event.TurnComplete, title: name + " finished", body: body,
		line: name + " finished · " + facts}
}

func needsInputNote(id, name, reason string) note {
	why := "Claude is waiting for you"
	switch reason {
	case "permission_prompt":
		why = "Claude asks for permission"
	case "idle_prompt":
		why = "Claude is waiting for your reply"
	}
	return note{workspace: id, kind: event.StateNeedsInput, title: name + " needs your input", body: why,
		line: name + " needs your input"}
}

// worthNotifying applies the person's settings to a note.
func worthNotifying(s Settings, n note, paired, viewing bool, turn time.Duration) bool {
	switch {
	case s.Notifications == NotifyOff:
		return false
	case s.Notifications == NotifyPaired && !paired:
		return false
	case s.IsMuted(n.workspace):
		return false
	case s.QuietWhenViewing && paired && viewing:
		return false // they are looking at it in the browser
	case n.kind == event.TurnComplete && turn < time.Duration(s.MinTurnSeconds)*time.Second:
		return false // a quick turn: they were probably still watching
	}
	return true
}

// coalescer keeps a burst of notes from becoming a storm: the first note of
// a quiet spell shows at once, and whatever follows within the window is
// folded into one summary when the window ends.
type coalescer struct {
	window     time.Duration
	quietUntil time.Time
	held       []note
}

// add returns the note to show now, or false when it is held for the
// summary; then the caller flushes at the returned time.
func (c *coalescer) add(now time.Time, n note) (show note, ok bool, flushAt time.Time) {
	if len(c.held) == 0 && !now.Before(c.quietUntil) {
		c.quietUntil = now.Add(c.window)
		return n, true, time.Time{}
	}
	c.held = append(c.held, n)
	return note{}, false, c.quietUntil
}

// flush returns the summary of the held notes, if any.
func (c *coalescer) flush(now time.Time) (note, bool) {
	if len(c.held) == 0 {
		return note{}, false
	}
	held := c.held
	c.held = nil
	c.quietUntil = now.Add(c.window)
	return summary(held), true
}

func summary(ns []note) note {
	if len(ns) == 1 {
		return ns[0]
	}
	needs := 0
	for _, n := range ns {
		if n.kind == event.StateNeedsInput {
			needs++
		}
	}
	title := fmt.Sprintf("%d agents finished", len(ns))
	if needs > 0 {
		title = fmt.Sprintf("%d agents need your attention", len(ns))
	}
	var lines []string
	for i, n := range ns {
		if i == 4 {
			lines = append(lines, fmt.Sprintf("and %d more", len(ns)-i))
			break
		}
		lines = append(lines, n.line)
	}
	return note{kind: "summary", title: title, body: strings.Join(lines, "\n")}
}

// firstWords returns about n characters of s, cut at a word.
func firstWords(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut, _ := event.Cut(s, n)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

// duration is a short human duration: 45s, 3m 05s, 1h 02m.
func duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

package inject

import (
	"regexp"
	"strings"

	"conductorbridge/bridge/event"
)

// Frame wraps a message so Claude knows it comes from the person, typed in
// the Chrome side panel while it works, and so the bridge can recognise it
// in the transcript by its id.
func Frame(m Message) string {
	return event.InjectedMarker + m.ID + "] The user sent this from the Chrome side panel; " +
		"treat it as their own words and act on it now:\n\n" + m.Text
}

var framed = regexp.MustCompile(`\[Conductor Bridge message (m-[0-9a-f]{12})\][^\n]*\n\n`)

// Unframe finds a framed message in text, wherever Claude Code put it (after
// "Stop hook feedback:", inside a hook-context wrapper …), and returns its
// id and the person's words.
func Unframe(text string) (id, msg string, ok bool) {
	loc := framed.FindStringSubmatchIndex(text)
	if loc == nil {
		return "", "", false
	}
	id = text[loc[2]:loc[3]]
	return id, strings.TrimSpace(text[loc[1]:]), true
}

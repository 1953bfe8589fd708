package inject

import (
	"regexp"
	"strings"

	"conductorbridge/bridge/event"
)

// frameNote follows the marker on the frame's one header line. Every
// agent shows the frame under a label of its own ("Stop hook feedback:",
// "Stop hook says:", a hook prompt), so the note says whose words follow,
// in as few words as that takes.
const frameNote = "Sent by the user from the Chrome side panel:"

// Frame wraps a message so the agent knows the person typed it in the
// Chrome side panel, and so the bridge can recognise it in the transcript
// by its id: one header line, a blank line, then the person's words as
// they typed them. The header comes first because the bridge cuts what it
// streams at 500 characters and must still find the id in a long message.
func Frame(m Message) string {
	return event.InjectedMarker + m.ID + "] " + frameNote + "\n\n" + m.Text
}

var framed = regexp.MustCompile(`\[Conductor Bridge message (m-[0-9a-f]{12})\][^\n]*\n\n`)

// Unframe finds a framed message in text, wherever the agent put it (after
// "Stop hook feedback:", inside a hook-context wrapper …), and returns its
// id and the person's words. Frames of earlier releases, whose header line
// said more, are recognised alike.
func Unframe(text string) (id, msg string, ok bool) {
	loc := framed.FindStringSubmatchIndex(text)
	if loc == nil {
		return "", "", false
	}
	id = text[loc[2]:loc[3]]
	return id, strings.TrimSpace(text[loc[1]:]), true
}

package inject

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFrameIsOneShortHeaderThenTheWords checks what every agent shows of a
// message: one header line the bridge needs (its id), then the person's
// words exactly as typed.
func TestFrameIsOneShortHeaderThenTheWords(t *testing.T) {
	const words = "no, test the mobile view\nand the footer"
	f := Frame(Message{ID: "m-0123456789ab", Text: words})
	header, rest, ok := strings.Cut(f, "\n\n")
	if !ok || rest != words {
		t.Fatalf("frame %q: want a header, a blank line, then the words", f)
	}
	if n := utf8.RuneCountInString(header); n > 90 || strings.Contains(header, "\n") {
		t.Errorf("header %q is %d runes; it must stay one short line", header, n)
	}
	if id, text, ok := Unframe("Stop hook feedback:\n" + f); !ok || id != "m-0123456789ab" || text != words {
		t.Errorf("Unframe: %q %q %v", id, text, ok)
	}
}

// TestUnframeReadsEarlierFrames: transcripts written before the header was
// shortened still show the person's words and confirm the message.
func TestUnframeReadsEarlierFrames(t *testing.T) {
	old := "Stop hook feedback:\n[Conductor Bridge message m-00000000c0de] The user sent this from the Chrome side panel; " +
		"treat it as their own words and act on it now:\n\nplease test the mobile view"
	if id, text, ok := Unframe(old); !ok || id != "m-00000000c0de" || text != "please test the mobile view" {
		t.Errorf("Unframe: %q %q %v", id, text, ok)
	}
}

func TestNoticeIsCutLikeTheStream(t *testing.T) {
	long := strings.Repeat("é", 600)
	n := notice(Message{Text: long})
	if !strings.HasPrefix(n, panelLabel) || utf8.RuneCountInString(n) != utf8.RuneCountInString(panelLabel)+500+1 || !strings.HasSuffix(n, "…") {
		t.Errorf("notice of a 600-rune message: %d runes", utf8.RuneCountInString(n))
	}
	if n := notice(Message{Text: "short"}); n != panelLabel+"short" {
		t.Errorf("notice %q", n)
	}
}

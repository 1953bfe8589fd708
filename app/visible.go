package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// visibleWriter renders control characters visibly in everything a
// command prints. What it prints comes in part from transcripts, which
// anything the agent read can write to: an escape sequence there could set
// the clipboard (OSC 52), retitle the window or clear the screen.
//
// A control character becomes a \uXXXX escape (ESC is \u001b): readable,
// and inside a JSON string (tail --json) the same character again, so
// JSON output stays valid and lossless. Newlines and tabs pass. So do
// C0 controls' cousins: C1 controls (U+0080–U+009F), DEL, the bidi
// overrides that reorder what a line seems to say; a byte that is not
// UTF-8 (an 8-bit C1 to some terminals) becomes \xNN.
type visibleWriter struct {
	w     io.Writer
	carry []byte // the start of a UTF-8 sequence the next Write completes
	buf   []byte
}

func newVisible(w io.Writer) *visibleWriter { return &visibleWriter{w: w} }

// fieldBreaks are what the visible writer lets through but a field must
// not hold: a line break starts a row of its own (a transcript could fake
// a workspace or an event), a tab a column.
var fieldBreaks = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)

// field makes a value read from a record or a folder name one field of a
// line: its line breaks and tabs shown as \n, \r, \t.
func field(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	return fieldBreaks.Replace(s)
}

// Unwrap returns the writer underneath (whether it is a terminal decides
// how logs are shown).
func (v *visibleWriter) Unwrap() io.Writer { return v.w }

func (v *visibleWriter) Write(p []byte) (int, error) {
	data := p
	if len(v.carry) > 0 {
		data = append(v.carry, p...)
		v.carry = nil
	}
	out := v.buf[:0]
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f) {
				out = append(out, c)
			} else {
				out = fmt.Appendf(out, `\u%04x`, c)
			}
			i++
			continue
		}
		if !utf8.FullRune(data[i:]) {
			v.carry = append([]byte(nil), data[i:]...)
			break
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, `\x%02x`, c)
		case hidden(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	v.buf = out[:0]
	if _, err := v.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes an unfinished UTF-8 sequence left at the end, as bytes.
func (v *visibleWriter) Flush() error {
	var out []byte
	for _, c := range v.carry {
		out = fmt.Appendf(out, `\x%02x`, c)
	}
	v.carry = nil
	if len(out) == 0 {
		return nil
	}
	_, err := v.w.Write(out)
	return err
}

// hidden reports non-ASCII runes a terminal acts on or that change how a
// line reads: C1 controls, bidi embeddings, overrides and isolates, and
// the line and paragraph separators.
func hidden(r rune) bool {
	return (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || r == 0x061c
}

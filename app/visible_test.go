package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestVisibleWriter(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"OSC 52 sets the clipboard", "a\x1b]52;c;cm0gLXJmIH4=\x07b", `a\u001b]52;c;cm0gLXJmIH4=\u0007b`},
		{"title", "\x1b]0;pwned\x1b\\", `\u001b]0;pwned\u001b\`},
		{"clear screen", "\x1b[2J\x1b[H", `\u001b[2J\u001b[H`},
		{"8-bit CSI as UTF-8", "x\u009b2Jy", `x\u009b2Jy`},
		{"8-bit CSI raw byte", "x\x9b2Jy", `x\x9b2Jy`},
		{"carriage return, backspace, DEL", "ok\rno\bd\x7f", `ok\u000dno\u0008d\u007f`},
		{"bidi override", "if admin \u202e// ", `if admin \u202e// `},
		{"newlines and tabs stay", "a\tb\nc — é ✓ 日本", "a\tb\nc — é ✓ 日本"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		w := newVisible(&b)
		if n, err := w.Write([]byte(tt.in)); err != nil || n != len(tt.in) {
			t.Fatalf("%s: Write = %d, %v", tt.name, n, err)
		}
		w.Flush()
		if b.String() != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, b.String(), tt.want)
		}
		if bytes.ContainsAny(b.Bytes(), "\x1b\x07\x9b\r\b") {
			t.Errorf("%s: a control got through: %q", tt.name, b.String())
		}
	}
}

// A rune split across two writes is kept whole; one left unfinished at
// the end comes out as bytes.
func TestVisibleWriterSplitRune(t *testing.T) {
	var b bytes.Buffer
	w := newVisible(&b)
	s := "é✓\u009b"
	for i := range len(s) {
		w.Write([]byte{s[i]})
	}
	w.Write([]byte{0xe2, 0x9c}) // the first two bytes of ✓
	w.Flush()
	if got, want := b.String(), `é✓\u009b\xe2\x9c`; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// tail --json prints the stream's JSON: the escapes keep it valid, and it
// decodes to the very same text.
func TestVisibleWriterKeepsJSON(t *testing.T) {
	text := "clip\x1b]52;c;eA==\x07 \u009b31m \u202e \x7f end"
	line, _ := json.Marshal(map[string]string{"content": text})
	var b bytes.Buffer
	w := newVisible(&b)
	w.Write(append(line, '\n'))
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["content"] != text {
		t.Errorf("JSON after the writer: %v %q", err, b.String())
	}
	if strings.ContainsAny(b.String(), "\x1b\u009b\u202e\x7f") {
		t.Errorf("raw controls in %q", b.String())
	}
}

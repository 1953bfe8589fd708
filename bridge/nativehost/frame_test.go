package nativehost

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestFrameIsNativeEndianLengthThenJSON: Chrome's framing, as its docs put
// it: "each message is serialized using JSON, UTF-8 encoded and is
// preceded with 32-bit message length in native byte order". Every target
// of the bridge (amd64, arm64) is little-endian, so the expected bytes are
// written out by hand, not by the code's own encoder.
func TestFrameIsNativeEndianLengthThenJSON(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("the literal below is little-endian")
	}
	var b bytes.Buffer
	if err := WriteMessage(&b, map[string]int{"port": 34568}); err != nil {
		t.Fatal(err)
	}
	want := append([]byte{14, 0, 0, 0}, `{"port":34568}`...)
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("frame % x, want % x", b.Bytes(), want)
	}
	// What Chrome sends for {"type":"connect"} reads back as that JSON.
	in := append([]byte{18, 0, 0, 0}, `{"type":"connect"}`...)
	msg, err := ReadMessage(bytes.NewReader(in), MaxToHost)
	if err != nil || string(msg) != `{"type":"connect"}` {
		t.Fatalf("read %q, %v", msg, err)
	}
}

func TestReadMessageRefusesBadStreams(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"clean end", nil, io.EOF},
		{"cut header", []byte{5, 0}, io.ErrUnexpectedEOF},
		{"cut body", append([]byte{10, 0, 0, 0}, "{}"...), io.ErrUnexpectedEOF},
		{"length 4 GiB - 1", []byte{0xff, 0xff, 0xff, 0xff}, ErrTooLarge},
		{"just over the limit", le(MaxToHost + 1), ErrTooLarge},
	}
	for _, tt := range tests {
		_, err := ReadMessage(bytes.NewReader(tt.in), MaxToHost)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if tt.want == io.EOF && err != io.EOF {
			t.Errorf("%s: a clean end must be io.EOF itself, got %v", tt.name, err)
		}
	}
	// Exactly at the limit is fine.
	body := bytes.Repeat([]byte(" "), MaxToHost)
	if msg, err := ReadMessage(bytes.NewReader(append(le(MaxToHost), body...)), MaxToHost); err != nil || len(msg) != MaxToHost {
		t.Errorf("a message at the limit: %d bytes, %v", len(msg), err)
	}
}

// TestWriteMessageKeepsToChromesLimit: Chrome closes the channel on a
// message over 1 MB from a host; the host refuses to write one.
func TestWriteMessageKeepsToChromesLimit(t *testing.T) {
	var b bytes.Buffer
	err := WriteMessage(&b, map[string]string{"error": strings.Repeat("x", MaxFromHost)})
	if !errors.Is(err, ErrTooLarge) || b.Len() != 0 {
		t.Errorf("an oversized reply: %v, %d bytes written", err, b.Len())
	}
	// 1 MB is Chromium's kMaximumNativeMessageSize (1024 * 1024).
	if MaxFromHost != 1<<20 {
		t.Errorf("MaxFromHost = %d", MaxFromHost)
	}
}

func le(n int) []byte { return []byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)} }

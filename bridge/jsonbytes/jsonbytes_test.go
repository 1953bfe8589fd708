package jsonbytes

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// reference is s as encoding/json writes it.
func reference(t *testing.T, s string, escapeHTML bool) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// TestStringEncodesAsEncodingJSON: every special byte at every place of a
// word (the fast path reads eight at a time), and random strings of them.
func TestStringEncodesAsEncodingJSON(t *testing.T) {
	specials := []string{"\"", "\\", "<", ">", "&", "\x00", "\x1f", "\n", "\t", "\x7f", " ", "é", "\u2028", "\u2029", "\xff", "\xe2\x80", "日本", "~"}
	var cases []string
	for _, sp := range specials {
		for pre := range 17 {
			cases = append(cases, strings.Repeat("a", pre)+sp+strings.Repeat("b", 9))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var sb strings.Builder
		for range r.IntN(40) {
			if r.IntN(4) == 0 {
				sb.WriteString(specials[r.IntN(len(specials))])
			} else {
				sb.WriteByte(byte('0' + r.IntN(75)))
			}
		}
		cases = append(cases, sb.String())
	}
	cases = append(cases, "", strings.Repeat("plain text ", 50))
	for _, s := range cases {
		for _, html := range []bool{true, false} {
			if got, want := string(String(nil, s, html)), reference(t, s, html); got != want {
				t.Fatalf("String(%q, html=%v) = %s, want %s", s, html, got, want)
			}
		}
	}
}

func BenchmarkString(b *testing.B) {
	s := strings.Repeat("The tests pass; the build is green and nothing else changed. ", 8)
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		buf = String(buf[:0], s, true)
	}
}

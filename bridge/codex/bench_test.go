package codex

import (
	"bytes"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
)

// realistic repeats a corpus session's turns (everything after its
// session_meta) until about size bytes: real Codex lines, many turns.
func realistic(b *testing.B, version string, size int) [][]byte {
	lines := corpusLines(b, version)
	out := [][]byte{lines[0]}
	n := len(lines[0])
	for n < size {
		for _, l := range lines[1:] {
			out = append(out, l)
			n += len(l) + 1
		}
	}
	return out
}

func benchParse(b *testing.B, lines [][]byte) {
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var out []event.Event
	for b.Loop() {
		p, _ := NewParser(nil)
		for _, l := range lines {
			out, _ = p.Line(l, out[:0])
		}
	}
}

// BenchmarkParse169 and BenchmarkParse047 measure parsing alone, lines in
// memory, on 32 MB of each release's rollout.
func BenchmarkParse169(b *testing.B) { benchParse(b, realistic(b, "0.169.0", 32<<20)) }
func BenchmarkParse047(b *testing.B) { benchParse(b, realistic(b, "0.47.0", 32<<20)) }

// BenchmarkLineToEvent measures the latency from one typical line (a
// shell call's output) to its event.
func BenchmarkLineToEvent(b *testing.B) {
	line := []byte(`{"timestamp":"2026-12-02T18:43:11.864Z","ordinal":16,"type":"response_item","payload":{"type":"function_call_output","id":"fco_1","call_id":"call_1","output":"Chunk ID: b9f5b2\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\n` + strings.Repeat("line of output\\n", 40) + `"}}`)
	benchLine(b, line)
}

// benchLine measures parsing line, again and again, with one parser.
func benchLine(b *testing.B, line []byte) {
	p, _ := NewParser(nil)
	var out []event.Event
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		out, _ = p.Line(line, out[:0])
	}
}

// BenchmarkHugeOutputLine measures a 4 MB tool output line (cut to 500
// runes on the way out).
func BenchmarkHugeOutputLine(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"`)
	buf.WriteString(strings.Repeat("0123456789abcdef", 4<<20/16))
	buf.WriteString(`"}}`)
	benchLine(b, buf.Bytes())
}

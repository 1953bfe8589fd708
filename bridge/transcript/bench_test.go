package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/transcript/synth"
)

// realistic returns about size bytes of a working session's transcript.
func realistic(tb testing.TB, size int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := synth.New(&buf, "0123456789abcdef", "/Users/me/conductor/workspaces/app/tokyo", 1)
	for i := 0; buf.Len() < size; i++ {
		if err := w.Turn(fmt.Sprintf("turn %d: fix the failing test", i)); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// BenchmarkParse measures parsing alone: lines already in memory.
func BenchmarkParse(b *testing.B) {
	data := realistic(b, 32<<20)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out []event.Event
	for b.Loop() {
		var p Parser
		for _, l := range lines {
			out, _ = p.Line(l, out[:0])
		}
	}
}

// BenchmarkReadAndParse measures the whole path from a file on disk:
// linefile.Reader (line splitting, partial lines) plus Parser.
func BenchmarkReadAndParse(b *testing.B) {
	data := realistic(b, 32<<20)
	path := filepath.Join(b.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var out []event.Event
	for b.Loop() {
		var p Parser
		r := linefile.Reader{Path: path}
		if _, err := r.Read(func(l []byte, _ int64) { out, _ = p.Line(l, out[:0]) }); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSynthParsesCleanly(t *testing.T) {
	data := realistic(t, 1<<20)
	var p Parser
	var out []event.Event
	turns := 0
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var err error
		out, err = p.Line(l, out[:0])
		if err != nil {
			t.Fatalf("synthetic line does not parse: %v", err)
		}
		for _, e := range out {
			if e.Type == event.TurnComplete {
				turns++
				if e.CostUSD <= 0 || e.Usage.OutputTokens == 0 {
					t.Errorf("turn without cost or tokens: %+v", e)
				}
			}
		}
	}
	if turns == 0 {
		t.Error("no turn completed")
	}
}

// BenchmarkSave measures encoding a working session's parser state, which
// the engine does for every batch it journals.
func BenchmarkSave(b *testing.B) {
	data := realistic(b, 1<<20)
	var p Parser
	var out []event.Event
	for l := range bytes.SplitSeq(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		out, _ = p.Line(l, out[:0])
	}
	raw, _ := p.Save()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Save(); err != nil {
			b.Fatal(err)
		}
	}
}

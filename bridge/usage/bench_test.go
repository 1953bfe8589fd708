package usage

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"conductorbridge/bridge/transcript/synth"
)

// writeSynthHistory writes about mb MB of Claude Code sessions under
// projects, each with a 2.1 subagent file, as the app's bench does.
func writeSynthHistory(tb testing.TB, projects string, mb int) int64 {
	tb.Helper()
	var size int64
	for i := 0; size < int64(mb)<<20; i++ {
		cwd := fmt.Sprintf("/Users/me/conductor/workspaces/app/ws%d", i%3)
		dir := filepath.Join(projects, fmt.Sprintf("-Users-me-ws%d", i%3))
		sid := fmt.Sprintf("%08x-1111-4111-8111-%012x", i, i)
		size += writeSynthFile(tb, filepath.Join(dir, sid+".jsonl"), sid, cwd, uint64(i+1), 7<<20/2)
		agent := fmt.Sprintf("a%07x-2222-4222-8222-%012x", i, i)
		size += writeSynthFile(tb, filepath.Join(dir, sid, "subagents", "agent-"+agent[:8]+".jsonl"), agent, cwd, uint64(i+1)<<32, 1<<19)
	}
	return size
}

// createFile creates the file path, and its folder if need be.
func createFile(tb testing.TB, path string) *os.File {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func writeSynthFile(tb testing.TB, path, sid, cwd string, seed uint64, want int64) int64 {
	tb.Helper()
	f := createFile(tb, path)
	defer f.Close()
	w := bufio.NewWriter(f)
	s := synth.New(w, sid, cwd, seed)
	for t := 0; ; t++ {
		if err := s.Turn("fix the failing test " + strconv.Itoa(t)); err != nil {
			tb.Fatal(err)
		}
		if int64(w.Buffered())+size(tb, f) >= want {
			break
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return size(tb, f)
}

func size(tb testing.TB, f *os.File) int64 {
	info, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	return info.Size()
}

// BenchmarkReadClaude reads a generated history on one worker: the read
// path `conductor-bridge usage` spends its time in. USAGE_BENCH_PROJECTS
// names a projects folder to read instead (a multi-GB one, say), on every
// CPU as the command does.
func BenchmarkReadClaude(b *testing.B) {
	projects := filepath.Join(b.TempDir(), "projects")
	src := Source{Formats: agentsAt(projects, ""), Workers: 1}
	var n int64
	if dir := os.Getenv("USAGE_BENCH_PROJECTS"); dir != "" {
		src = Source{Formats: agentsAt(dir, "")}
		h, err := src.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n = h.Bytes
	} else {
		n = writeSynthHistory(b, projects, 64)
	}
	b.SetBytes(n)
	for b.Loop() {
		if _, err := src.Read(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCold reads a generated history on one worker with no
// cache file yet, making it: the cold `usage` run, which besides reading
// every line (BenchmarkReadClaude) reads each line's time, keeps what
// made each turn's cost and writes the cache.
func BenchmarkReadCold(b *testing.B) {
	projects := filepath.Join(b.TempDir(), "projects")
	b.SetBytes(writeSynthHistory(b, projects, 64))
	path := filepath.Join(b.TempDir(), CacheFile)
	for b.Loop() {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			b.Fatal(err)
		}
		c := &Cache{Path: path}
		if _, err := (Source{Formats: agentsAt(projects, ""), Cache: c, Workers: 1}).Read(context.Background()); err != nil {
			b.Fatal(err)
		}
		if c.reread.Load() == 0 {
			b.Fatal("nothing was read")
		}
	}
}

// BenchmarkReadWarm reads a generated history with its cache file in
// place and nothing changed, as a second `usage` run does (a new Cache
// each time: the file is read and decoded every run).
func BenchmarkReadWarm(b *testing.B) {
	projects := filepath.Join(b.TempDir(), "projects")
	writeSynthHistory(b, projects, 128)
	path := filepath.Join(b.TempDir(), CacheFile)
	if _, err := (Source{Formats: agentsAt(projects, ""), Cache: &Cache{Path: path}}).Read(context.Background()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c := &Cache{Path: path}
		if _, err := (Source{Formats: agentsAt(projects, ""), Cache: c}).Read(context.Background()); err != nil {
			b.Fatal(err)
		}
		if c.reread.Load() > 0 {
			b.Fatal("a file was read again")
		}
	}
}

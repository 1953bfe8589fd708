package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
	"conductorbridge/bridge/transcript"
	"conductorbridge/bridge/transcript/synth"
)

// bench measures what users feel: how fast transcripts parse, how long a
// line takes to reach a stream client under load, and how fast and small a
// cold start over many big transcripts is. Everything runs on loopback in
// a throwaway home.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	parseMB := fs.Int("parse-mb", 64, "MB of transcript for the parser benchmark (0 skips)")
	nws := fs.Int("workspaces", 50, "workspaces written at once in the latency benchmark (0 skips)")
	nsubs := fs.Int("subscribers", 10, "SSE subscribers per workspace")
	lines := fs.Int("lines", 100, "lines appended per workspace")
	coldWS := fs.Int("cold-workspaces", 200, "workspaces for the cold start benchmark (0 skips)")
	coldMB := fs.Int("cold-mb", 2048, "MB of transcripts for the cold start benchmark")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "conductor-bridge-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(stdout, "conductor-bridge bench — %s, %d CPUs, %s/%s\n", version(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	if *parseMB > 0 {
		if err := benchParse(stdout, *parseMB); err != nil {
			return fmt.Errorf("parse benchmark: %w", err)
		}
	}
	if *nws > 0 {
		if err := benchLatency(ctx, stdout, filepath.Join(tmp, "latency"), *nws, *nsubs, *lines); err != nil {
			return fmt.Errorf("latency benchmark: %w", err)
		}
	}
	if *coldWS > 0 {
		if err := benchColdStart(ctx, stdout, filepath.Join(tmp, "cold"), *coldWS, *coldMB); err != nil {
			return fmt.Errorf("cold start benchmark: %w", err)
		}
	}
	return nil
}

func benchParse(w io.Writer, mb int) error {
	var buf bytes.Buffer
	s := synth.New(&buf, "0123456789abcdef", "/Users/me/conductor/workspaces/app/tokyo", 1)
	for i := 0; buf.Len() < mb<<20; i++ {
		if err := s.Turn("fix the failing test " + strconv.Itoa(i)); err != nil {
			return err
		}
	}
	data := buf.Bytes()
	var p transcript.Parser
	var out []event.Event
	events, bad := 0, 0
	start := time.Now()
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var err error
		out, err = p.Line(data[:i], out[:0])
		if err != nil {
			bad++
		}
		events += len(out)
		data = data[i+1:]
	}
	el := time.Since(start)
	fmt.Fprintf(w, "parse:      %d MB in %v = %.0f MB/s on one core (%d events, %d bad lines)\n",
		buf.Len()>>20, el.Round(time.Millisecond), float64(buf.Len())/(1<<20)/el.Seconds(), events, bad)
	return nil
}

// fakeHome makes n plain Claude Code projects under home and returns each
// one's workspace directory and transcript path.
func fakeHome(home string, n int) (dirs, files []string, err error) {
	for i := range n {
		dir := filepath.Join(home, "work", fmt.Sprintf("ws%03d", i))
		proj := filepath.Join(home, ".claude", "projects", discover.EncodeProjectDir(dir))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return nil, nil, err
		}
		dirs = append(dirs, dir)
		files = append(files, filepath.Join(proj, fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i)))
	}
	return dirs, files, nil
}

func benchLatency(ctx context.Context, w io.Writer, home string, nws, nsubs, nlines int) error {
	dirs, files, err := fakeHome(home, nws)
	if err != nil {
		return err
	}
	for i := range files { // one turn each, so every workspace has a session
		f, err := os.Create(files[i])
		if err != nil {
			return err
		}
		err = synth.New(f, filepath.Base(files[i]), dirs[i], uint64(i)).Turn("warm up")
		f.Close()
		if err != nil {
			return err
		}
	}
	c := config{Addr: "127.0.0.1:0"}
	c.Home = home
	if err := c.resolve(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b, err := startBridge(ctx, c, zerolog.Nop())
	if err != nil {
		return err
	}
	defer func() { cancel(); b.close() }() // the engine stops when ctx ends
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	b.api.Port = ln.Addr().(*net.TCPAddr).Port
	srv := &http.Server{Handler: b.api.Handler(), ConnContext: b.api.ConnContext}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	token := b.api.Token.Value
	ids, err := waitWorkspaces(ctx, base, token, nws, 30*time.Second)
	if err != nil {
		return err
	}
	// Subscribers: nsubs per workspace, each recording the latency of every
	// benchmark line, which carries its write time in its text.
	var mu sync.Mutex
	var lat []time.Duration
	var ready, done sync.WaitGroup
	want := nlines
	for _, id := range ids {
		for range nsubs {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				var after int64 = 1 << 62
				got, once := 0, sync.OnceFunc(ready.Done)
				defer once()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/workspace/"+id+"/session/stream?after="+strconv.FormatInt(after, 10), nil)
				req.Header.Set("Authorization", "Bearer "+token())
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return
				}
				defer resp.Body.Close()
				once()
				stream.Read(resp.Body, func(m stream.Message) error {
					now := time.Now()
					if m.Event != event.User {
						return nil
					}
					i := bytes.Index(m.Data, []byte("bench@"))
					if i < 0 {
						return nil
					}
					j := bytes.IndexByte(m.Data[i:], '"')
					ns, err := strconv.ParseInt(string(m.Data[i+6:i+j]), 10, 64)
					if err != nil {
						return nil
					}
					mu.Lock()
					lat = append(lat, now.Sub(time.Unix(0, ns)))
					mu.Unlock()
					if got++; got == want {
						return io.EOF
					}
					return nil
				})
			}()
		}
	}
	ready.Wait()
	// Writers: every workspace appends a line every 10 ms, all at once.
	start := time.Now()
	var wg sync.WaitGroup
	for i := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := os.OpenFile(files[i], os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer f.Close()
			s := synth.New(f, filepath.Base(files[i]), dirs[i], uint64(i)+1000)
			for range nlines {
				s.Prompt("bench@" + strconv.FormatInt(time.Now().UnixNano(), 10))
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	waitDone := make(chan struct{})
	go func() { done.Wait(); close(waitDone) }()
	select {
	case <-waitDone:
	case <-time.After(10 * time.Second):
	}
	el := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	expected := nws * nsubs * nlines
	fmt.Fprintf(w, "latency:    %d workspaces × %d subscribers, %d lines each: %d/%d deliveries in %v (%.0f deliveries/s)\n",
		nws, nsubs, nlines, len(lat), expected, el.Round(time.Millisecond), float64(len(lat))/el.Seconds())
	if len(lat) == 0 {
		return errors.New("no event reached a subscriber")
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	fmt.Fprintf(w, "            line appended → SSE event read: p50 %v  p90 %v  p99 %v  max %v\n",
		pct(0.50).Round(10*time.Microsecond), pct(0.90).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	return nil
}

// waitWorkspaces polls the API until n workspaces each have a session.
// token is read on each try: a bridge just started may not have made it yet.
func waitWorkspaces(ctx context.Context, base string, token func() string, n int, limit time.Duration) ([]string, error) {
	deadline := time.Now().Add(limit)
	for {
		list, err := listWorkspaces(ctx, base, token())
		if err == nil {
			var ids []string
			for _, ws := range list {
				if ws.LastEventID > 0 {
					ids = append(ids, ws.ID)
				}
			}
			if len(ids) >= n {
				return ids, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("only %d of %d workspaces ready after %v", len(list), n, limit)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// benchColdStart writes nws transcripts totalling mb megabytes, then starts
// the real binary on them and times it until every workspace has its
// session read, and reads its resident memory.
func benchColdStart(ctx context.Context, w io.Writer, home string, nws, mb int) error {
	dirs, files, err := fakeHome(home, nws)
	if err != nil {
		return err
	}
	per := int64(mb) << 20 / int64(nws)
	genStart := time.Now()
	for i := range files {
		f, err := os.Create(files[i])
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		cw := &countWriter{w: bw}
		s := synth.New(cw, filepath.Base(files[i]), dirs[i], uint64(i))
		for t := 0; cw.n < per; t++ {
			if err := s.Turn("turn " + strconv.Itoa(t)); err != nil {
				f.Close()
				return err
			}
		}
		bw.Flush()
		f.Close()
	}
	fmt.Fprintf(w, "cold start: wrote %d workspaces, %d MB of transcripts in %v\n", nws, mb, time.Since(genStart).Round(time.Millisecond))

	exe, err := os.Executable()
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	state := filepath.Join(home, "bridge-state")
	cmd := exec.CommandContext(ctx, exe, "serve", "--headless", "--home", home, "--addr", addr, "--log-level", "warn", "--state-dir", state)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR=") // the fake home's own ~/.claude
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	token := func() string { t, _ := auth.Read(filepath.Join(state, tokenFile)); return t }
	if _, err := waitWorkspaces(ctx, "http://"+addr, token, nws, 60*time.Second); err != nil {
		return err
	}
	ready := time.Since(start)
	rss := residentKB(cmd.Process.Pid)
	time.Sleep(3 * time.Second)
	steady := residentKB(cmd.Process.Pid)
	fmt.Fprintf(w, "            process start → all %d sessions streaming: %v; resident memory %s then, %s after 3 s\n",
		nws, ready.Round(time.Millisecond), kb(rss), kb(steady))
	return nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// residentKB reads a process's resident set size: /proc on Linux, ps elsewhere.
func residentKB(pid int) int64 {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	out, err := exec.Command("ps", "-o", "rss=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return n
}

func kb(n int64) string {
	if n == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1024)
}

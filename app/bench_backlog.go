package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"conductorbridge/bridge/stream"
	"conductorbridge/bridge/transcript/synth"
)

// runBenchBacklog is issue 12's risk 5: a session writes mb megabytes of
// transcript while the bridge is down; the bridge restarts and catches up
// from its journaled mark. Resident memory is sampled throughout.
func runBenchBacklog(ctx context.Context, r *benchReport, exe, root string, mb int) error {
	h, err := makeBenchHome(root, 1, 1, 0)
	if err != nil {
		return err
	}
	c, ids, err := startStreaming(ctx, exe, root, 1, 30*time.Second)
	if err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond) // the mark journaled
	last := lastEventID(ctx, c)
	if err := c.close(); err != nil {
		return fmt.Errorf("stop the bridge: %w", err)
	}
	lines, size, err := appendBacklog(h.files[0][0], h.dirs[0], int64(mb)<<20)
	if err != nil {
		return err
	}
	flushWrites()
	c, err = startChild(ctx, exe, root)
	if err != nil {
		return err
	}
	defer c.close()
	if err := readUntil(ctx, c, ids[0], last, []byte("backlog-end"), 120*time.Second); err != nil {
		return fmt.Errorf("catch up: %w", err)
	}
	took := time.Since(c.started)
	cond := fmt.Sprintf("%d lines, %.0f MB written while the bridge was down, caught up from the journal", lines, float64(size)/(1<<20))
	r.add("backlog catch-up", float64(took)/float64(time.Millisecond), "ms", cond+"; process start until its last line streams")
	peak := max(peakResidentKB(c.pid()), c.peakRSS.Load())
	r.addKB("peak resident memory, catch-up", peak, cond)
	time.Sleep(5 * time.Second)
	r.addKB("resident memory after catch-up", residentKB(c.pid()), cond+"; 5 s after its last line")
	return nil
}

// appendBacklog appends synth turns to path until size bytes were added,
// then the marker prompt, and returns the lines and bytes written.
func appendBacklog(path, cwd string, size int64) (lines int, written int64, err error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	lc := &lineCounter{w: bw}
	// Short lines, as a tool-heavy session writes them (about 300 bytes
	// each, the review's 400k lines in 114 MB): a turn is a prompt, 50
	// tool calls with their results, and an answer.
	sid := filepath.Base(path)[:36]
	for t := 0; lc.n < size; t++ {
		fmt.Fprintf(lc, `{"type":"user","sessionId":%q,"cwd":%q,"version":"2.1.328","timestamp":"2026-11-01T10:00:00Z","message":{"role":"user","content":"backlog turn %d"}}`+"\n", sid, cwd, t)
		for i := range 50 {
			fmt.Fprintf(lc, `{"type":"assistant","sessionId":%q,"cwd":%q,"version":"2.1.328","requestId":"req_%d_%d","timestamp":"2026-11-01T10:00:01Z","message":{"id":"msg_%d_%d","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":12,"output_tokens":40},"content":[{"type":"tool_use","id":"toolu_%d_%d","name":"Bash","input":{"command":"ls"}}]}}`+"\n", sid, cwd, t, i, t, i, t, i)
			fmt.Fprintf(lc, `{"type":"user","sessionId":%q,"cwd":%q,"timestamp":"2026-11-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d_%d","content":"ok"}]}}`+"\n", sid, cwd, t, i)
		}
		fmt.Fprintf(lc, `{"type":"assistant","sessionId":%q,"cwd":%q,"version":"2.1.328","requestId":"req_%d_end","timestamp":"2026-11-01T10:00:03Z","message":{"id":"msg_%d_end","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":12,"output_tokens":40},"content":[{"type":"text","text":"done"}]}}`+"\n", sid, cwd, t, t)
	}
	s := synth.New(lc, sid, cwd, 77)
	if err := s.Prompt("backlog-end"); err != nil {
		return 0, 0, err
	}
	return lc.lines, lc.n, bw.Flush()
}

type lineCounter struct {
	w     io.Writer
	n     int64
	lines int
}

func (c *lineCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.lines += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}

func lastEventID(ctx context.Context, c *benchChild) int64 {
	list, err := listWorkspaces(ctx, c.cl, c.token())
	if err != nil || len(list) == 0 {
		return 0
	}
	return list[0].LastEventID
}

// readUntil follows workspace id's stream from after until an event's
// data holds marker, reconnecting from the last id it read if the bridge
// cuts a reader that fell behind.
func readUntil(ctx context.Context, c *benchChild, id string, after int64, marker []byte, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	found := errors.New("found")
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.cl.url(streamPath(id, after)), nil)
		req.Header.Set("Authorization", "Bearer "+c.token())
		resp, err := c.cl.http(0).Do(req)
		if err == nil {
			err = stream.Read(resp.Body, func(m stream.Message) error {
				if m.ID > after {
					after = m.ID
				}
				if bytes.Contains(m.Data, marker) {
					return found
				}
				return nil
			})
			resp.Body.Close()
			if errors.Is(err, found) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond): // not up yet, or cut off
		}
	}
}

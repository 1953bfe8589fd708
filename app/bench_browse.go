package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"conductorbridge/benchkit/browseserver"
	"conductorbridge/bridge/event"
)

// runBenchBrowse times a browser action from the entry the browse server
// makes to the browse event a stream subscriber reads: a real bridge
// follows a workspace whose browse server (the stand-in of gstack's,
// benchkit/browseserver, in this process) makes `entries` entries at
// perSecond, each carrying its time in its arguments.
func runBenchBrowse(ctx context.Context, r *benchReport, exe, root string, entries, perSecond int) error {
	h, err := makeBenchHome(root, 1, 1, 16<<10)
	if err != nil {
		return err
	}
	srv, err := browseserver.New(h.dirs[0], browseserver.Options{})
	if err != nil {
		return fmt.Errorf("start the browse server: %w", err)
	}
	defer srv.Close()
	c, ids, err := startStreaming(ctx, exe, root, 1, 60*time.Second)
	if err != nil {
		return err
	}
	defer c.close()
	if err := waitBrowser(ctx, c, ids[0], 60*time.Second); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.cl.url(streamPath(ids[0], 1<<62)), nil)
	req.Header.Set("Authorization", "Bearer "+c.token())
	resp, err := c.cl.http(0).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var (
		mu  sync.Mutex
		lat []time.Duration
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		readStamped(resp.Body, event.Browse, func(sent, now time.Time) bool {
			mu.Lock()
			lat = append(lat, now.Sub(sent))
			n := len(lat)
			mu.Unlock()
			return n == entries
		})
	}()
	every := time.Second / time.Duration(max(perSecond, 1))
	tick := time.NewTicker(every)
	for range entries {
		<-tick.C
		srv.Emit(browseserver.Entry{Type: "navigation", Command: "goto", Args: []string{"bench@" + strconv.FormatInt(time.Now().UnixNano(), 10)},
			URL: "https://example.com/bench"})
	}
	tick.Stop()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	cancel()
	mu.Lock()
	defer mu.Unlock()
	cond := fmt.Sprintf("%d browse server entries at %d/s → browse events, one workspace, 1 SSE subscriber; %d/%d delivered (stand-in browse server, benchkit/browseserver)",
		entries, perSecond, len(lat), entries)
	r.addLatencies("browse entry → browse event read", lat, cond)
	return nil
}

// waitBrowser waits until the workspace says its browse server is live.
func waitBrowser(ctx context.Context, c *benchChild, id string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		list, err := listWorkspaces(ctx, c.cl, c.token())
		if err == nil {
			for _, w := range list {
				if w.ID == id && w.Browser {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the workspace's browse server was not followed after %v", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

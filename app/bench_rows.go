package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"conductorbridge/benchkit/conductordb"
)

// benchRows is the engine's row path through a real bridge: Conductor
// tabs the bridge has no reader for (Cursor), streamed from Conductor's
// own session_messages.
type benchRows struct {
	tabs, rows int           // tabs, one workspace each; rows each tab commits
	every      time.Duration // between two rows of a tab
	history    int           // rows already in the table, of tabs nobody reads
}

// runBenchRows writes a Conductor database of the newer shape the way
// Conductor does — WAL, one row a transaction, over b.history rows of
// other tabs — with `tabs` Cursor tabs, each committing a typed prompt
// every b.every while a second writer commits 50 rows/s to a tab nobody
// reads, and times each row from its commit to its event on the bridge's
// stream (one SSE subscriber a tab).
func runBenchRows(ctx context.Context, r *benchReport, exe, root string, b benchRows, serve ...string) error {
	shape := conductordb.AllShapes()[1]
	w, err := conductordb.CreateIn(root, shape.Schema)
	if err != nil {
		return err
	}
	defer w.Close()
	tabs := make([]string, b.tabs)
	for i := range tabs {
		ws, dir := fmt.Sprintf("w-%04d", i), filepath.Join(root, "work", fmt.Sprintf("cr%04d", i))
		tabs[i] = fmt.Sprintf("s-%04d", i)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := w.AddTab(shape, ws, tabs[i], "cursor", fmt.Sprintf("Tab %d", i)); err != nil {
			return err
		}
		if err := w.PlaceWorkspace(ws, "bench", filepath.Join(root, "work"), dir, "bench/"+ws); err != nil {
			return err
		}
		// Something to stream before the clock starts: the workspace is
		// ready once it has an event.
		if _, err := w.Message(tabs[i], "user", "start"); err != nil {
			return err
		}
	}
	if err := w.AddTab(shape, "w-busy", "s-busy", "claude", "Busy"); err != nil {
		return err
	}
	if err := benchHistory(w, b.history); err != nil {
		return err
	}
	c, ids, err := startStreaming(ctx, exe, root, b.tabs, 60*time.Second, serve...)
	if err != nil {
		return err
	}
	defer c.close()
	// Each tab commits through a connection of its own, all taking one
	// lock, as one writer process would. When each commit returned is
	// kept too: the time from the call includes the wait for the lock
	// and the WAL's sync, which are the writer's.
	var mu sync.Mutex
	committed := map[int64]time.Time{} // by the row's stamp
	prompter := func(i, _ int) (func(string), func(), error) {
		tw, err := w.Second()
		if err != nil {
			return nil, nil, err
		}
		return func(text string) {
			_, err := tw.Message(tabs[i], "user", text)
			done := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fmt.Fprintf(os.Stderr, "bench: commit to %s: %v\n", tabs[i], err)
			} else if ns, err := strconv.ParseInt(strings.TrimPrefix(text, "bench@"), 10, 64); err == nil {
				committed[ns] = done
			}
		}, func() { tw.Close() }, nil
	}
	bctx, stop := context.WithCancel(ctx)
	var busy sync.WaitGroup
	busy.Go(func() { benchBusyWriter(bctx, w) })
	res, err := runStreamLoad(ctx, c, nil, ids, streamLoad{workspaces: b.tabs, subs: 1, lines: b.rows, every: b.every, prompter: prompter})
	stop()
	busy.Wait()
	if err != nil {
		return err
	}
	cond := fmt.Sprintf("%d Cursor tabs in a Conductor database of the newer shape (WAL, %d rows of history), each committing a typed prompt every %v (one row a transaction) for %d rows while a second writer commits 50 rows/s to a tab nobody reads; from the commit call to its event on the real bridge's stream, 1 SSE subscriber a tab; %d/%d delivered%s",
		b.tabs, b.history, b.every, b.rows, len(res.lat), res.expected, benchLoad())
	r.addLatencies("Conductor row committed → SSE event", res.lat, cond)
	if len(res.settled) > 0 {
		r.addLatencies("Conductor row committed → SSE event, settled", res.settled, cond+"; rows committed from the run's second second on")
	}
	var fromReturn []time.Duration
	for sent, at := range res.arrived {
		if done, ok := committed[sent]; ok {
			fromReturn = append(fromReturn, max(0, at.Sub(done)))
		}
	}
	if len(fromReturn) > 0 {
		r.addLatencies("Conductor row commit returned → SSE event", fromReturn, strings.Replace(cond, "from the commit call", "from the commit call's return (the lock's wait and the WAL's sync left out)", 1))
	}
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// benchLive runs one bridge on nws workspaces and measures it idle, then
// under paced writes, a burst, and a fan-out to many subscribers.
type benchLive struct {
	workspaces  int
	sessions    int           // sessions per workspace, each writing in the paced run (0 means 1)
	idle        time.Duration // idle window for CPU and wake-ups
	settle      time.Duration // idle before that window
	pacedLines  int           // lines per workspace at 10 lines/s
	burstWS     int           // workspaces in the burst (0 skips it)
	burstSubs   int
	burstLines  int
	fanSubs     int // subscribers on one workspace (0 skips the fan-out)
	fanLines    int
	fanInterval time.Duration
	// working is how many of the workspaces write at 10 lines/s, the
	// others idle, for the bridge's whole CPU (0 skips it).
	working int
	serve   []string // more flags for the bridge (its CPU profile)
}

func runBenchLive(ctx context.Context, r *benchReport, exe, root string, o benchLive) error {
	per := max(o.sessions, 1)
	h, err := makeBenchHome(root, o.workspaces, per, 0)
	if err != nil {
		return err
	}
	c, ids, err := startStreaming(ctx, exe, root, o.workspaces, 60*time.Second, o.serve...)
	if err != nil {
		return err
	}
	defer c.close()
	cond := fmt.Sprintf("%d idle workspaces, no subscriber", o.workspaces)
	if o.idle > 0 {
		time.Sleep(o.settle) // past the first scans and sweeps, which back off
		cpu0, ok1 := cpuTime(c.pid())
		sw0, ok2 := contextSwitches(c.pid())
		time.Sleep(o.idle)
		cpu1, _ := cpuTime(c.pid())
		sw1, _ := contextSwitches(c.pid())
		cond += fmt.Sprintf(", over %v after %v settling", o.idle, o.settle)
		if ok1 {
			r.add("idle CPU", 100*float64(cpu1-cpu0)/float64(o.idle), "% of a core", cond+"; the process's own user+system time")
		} else {
			r.unknown("idle CPU", "% of a core", cond)
		}
		if ok2 {
			r.add("idle wake-ups", float64(sw1-sw0)/o.idle.Seconds(), "/s", cond+"; all threads' context switches")
		} else {
			r.unknown("idle wake-ups", "/s", cond)
		}
	}
	r.addKB("resident memory, idle", residentKB(c.pid()), cond)

	if o.pacedLines > 0 {
		res, err := runStreamLoad(ctx, c, h, ids, streamLoad{workspaces: o.workspaces, sessions: per, subs: 1, lines: o.pacedLines, every: 100 * time.Millisecond})
		if err != nil {
			return err
		}
		cond := fmt.Sprintf("%d workspaces × %d sessions, each session appending 10 lines/s for %d lines, 1 SSE subscriber per workspace; %d/%d delivered",
			o.workspaces, per, o.pacedLines, len(res.lat), res.expected)
		r.addLatencies("line appended → event read", res.lat, cond)
		r.addLatencies("line → event, after the first second", res.settled, cond+fmt.Sprintf("; the %d lines written from the run's second second on", len(res.settled)))
		if n := len(res.lat); res.cpuOK && n > 0 {
			r.add("bridge CPU per line", float64(res.bridgeCPU.Nanoseconds())/1e3/float64(n), "µs", cond+"; its user+system time from the first line to the last event read (watch, read, parse, journal, publish, write)")
		}
		if n := len(res.lat); res.switchesOK && n > 0 {
			r.add("bridge context switches per line", float64(res.switches)/float64(n), "", cond+"; all its threads' voluntary and involuntary switches over the same time: each is a thread put to sleep or woken")
		}
	}
	if o.working > 0 && o.pacedLines > 0 {
		n := min(o.working, o.workspaces)
		res, err := runStreamLoad(ctx, c, h, ids, streamLoad{workspaces: n, subs: 1, lines: o.pacedLines, every: 100 * time.Millisecond})
		if err != nil {
			return err
		}
		cond := fmt.Sprintf("%d of the %d workspaces each with an agent appending 10 lines/s for %d lines, the rest idle, 1 SSE subscriber per working workspace; %d/%d delivered",
			n, o.workspaces, o.pacedLines, len(res.lat), res.expected)
		if res.cpuOK && res.elapsed > 0 {
			r.add("bridge CPU while agents work", 100*float64(res.bridgeCPU)/float64(res.elapsed), "% of a core", cond+"; its user+system time over the run (what Activity Monitor shows)")
		} else {
			r.unknown("bridge CPU while agents work", "% of a core", cond)
		}
	}
	if o.burstWS > 0 {
		res, err := runStreamLoad(ctx, c, h, ids, streamLoad{workspaces: min(o.burstWS, o.workspaces), subs: o.burstSubs, lines: o.burstLines, every: 10 * time.Millisecond})
		if err != nil {
			return err
		}
		cond := fmt.Sprintf("burst: %d workspaces × %d subscribers, %d lines each every 10 ms; %d/%d delivered in %v",
			o.burstWS, o.burstSubs, o.burstLines, len(res.lat), res.expected, res.elapsed.Round(time.Millisecond))
		r.add("burst throughput", float64(len(res.lat))/res.elapsed.Seconds(), "deliveries/s", cond)
		r.addLatencies("burst line → event", res.lat, cond)
		// The same lines with no pause between them: what the bridge can
		// deliver, where the run above delivers what it is offered. Its
		// latency is queueing behind the burst.
		res, err = runStreamLoad(ctx, c, h, ids, streamLoad{workspaces: min(o.burstWS, o.workspaces), subs: o.burstSubs, lines: o.burstLines})
		if err != nil {
			return err
		}
		cond = fmt.Sprintf("burst: %d workspaces × %d subscribers, %d lines each as fast as they can be written; %d/%d delivered in %v",
			o.burstWS, o.burstSubs, o.burstLines, len(res.lat), res.expected, res.elapsed.Round(time.Millisecond))
		r.add("burst capacity", float64(len(res.lat))/res.elapsed.Seconds(), "deliveries/s", cond)
		r.addLatencies("burst capacity line → event", res.lat, cond)
	}
	if o.fanSubs > 0 {
		res, err := runStreamLoad(ctx, c, h, ids, streamLoad{workspaces: 1, subs: o.fanSubs, lines: o.fanLines, every: o.fanInterval, fanOut: true})
		if err != nil {
			return err
		}
		rate := float64(time.Second) / float64(o.fanInterval)
		cond := fmt.Sprintf("%d SSE subscribers on one workspace, %.0f lines/s for %d lines; %d/%d delivered", o.fanSubs, rate, o.fanLines, len(res.lat), res.expected)
		r.addLatencies("fan-out line → event", res.lat, cond)
		if n := len(res.lat); res.cpuOK && n > 0 {
			// What one delivery costs on each side of the socket: on a
			// machine whose cores both run the bridge and the subscribers,
			// the last of a line's deliveries waits for all of it.
			per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 / float64(n) }
			r.add("fan-out CPU per delivery, bridge", per(res.bridgeCPU), "µs", cond+"; the bridge's user+system time from the first line to the last delivery")
			r.add("fan-out CPU per delivery, subscribers", per(res.benchCPU), "µs", cond+"; the bench's own time (its subscribers and the writer), same window")
		}
		if res.memErr == nil {
			d := (res.memSubs.HeapInuse + res.memSubs.StackInuse) - (res.memIdle.HeapInuse + res.memIdle.StackInuse)
			r.add("memory per subscriber", float64(d)/1024/float64(o.fanSubs), "KB",
				fmt.Sprintf("Go heap in use + stacks after a full GC, with %d subscribers held open minus before, divided by %d (%+d goroutines); kernel socket buffers not counted",
					o.fanSubs, o.fanSubs, res.memSubs.Goroutines-res.memIdle.Goroutines))
		} else {
			r.unknown("memory per subscriber", "KB", "GET /api/memory: "+res.memErr.Error())
		}
	}
	r.add("peak open descriptors", float64(c.peakFDs.Load()), "", fmt.Sprintf("%d workspaces, through every run above (sampled every 20 ms)", o.workspaces))
	return nil
}

// runBenchScale writes nws workspaces × perWS sessions, mb megabytes of
// transcripts in all, starts the bridge cold on them, and times it until
// every workspace streams, then times /api/workspaces.
func runBenchScale(ctx context.Context, r *benchReport, exe, root string, nws, perWS, mb, calls int) error {
	per := int64(mb) << 20 / int64(nws*perWS)
	gen := time.Now()
	if _, err := makeBenchHome(root, nws, perWS, per); err != nil {
		return err
	}
	sizeCond := fmt.Sprintf("%d workspaces × %d sessions, %d MB of transcripts (written in %v)", nws, perWS, mb, time.Since(gen).Round(time.Second))
	flushWrites()
	c, ids, err := startStreaming(ctx, exe, root, nws, 120*time.Second)
	if err != nil {
		return err
	}
	defer c.close()
	r.add("cold start → all streaming", float64(time.Since(c.started))/float64(time.Millisecond), "ms", sizeCond+"; process start until every workspace has events")
	r.addKB("resident memory at ready", residentKB(c.pid()), sizeCond)
	time.Sleep(3 * time.Second)
	r.addKB("resident memory 3 s later", residentKB(c.pid()), sizeCond)
	r.addKB("peak resident memory, cold start", peakResidentKB(c.pid()), sizeCond+"; the kernel's high-water mark")

	var lat []time.Duration
	size := 0
	defer holdGC()() // its own collector would stall reading a megabyte
	for range calls {
		start := time.Now()
		n, err := getBody(ctx, c.cl, "/api/workspaces", c.token())
		if err != nil {
			return fmt.Errorf("/api/workspaces: %w", err)
		}
		lat = append(lat, time.Since(start))
		size = n
	}
	r.addLatencies("/api/workspaces", lat, fmt.Sprintf("%s; %d sequential calls, %d workspaces, %d KB each", sizeCond, calls, len(ids), size>>10))
	r.add("peak open descriptors, cold start", float64(c.peakFDs.Load()), "", sizeCond)
	return nil
}

// getBody GETs path with the token and returns the body's size.
func getBody(ctx context.Context, cl *bridgeClient, path, token string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cl.url(path), nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := cl.http(0).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %s", resp.Status)
	}
	return int(n), err
}

package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"conductorbridge/testkit/browsertest"
)

// BenchmarkViewerLatency measures, in a real Chromium, the time from a
// transcript line appended to its bubble in the viewer: when the element
// is added to the page, and the next frame after it (on screen). Run:
//
//	go test ./app -run '^$' -bench ViewerLatency -benchtime 200x
func BenchmarkViewerLatency(b *testing.B) {
	e := newViewerEnv(b)
	measureBubbles(b, e)
}

// BenchmarkPanelLatency is the same for the Chrome side panel, loaded as
// an extension in Chromium and following the paired workspace:
//
//	go test ./app -run '^$' -bench PanelLatency -benchtime 200x
func BenchmarkPanelLatency(b *testing.B) {
	e := newPanelEnv(b)
	e.cli("pair", "tokyo")
	browsertest.Poll(b, e.ctx, "tokyo shown", `document.querySelector('#workspace').textContent.includes('tokyo')`, 10*time.Second)
	measureBubbles(b, e.viewerEnv)
}

// measureBubbles appends b.N prompts to tokyo's transcript, one at a time,
// and reports when each one's bubble was added to the page and painted.
func measureBubbles(b *testing.B, e *viewerEnv) {
	// Each bubble with a "lat-N" marker records when it was added and the
	// next animation frame after that, on the page's wall clock.
	browsertest.Eval[bool](b, e.ctx, `(() => {
		window.added = {}; window.painted = {};
		new MutationObserver(ms => {
			const now = performance.timeOrigin + performance.now();
			for (const m of ms) for (const n of m.addedNodes) {
				const k = /lat-(\d+)/.exec(n.textContent || '');
				if (!k || k[1] in added) continue;
				added[k[1]] = now;
				requestAnimationFrame(() => { painted[k[1]] = performance.timeOrigin + performance.now(); });
			}
		}).observe(document.getElementById('log'), {childList: true, subtree: true});
		return true;
	})()`)
	var added, painted []float64
	b.ResetTimer()
	for i := range b.N {
		sent := float64(time.Now().UnixNano()) / 1e6
		e.tokyo.prompt(fmt.Sprintf("lat-%d", i))
		browsertest.Poll(b, e.ctx, "bubble "+fmt.Sprint(i), fmt.Sprintf("%d in window.painted", i), 10*time.Second)
		at := browsertest.Eval[[]float64](b, e.ctx, fmt.Sprintf("[window.added[%d], window.painted[%d]]", i, i))
		added = append(added, at[0]-sent)
		painted = append(painted, at[1]-sent)
	}
	b.StopTimer()
	pct := func(xs []float64, p float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[min(len(s)-1, int(p*float64(len(s))))]
	}
	b.ReportMetric(pct(added, 0.50), "ms-in-dom-p50")
	b.ReportMetric(pct(added, 0.99), "ms-in-dom-p99")
	b.ReportMetric(pct(painted, 0.50), "ms-on-screen-p50")
	b.ReportMetric(pct(painted, 0.99), "ms-on-screen-p99")
	b.ReportMetric(0, "ns/op") // the loop waits for each bubble: its time per op means nothing
}

package opencode_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/event"
)

// BenchmarkCommitToEvent measures a row's way from OpenCode's commit to
// the bridge's events: a writer commits the corpus's rows one at a time,
// as OpenCode does; the Follower, woken by the WAL's file event, reads
// them and the Parser makes their events. Reported: p50 and p99 of the
// time from a commit's return to its row's events.
func BenchmarkCommitToEvent(b *testing.B) {
	lines := corpora(b)[0].lines
	w := newWriter(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type arrival struct {
		seq int64
		at  time.Time
	}
	arrived := make(chan arrival, 1024)
	var p *opencode.Parser
	var evs []event.Event
	f := opencode.NewFollower(w.path, opencode.FollowOptions{Poll: time.Hour, Deliver: func(_ string, rows []opencode.Row) {
		for _, r := range rows {
			evs, _ = p.Line(r.Line(), evs[:0])
		}
		arrived <- arrival{rows[len(rows)-1].Seq, time.Now()}
	}})
	go f.Run(ctx)
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sid := fmt.Sprintf("ses_bench%06d", i)
		p, _ = opencode.NewParser(nil)
		f.Follow(sid, 0)
		for j, l := range lines {
			start := time.Now()
			if err := w.commit(ctx, sid, l); err != nil {
				b.Fatal(err)
			}
			for a := range arrived {
				if a.seq >= int64(j) { // the corpus's rows are seq 0, 1, …
					lat = append(lat, a.at.Sub(start))
					break
				}
			}
		}
		f.Unfollow(sid)
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds()), "max-µs")
}

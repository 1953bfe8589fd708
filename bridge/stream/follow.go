package stream

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"conductorbridge/bridge/event"
)

// Follower is what a follow stream needs: which topic to show now, and word
// when that may have changed.
type Follower interface {
	// Pick returns the topic to show, nil when there is none.
	Pick() *Topic
	// Changed receives a value whenever Pick's answer may have changed.
	Changed() <-chan struct{}
	// Announce returns the session event that opens topic id ("" for none)
	// on the stream.
	Announce(id string) event.Event
}

// FollowCursor reads a follow stream's resume point: "<topic>:<n>" from
// Last-Event-ID (what the stream's ids look like) or ?after=, which also
// takes a bare number meaning "after n in whichever topic comes first".
func FollowCursor(r *http.Request) (topic string, n int64) {
	for _, v := range []string{r.Header.Get("Last-Event-ID"), r.URL.Query().Get("after")} {
		if v == "" {
			continue
		}
		id, num, ok := strings.Cut(v, ":")
		if !ok {
			id, num = "", v
		}
		if k, err := strconv.ParseInt(num, 10, 64); err == nil && k >= 0 {
			return id, k
		}
	}
	return "", 0
}

// Follow streams whichever topic f picks and switches when the pick
// changes, opening each topic with f's session event. Ids on the stream are
// "<topic>:<n>", so a client that reconnects (EventSource sends the last
// id back) resumes in the topic it was reading, with nothing repeated or
// lost; a topic it was not reading is replayed from what is kept.
func (o SSE) Follow(ctx context.Context, w http.ResponseWriter, r *http.Request, f Follower) {
	o.defaults()
	sw := o.start(w)
	wantTopic, wantN := FollowCursor(r)
	shown, first := "", true
	for {
		t := f.Pick()
		id := ""
		if t != nil {
			id = t.ID
		}
		var after int64
		switch {
		case !first && id == shown:
			after = sw.last // woken, same topic: carry on from where we are
		case id == wantTopic || (first && wantTopic == ""):
			after = wantN
		}
		if first || id != shown {
			ann := f.Announce(id)
			ann.ID = after
			sw.prefix = id
			data, _ := json.Marshal(ann)
			it := NewItem(ann, data)
			sw.event(&it)
			shown, first = id, false
		}
		if t == nil {
			if !o.idle(ctx, r, sw, f.Changed()) {
				return
			}
			continue
		}
		replay, gap, sub := t.Subscribe(after)
		sw.replay(gap, replay)
		if sw.flush() != nil {
			t.Unsubscribe(sub)
			return
		}
		woke := o.pump(ctx, r, sw, sub, f.Changed())
		t.Unsubscribe(sub)
		if !woke {
			return
		}
	}
}

// idle keeps a stream with nothing to show alive until wake fires (true)
// or the stream ends (false).
func (o SSE) idle(ctx context.Context, r *http.Request, sw *sseWriter, wake <-chan struct{}) bool {
	if sw.flush() != nil {
		return false
	}
	tick := time.NewTicker(o.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-r.Context().Done():
			return false
		case <-wake:
			return true
		case <-tick.C:
			sw.raw(": ping\n\n")
			if sw.flush() != nil {
				return false
			}
		}
	}
}

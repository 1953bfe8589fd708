package browse

import "time"

// What one browse server may put in a workspace's stream: a burst of
// BurstEntries (the most gstack keeps, so a reconnect's replay always
// fits), then EntriesPerSecond. A person's agent makes a few entries a
// second (two per command); a server sending thousands a second would
// otherwise push the agent's own events out of the stream's history and
// fill the journal.
const (
	BurstEntries     = 1000
	EntriesPerSecond = 100
)

// bucket is a token bucket on the caller's clock.
type bucket struct {
	tokens float64
	last   time.Time
}

func newBucket(now time.Time) *bucket { return &bucket{tokens: BurstEntries, last: now} }

// resumeTokens is what the bucket must hold again before entries pass
// after it ran dry: a tenth of a second's worth, so a flood is cut into
// runs passed over whole, each told by one gap event, not one gap a line.
const resumeTokens = EntriesPerSecond / 10

// take reports whether one more entry may go at now.
func (b *bucket) take(now time.Time) bool {
	b.refill(now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// ready reports whether the bucket holds n tokens at now.
func (b *bucket) ready(now time.Time, n float64) bool {
	b.refill(now)
	return b.tokens >= n
}

func (b *bucket) refill(now time.Time) {
	if d := now.Sub(b.last); d > 0 {
		b.tokens = min(BurstEntries, b.tokens+d.Seconds()*EntriesPerSecond)
		b.last = now
	}
}

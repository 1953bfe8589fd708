package dbustest

import (
	"context"
	"sync"
)

// changes lets goroutines block until a fake's recorded state changes. It is
// guarded by the owning fake's mutex: broadcast closes the current channel,
// waking every waiter, and the next waiter gets a fresh one.
type changes struct{ ch chan struct{} }

func (c *changes) wait() <-chan struct{} {
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

func (c *changes) broadcast() {
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// waitFor re-runs check (under mu) after every change until it reports ok or
// ctx ends. check runs under the lock so it sees a consistent snapshot.
func waitFor[T any](ctx context.Context, mu *sync.Mutex, c *changes, check func() (T, bool)) (T, error) {
	for {
		mu.Lock()
		v, ok := check()
		changed := c.wait()
		mu.Unlock()
		if ok {
			return v, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

// Package lru keeps a bound on things held open (record files, journal
// files): the most recently used keep their place, and past the bound
// the least recently used one is handed back to be closed.
package lru

import (
	"container/list"
	"sync"
	"time"
)

// List is a bounded set of keys, most recently used first. Safe for
// concurrent use; it closes nothing itself: its callers close what Use
// and Idle hand back.
type List[K comparable] struct {
	// Max is the bound; set it before the first Use.
	Max int

	mu    sync.Mutex
	order *list.List // of *entry[K], most recently used first
	at    map[K]*list.Element
}

// entry is one key and when it was last used.
type entry[K comparable] struct {
	key K
	at  time.Time
}

// New holds at most max keys.
func New[K comparable](max int) *List[K] {
	return &List[K]{Max: max, order: list.New(), at: make(map[K]*list.Element)}
}

// Use marks k as used at now and returns the key put out to stay within
// the bound, if any (ok false: none).
func (l *List[K]) Use(k K, now time.Time) (victim K, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.at[k]; ok {
		el.Value.(*entry[K]).at = now
		l.order.MoveToFront(el)
		return victim, false
	}
	l.at[k] = l.order.PushFront(&entry[K]{key: k, at: now})
	if l.order.Len() <= l.Max {
		return victim, false
	}
	el := l.order.Back()
	l.order.Remove(el)
	victim = el.Value.(*entry[K]).key
	delete(l.at, victim)
	return victim, true
}

// Idle takes out every key last used before before, least recently used
// first, for the caller to close.
func (l *List[K]) Idle(before time.Time) []K {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []K
	for el := l.order.Back(); el != nil; el = l.order.Back() {
		e := el.Value.(*entry[K])
		if !e.at.Before(before) {
			break // most recently used first: the rest are newer
		}
		l.order.Remove(el)
		delete(l.at, e.key)
		out = append(out, e.key)
	}
	return out
}

// Forget takes k out (its file is closed).
func (l *List[K]) Forget(k K) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.at[k]; ok {
		l.order.Remove(el)
		delete(l.at, k)
	}
}

// Len is how many keys the list holds.
func (l *List[K]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

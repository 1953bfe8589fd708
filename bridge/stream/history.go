package stream

// history is a topic's kept events, oldest first, at most max of them.
//
// A full topic drops its oldest event for every new one. Copying the
// kept events down on each drop cost a busy workspace a copy of max
// items (144 KB at the default) per event, most of what the bridge
// allocated per line; instead the oldest slot is cleared, so its JSON can
// be collected, and the slots are moved down in place once an eighth of
// max has been dropped.
type history struct {
	items []Item // items[start:] are kept
	start int
	max   int
}

// newHistory keeps the last max of items, taking the slice over.
func newHistory(max int, items []Item) history {
	if len(items) > max {
		items = items[len(items)-max:]
	}
	return history{items: items, max: max}
}

// kept returns the kept events, oldest first. The slice is the history's
// own: callers copy what they keep beyond the topic's lock.
func (h *history) kept() []Item { return h.items[h.start:] }

// add keeps it, dropping the oldest event past max.
func (h *history) add(it Item) {
	h.items = append(h.items, it)
	if len(h.items)-h.start > h.max {
		h.items[h.start] = Item{}
		h.start++
	}
	if h.start > 0 && h.start >= max(1, h.max/8) {
		n := copy(h.items, h.items[h.start:])
		clear(h.items[n:])
		h.items, h.start = h.items[:n], 0
	}
}

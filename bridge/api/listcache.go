package api

import (
	"bytes"
	"encoding/json"
	"iter"
	"slices"
	"sync"
)

// listCache keeps each workspace's encoded JSON for GET /api/workspaces.
// At a thousand workspaces the list is a megabyte, and encoding it all
// for every call took most of the answer's time; between two calls few
// workspaces change. A workspace's wire form is built afresh every call
// (cheap: no reflection) and compared with the one encoded last time; only
// a workspace whose wire form changed is encoded again. So the answer is
// always what encoding the whole list would give, whatever changed it
// (the engine, a pairing, a hook call, time making a session inactive).
type listCache struct {
	mu  sync.Mutex
	m   map[string]*cachedJSON // by workspace id
	gen uint64                 // the call that last used an entry, to drop gone workspaces

	bufs sync.Pool // *[]byte bodies
}

type cachedJSON struct {
	j    Workspace
	data []byte // j encoded, no trailing newline
	gen  uint64
}

// body appends {"workspaces":[…]} for the workspaces of list to b, as
// writeJSON would write it; all is how many workspaces there are in all
// (list may be only those a browser sees). list may reuse one Sessions
// slice for every workspace it yields.
func (c *listCache) body(b []byte, list iter.Seq[Workspace], all int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*cachedJSON)
	}
	c.gen++
	b = append(b, `{"workspaces":[`...)
	first := true
	for j := range list {
		if !first {
			b = append(b, ',')
		}
		first = false
		e := c.m[j.ID]
		if e == nil || !sameJSON(e.j, j) {
			j.Sessions = append([]Session{}, j.Sessions...) // list may reuse its slice; never null on the wire
			e = &cachedJSON{j: j, data: encodeWorkspace(&j)}
			c.m[j.ID] = e
		}
		e.gen = c.gen
		b = append(b, e.data...)
	}
	b = append(b, "]}\n"...)
	if len(c.m) > all { // some workspace is gone: forget it
		for id, e := range c.m {
			if e.gen != c.gen {
				delete(c.m, id)
			}
		}
	}
	return b
}

// buffer returns a buffer for a body; done gives it back. Bodies are a
// megabyte at a thousand workspaces: allocating one per call kept the
// collector busy.
func (c *listCache) buffer() *[]byte {
	if b, ok := c.bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 64<<10)
	return &b
}

func (c *listCache) done(b *[]byte) {
	if cap(*b) <= 8<<20 {
		*b = (*b)[:0]
		c.bufs.Put(b)
	}
}

// encodeCompact encodes v as writeJSON does (no HTML escaping), without
// the newline.
func encodeCompact(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return []byte("null")
	}
	return bytes.Clone(bytes.TrimSuffix(b.Bytes(), []byte("\n"))) // kept: no spare capacity
}

// encodeWorkspace is j's wire form: by hand, or through encoding/json
// for what the hand-written encoder cannot say alike (a time whose year
// has more than four digits).
func encodeWorkspace(j *Workspace) []byte {
	if b, ok := appendWorkspace(nil, j); ok {
		return b
	}
	return encodeCompact(*j)
}

// sameJSON reports whether two wire forms encode alike.
func sameJSON(a, b Workspace) bool {
	return a.WorkspaceHead == b.WorkspaceHead && slices.Equal(a.Sessions, b.Sessions)
}

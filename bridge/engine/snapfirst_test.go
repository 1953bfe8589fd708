package engine

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestNewSessionListedBeforeItsFirstEvent: a client that hears of a new
// session on the stream and asks for the workspace at once finds the
// session listed (the side panel and the tray look it up by id).
func TestNewSessionListedBeforeItsFirstEvent(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("snapfirst")
	first := "66666666-0000-4000-8000-000000000000"
	cwdOf[first] = dir
	h.write(filepath.Join(proj, first+".jsonl"), prompt(first, "first"))
	r := h.start()
	id := r.waitPrompt(t, dir, "first")
	topic, _ := r.eng.Topic(id)
	_, _, sub := topic.Subscribe(1 << 62)
	defer topic.Unsubscribe(sub)
	for i := range 10 {
		sid := fmt.Sprintf("66666666-0000-4000-8000-%012d", i+1)
		cwdOf[sid] = dir
		time.Sleep(5 * time.Millisecond) // a newer modification time
		h.write(filepath.Join(proj, sid+".jsonl"), prompt(sid, "hello"))
		timeout := time.After(5 * time.Second)
		for seen := false; !seen; {
			select {
			case it := <-sub.C:
				if it.SessionID != sid {
					continue
				}
				seen = true
				in, _ := r.eng.Workspace(id)
				if !slices.ContainsFunc(in.Sessions, func(s SessionInfo) bool { return s.SessionID == sid }) {
					t.Fatalf("session %d's first event (%s) came before the workspace listed it", i+1, it.Type)
				}
			case <-timeout:
				t.Fatalf("no event of session %d", i+1)
			}
		}
	}
}

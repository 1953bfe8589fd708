package agent_test

import (
	"testing"

	"conductorbridge/bridge/agent"
)

// closeCounter is a store at a path that counts its Close calls.
type closeCounter struct {
	path   string
	closed int
}

func (s *closeCounter) Path() string { return s.path }
func (s *closeCounter) Close() error { s.closed++; return nil }

// TestStoreRecord: a session's record in a store is named after the
// database and the session, its DB is the store's database, and closing
// it closes the store.
func TestStoreRecord(t *testing.T) {
	st := &closeCounter{path: "/data/opencode.db"}
	r := agent.StoreRecord[*closeCounter]{Store: st, Session: "ses_1"}
	if got := r.Name(); got != "/data/opencode.db#ses_1" {
		t.Errorf("Name %q, want the database#the session", got)
	}
	if got := r.DB(); got != "/data/opencode.db" {
		t.Errorf("DB %q, want the store's database", got)
	}
	if err := r.Close(); err != nil || st.closed != 1 {
		t.Errorf("Close: %v, the store closed %d times, want once", err, st.closed)
	}
}

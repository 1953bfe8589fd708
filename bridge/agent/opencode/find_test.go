package opencode_test

import (
	"context"
	"errors"
	"testing"

	"conductorbridge/bridge/agent/opencode"
)

// TestSessionsAndTabs: a folder's sessions, newest first, without
// subagents' or other folders'; a tab by the id Conductor keeps, never
// another folder's; without an id, the folder's newest.
func TestSessionsAndTabs(t *testing.T) {
	w := newWriter(t)
	for _, s := range []struct {
		id, dir, parent string
		updated         int64
	}{
		{"ses_old", "/w/a", "", 1000}, {"ses_new", "/w/a", "", 3000}, {"ses_sub", "/w/a", "ses_new", 4000},
		{"ses_other", "/w/b", "", 5000},
	} {
		if err := w.session(s.id, s.dir, s.parent, s.updated); err != nil {
			t.Fatal(err)
		}
	}
	st := opencode.NewStore(w.path)
	defer st.Close()
	ctx := context.Background()
	all, err := st.Sessions(ctx, "/w/a/")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range all {
		ids = append(ids, s.ID)
	}
	if !equal(ids, []string{"ses_new", "ses_old"}) {
		t.Errorf("sessions in /w/a: %v", ids)
	}
	for _, c := range []struct {
		id, dir, want string
	}{
		{"ses_old", "/w/a", "ses_old"}, {"", "/w/a", "ses_new"}, {"ses_other", "/w/a", ""}, {"ses_gone", "/w/a", ""},
		{"", "/w/none", ""},
	} {
		s, ok, err := st.Tab(ctx, c.id, c.dir)
		if err != nil || ok != (c.want != "") || s.ID != c.want {
			t.Errorf("Tab(%q, %q) = %q %v %v, want %q", c.id, c.dir, s.ID, ok, err, c.want)
		}
	}
	if _, err := st.Session(ctx, "ses_gone"); !errors.Is(err, opencode.ErrNoSession) {
		t.Errorf("a missing session: %v", err)
	}
}

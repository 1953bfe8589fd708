package api

import (
	"context"
	"net/http"
	"strconv"

	"conductorbridge/bridge/inject"
)

// Hooks answers Claude Code hook calls relayed by `conductor-bridge hook`.
type Hooks interface {
	// Knows reports whether event is a hook event Handle answers.
	Knows(event string) bool
	Handle(ctx context.Context, event string, in inject.HookInput) inject.Answer
}

// hook relays one hook call. It needs the hook secret, which only the
// user's own processes can read; the hook process prints the answer.
func (s *Server) hook(w http.ResponseWriter, r *http.Request) {
	event := r.PathValue("event")
	if !s.Hooks.Knows(event) {
		writeError(w, http.StatusNotFound, "unknown hook event: "+event)
		return
	}
	var in inject.HookInput
	if !decodeJSON(w, r, maxHookBody, &in) {
		return
	}
	in.UserScope = r.URL.Query().Get("scope") == "user"
	in.WorkspacePath = r.URL.Query().Get("workspace_path")
	if pid, err := strconv.Atoi(r.URL.Query().Get("pid")); err == nil && pid > 1 {
		in.PID = pid
	}
	ctx := r.Context()
	if s.Done != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.Done, cancel) // shutting down: let waiting hooks go
		defer stop()
	}
	ans := s.Hooks.Handle(ctx, event, in)
	if event == inject.HookRewake && ans == (inject.Answer{}) && s.Done != nil && s.Done.Err() != nil {
		// Shutting down: drop the connection instead of answering, so the
		// waiting hook reconnects to the next bridge and the idle agent
		// stays wakeable across a restart.
		panic(http.ErrAbortHandler)
	}
	writeJSON(w, http.StatusOK, ans)
}

package api

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/inject"
)

// postMessage queues a message for a workspace's agent.
func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	in, ok := s.lookup(w, r)
	if !ok {
		return
	}
	var body struct {
		Message   *string `json:"message"`
		SessionID string  `json:"session_id"`
	}
	if !decodeJSON(w, r, MaxBody, &body) {
		return
	}
	if body.Message == nil {
		writeError(w, http.StatusBadRequest, `body must be {"message": "…", "session_id": "…" (optional)}`)
		return
	}
	target, code, why := s.messageTarget(in, body.SessionID)
	if code != 0 {
		writeError(w, code, why)
		return
	}
	m, pos, err := s.Queue.EnqueueTo(id, target, *body.Message)
	switch {
	case errors.Is(err, inject.ErrEmpty):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, inject.ErrTooLong):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%v (the hook output limit)", err))
	case errors.Is(err, inject.ErrFull):
		writeError(w, http.StatusTooManyRequests, err.Error())
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusAccepted, map[string]any{"id": m.ID, "status": m.State, "position": pos, "session_id": m.Target})
	}
}

// messageTarget picks the session a message is for: the one asked for (by
// the agent's session id or Conductor's tab id), else the workspace's
// active session (Conductor's tab on screen, else the most recently
// active). A session the bridge cannot deliver to is a 409 with the
// reason, so the side panel says so instead of pretending.
func (s *Server) messageTarget(in engine.Info, asked string) (string, int, string) {
	if asked == "" {
		if len(in.Sessions) == 0 {
			return "", 0, "" // no session yet: the first one to call in takes it
		}
		asked = in.Sessions[0].SessionID
	}
	for _, si := range in.Sessions {
		if si.SessionID != asked && (si.ConductorID == "" || si.ConductorID != asked) {
			continue
		}
		if si.MessagesBlocked != "" {
			return "", http.StatusConflict, "messages cannot reach this session: " + si.MessagesBlocked
		}
		if !si.Streamed {
			return "", http.StatusConflict, fmt.Sprintf("messages cannot reach this session: the bridge does not read %s sessions", cmp.Or(si.Agent, "these"))
		}
		if why := s.undeliverable(si); why != "" {
			return "", http.StatusConflict, why
		}
		return si.SessionID, 0, ""
	}
	return "", http.StatusNotFound, "unknown session: " + asked
}

// Router says why a message cannot reach a session of its agent now
// (inject.Delivery), "" when it can.
type Router interface {
	Agent() string
	Refusal(si engine.SessionInfo) string
}

// undeliverable says why messages cannot reach a session the bridge reads,
// "" when they can. Claude's hooks take a message in every state; an
// agent with a Router (Codex) only while its route allows it.
func (s *Server) undeliverable(si engine.SessionInfo) string {
	for _, r := range s.Routes {
		if r.Agent() == si.Agent {
			return r.Refusal(si)
		}
	}
	return ""
}

// listMessages lists a workspace's messages and their states.
func (s *Server) listMessages(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, ok := s.lookup(w, r); !ok {
		return
	}
	msgs := s.Queue.List(id)
	if msgs == nil {
		msgs = []inject.Message{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"messages": msgs})
}

// deleteMessage cancels a message no hook has taken yet.
func (s *Server) deleteMessage(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.lookup(w, r); !ok {
		return
	}
	m, err := s.Queue.Cancel(r.PathValue("id"), r.PathValue("mid"))
	switch {
	case errors.Is(err, inject.ErrNotFound):
		writeError(w, http.StatusNotFound, "unknown message: "+r.PathValue("mid"))
	case errors.Is(err, inject.ErrNotQueued):
		writeError(w, http.StatusConflict, fmt.Sprintf("message is %s, no longer queued", m.State))
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, m)
	}
}

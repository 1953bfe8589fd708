package api

import (
	"errors"
	"fmt"
	"net/http"

	"conductorbridge/bridge/inject"
)

// postMessage queues a message for a workspace's agent.
func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, ok := s.lookup(w, r); !ok {
		return
	}
	var body struct {
		Message *string `json:"message"`
	}
	if !decodeJSON(w, r, MaxBody, &body) {
		return
	}
	if body.Message == nil {
		writeError(w, http.StatusBadRequest, `body must be {"message": "…"}`)
		return
	}
	m, pos, err := s.Queue.Enqueue(id, *body.Message)
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
		writeJSON(w, http.StatusAccepted, map[string]any{"id": m.ID, "status": m.State, "position": pos})
	}
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

package api

import (
	"context"
	"errors"
	"net/http"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/registrar"
)

// Registrar adopts and releases worktrees.
type Registrar interface {
	Register(ctx context.Context, dir string) (engine.Info, error)
	Create(ctx context.Context, repo string) (engine.Info, error)
	Unregister(ctx context.Context, id string) (removed bool, kept string, err error)
}

// registerWorkspace adopts an existing work tree ({"directory"}) or creates
// a detached worktree of a repository ({"repo", "detach": true}).
func (s *Server) registerWorkspace(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Directory string `json:"directory"`
		Repo      string `json:"repo"`
		Detach    bool   `json:"detach"`
	}
	if !decodeJSON(w, r, MaxBody, &body) {
		return
	}
	var (
		in  engine.Info
		err error
	)
	switch {
	case body.Directory != "" && body.Repo == "":
		in, err = s.Registrar.Register(r.Context(), body.Directory)
	case body.Repo != "" && body.Directory == "" && body.Detach:
		in, err = s.Registrar.Create(r.Context(), body.Repo)
	default:
		writeError(w, http.StatusBadRequest, `body must be {"directory": "/abs/path"} or {"repo": "/abs/path", "detach": true}`)
		return
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, toJSON(in))
}

func (s *Server) unregisterWorkspace(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.visible(r, id) {
		writeError(w, http.StatusNotFound, "unknown workspace: "+id)
		return
	}
	removed, kept, err := s.Registrar.Unregister(r.Context(), id)
	switch {
	case errors.Is(err, registrar.ErrNotRegistered):
		writeError(w, http.StatusConflict, err.Error())
		return
	case err != nil:
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	out := map[string]any{"id": id, "unregistered": true, "removed": removed}
	if kept != "" {
		out["kept"] = kept
	}
	writeJSON(w, http.StatusOK, out)
}

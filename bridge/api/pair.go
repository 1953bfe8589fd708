package api

import (
	"net/http"
	"net/url"
	"time"

	"conductorbridge/bridge/event"
)

// pair pairs a workspace with Chrome: the tray's checkbox and the CLI.
func (s *Server) pair(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if err := s.Pairing.Pair(in.ID); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.Log.Info().Str("workspace", in.ID).Msg("paired with Chrome")
	writeJSON(w, http.StatusOK, s.withPairing(in))
}

func (s *Server) unpair(w http.ResponseWriter, r *http.Request) {
	in, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if err := s.Pairing.Unpair(in.ID); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.Log.Info().Str("workspace", in.ID).Msg("unpaired from Chrome")
	writeJSON(w, http.StatusOK, s.withPairing(in))
}

type settingsJSON struct {
	Exposure string `json:"exposure"`
}

func (s *Server) settings(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, settingsJSON{Exposure: s.Pairing.Exposure()})
}

func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	var body settingsJSON
	if !decodeJSON(w, r, MaxBody, &body) {
		return
	}
	if err := s.Pairing.SetExposure(body.Exposure); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.Log.Info().Str("exposure", body.Exposure).Msg("browser exposure changed")
	s.settings(w, r)
}

// viewerLink makes a one-time link that opens the viewer, signed in. Asked
// for a workspace, it pairs that workspace too: opening its session in the
// browser is exactly what pairing allows.
func (s *Server) viewerLink(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Workspace string `json:"workspace"`
	}
	if r.ContentLength != 0 && !decodeJSON(w, r, MaxBody, &body) {
		return
	}
	newlyPaired := false
	if body.Workspace != "" {
		if _, ok := s.Engine.Workspace(body.Workspace); !ok {
			writeError(w, http.StatusNotFound, "unknown workspace: "+body.Workspace)
			return
		}
		if _, ok := s.Pairing.Paired(body.Workspace); !ok {
			if err := s.Pairing.Pair(body.Workspace); err != nil {
				writeError(w, http.StatusInternalServerError, err.Error())
				return
			}
			newlyPaired = true
		}
	}
	code := s.Links.Mint(body.Workspace)
	writeJSON(w, http.StatusOK, map[string]any{
		"url":       "http://" + r.Host + "/open/" + url.PathEscape(code),
		"workspace": body.Workspace,
		"paired":    newlyPaired,
	})
}

// rotateToken replaces the API token. Every holder of the old one is cut
// off: open streams end, session cookies and page keys stop working.
func (s *Server) rotateToken(w http.ResponseWriter, r *http.Request) {
	if err := s.Token.Rotate(); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.Log.Info().Msg("API token rotated; old token, cookies and open streams cut off")
	writeJSON(w, http.StatusOK, map[string]bool{"rotated": true})
}

// AnnouncePairing publishes a pairing change into the workspace's stream,
// so every open stream of it hears (pairing.Store.Announce calls it).
func (s *Server) AnnouncePairing(id string, paired bool) {
	t, ok := s.Engine.Topic(id)
	if !ok {
		return
	}
	e := event.Event{Type: event.Pairing, TS: time.Now().UTC(), Workspace: id, Paired: paired}
	if _, err := t.Publish([]event.Event{e}, nil); err != nil {
		s.Log.Warn().Err(err).Str("workspace", id).Msg("pairing announced but not journaled")
	}
}

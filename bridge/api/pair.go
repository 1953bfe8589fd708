package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"conductorbridge/bridge/event"
)

// setPaired pairs a workspace with Chrome, or unpairs it: what the CLI
// calls (the tray changes the same store directly).
func (s *Server) setPaired(paired bool) http.HandlerFunc {
	change, said := s.Pairing.Unpair, "unpaired from Chrome"
	if paired {
		change, said = s.Pairing.Pair, "paired with Chrome"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		in, ok := s.lookup(w, r)
		if !ok {
			return
		}
		if err := change(in.ID); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		s.Log.Info().Str("workspace", in.ID).Msg(said)
		writeJSON(w, http.StatusOK, s.withPairing(in))
	}
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
	host := r.Host
	if viaSocket(r) {
		host = "127.0.0.1:" + strconv.Itoa(s.Port) // the browser's way in
	}
	link, newlyPaired, err := s.ViewerLink(host, body.Workspace)
	switch {
	case errors.Is(err, errUnknownWorkspace):
		writeError(w, http.StatusNotFound, err.Error())
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, map[string]any{"url": link, "workspace": body.Workspace, "paired": newlyPaired})
	}
}

var errUnknownWorkspace = errors.New("unknown workspace")

// ViewerLink makes a one-time link to the viewer at host (127.0.0.1:port),
// showing workspace ("" for the viewer's choice), which it pairs if it is
// not paired yet (and says so). The tray's "Open session viewer" uses it.
func (s *Server) ViewerLink(host, workspace string) (link string, newlyPaired bool, err error) {
	if workspace != "" {
		if _, ok := s.Engine.Workspace(workspace); !ok {
			return "", false, fmt.Errorf("%w: %s", errUnknownWorkspace, workspace)
		}
		if _, ok := s.Pairing.Paired(workspace); !ok {
			if err := s.Pairing.Pair(workspace); err != nil {
				return "", false, err
			}
			newlyPaired = true
		}
	}
	return "http://" + host + "/open/" + url.PathEscape(s.Links.Mint(workspace)), newlyPaired, nil
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

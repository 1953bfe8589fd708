package api

import (
	"cmp"
	"net/http"

	"conductorbridge/bridge/engine"
)

// Pairing by the browser: gstack's rule for which workspace a side panel
// shows is "the one whose browse server controls this browser". When
// nothing is paired and exactly one workspace has a live browse server,
// the side panel may offer it ("tokyo is driving this browser — pair?")
// and pair it with one click.
//
// Who may do what, and why:
//   - Asking which workspace that is needs any credential, like every read.
//     It names one workspace a browser could not see yet, and only that
//     one, and only while nothing is paired: the panel cannot offer what it
//     cannot name.
//   - Pairing it needs the extension token (or the API token): never the
//     cookie, which every page of 127.0.0.1 carries, and never from an
//     Origin off the allow-list (the guard refuses those, and another OS
//     user gets nothing at all). And it pairs only that workspace, only
//     while it is still the one, and only while nothing is paired (checked
//     and done under the pairing store's lock): the extension's credential,
//     which a local program can obtain by forging the extension's Origin,
//     can neither choose which workspace browsers see nor take a pairing
//     away from the one the user chose. All else stays with the menu bar
//     and the command line.

// browserSuggestion is the one workspace to offer, if any.
type browserSuggestion struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Repo        string `json:"repo"`
}

// suggestion returns the workspace to offer: nothing paired, exactly one
// workspace with a live browser.
func (s *Server) suggestion() (engine.Info, bool) {
	if s.Pairing == nil {
		return engine.Info{}, false
	}
	if _, paired := s.Pairing.Latest(s.exists); paired {
		return engine.Info{}, false
	}
	var found engine.Info
	n := 0
	for _, in := range s.Engine.Workspaces() {
		if in.Browser {
			found, n = in, n+1
		}
	}
	return found, n == 1
}

func (s *Server) exists(id string) bool {
	_, ok := s.Engine.Workspace(id)
	return ok
}

// browserPairing is GET /api/browser-pairing: {"workspace": {…}} to offer,
// or {"workspace": null}.
func (s *Server) browserPairing(w http.ResponseWriter, r *http.Request) {
	in, ok := s.suggestion()
	if !ok {
		writeJSON(w, http.StatusOK, map[string]any{"workspace": nil})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"workspace": browserSuggestion{
		ID: in.ID, Name: in.Name, DisplayName: cmp.Or(in.DisplayName, in.Name), Repo: in.Repo,
	}})
}

// pairBrowser is POST /api/browser-pairing {"workspace"}: pairs the
// workspace offered, if it is still the one and nothing is paired (409
// otherwise).
func (s *Server) pairBrowser(w http.ResponseWriter, r *http.Request) {
	switch s.credential(r) {
	case credExtension, credToken:
	default:
		unauthorized(w, "pairing from the side panel needs the extension's token")
		return
	}
	var body struct {
		Workspace string `json:"workspace"`
	}
	if !decodeJSON(w, r, MaxBody, &body) {
		return
	}
	in, ok := s.suggestion()
	if !ok || in.ID != body.Workspace {
		writeError(w, http.StatusConflict, "that workspace is not the one driving the browser, or a workspace is paired already: pair from the menu bar or with conductor-bridge pair")
		return
	}
	done, err := s.Pairing.PairIfNone(in.ID, s.exists)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !done {
		writeError(w, http.StatusConflict, "a workspace was paired meanwhile")
		return
	}
	s.Log.Info().Str("workspace", in.ID).Msg("paired with Chrome from the side panel: its browse server drives the browser")
	writeJSON(w, http.StatusOK, s.withPairing(in))
}

package api

import (
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"conductorbridge/bridge/auth"
)

// The browser's ways in (see SIDEPANEL.md for a client's view):
//   - an allow-listed extension trades its Origin for the extension token
//     (POST /extension-token), then that for a session cookie
//     (POST /sse-session) so EventSource can authenticate;
//   - the built-in viewer is opened through a one-time link
//     (GET /open/{code}) that sets the cookie and hands the page its page
//     secret in the URL fragment, which no server sees. The page keeps it
//     in memory only and derives this run's page key from it (auth says
//     how). It never sees a token. GET /api/session keeps its cookie
//     fresh and names the run; POST /api/session resumes it after the
//     bridge restarted.

// viewerCSP keeps the viewer to its own files: no inline script, nothing
// fetched from anywhere else, no framing.
const viewerCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

func isStatic(p string) bool {
	return strings.HasPrefix(p, "/viewer/") || strings.HasPrefix(p, "/open/")
}

// viewerFile serves the viewer: / is its page, /viewer/* its files.
func (s *Server) viewerFile(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if name == "" {
		name = "index.html"
	}
	if s.Viewer == nil || !fs.ValidPath(name) {
		writeError(w, http.StatusNotFound, "no such file: "+r.URL.Path)
		return
	}
	b, err := fs.ReadFile(s.Viewer, name)
	if err != nil {
		writeError(w, http.StatusNotFound, "no such file: "+r.URL.Path)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Content-Security-Policy", viewerCSP)
	h.Set("Cache-Control", "no-cache")
	w.Write(b)
}

// setSessionCookie gives the browser a fresh session cookie.
func (s *Server) setSessionCookie(w http.ResponseWriter) (value string, expires time.Time) {
	value, expires = s.Sessions.Mint()
	http.SetCookie(w, &http.Cookie{
		Name: auth.CookieName, Value: value, Path: "/",
		Expires: expires, MaxAge: int(auth.SessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	return value, expires
}

// openLink redeems a one-time viewer link: it sets the session cookie and
// sends the browser on to the viewer. Used twice, it is refused.
func (s *Server) openLink(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	ws, ok := s.Links.Redeem(r.PathValue("code"))
	if !ok || s.Sessions == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte("This viewer link was already used or has expired.\n" +
			"Run `conductor-bridge open` (or use Open session viewer in the menu bar) for a new one.\n"))
		return
	}
	cookie, _ := s.setSessionCookie(w)
	to := "/"
	switch {
	case r.URL.Query().Get("to") == "usage":
		to = "/usage" // the menu bar's "Today's cost"; a fixed page, never a URL from the query
	case ws != "":
		to += "?ws=" + url.QueryEscape(ws)
	}
	to += "#ps=" + s.Sessions.PageSecret(cookie)
	// Whatever a page of this origin left behind while the bridge was
	// down — a squatter's pages cached for later, a service worker of its
	// own, anything in storage — must not serve the page the secret goes
	// to. The viewer keeps nothing in storage, so this costs nothing.
	w.Header().Set("Clear-Site-Data", `"cache", "storage"`)
	s.Log.Info().Str("workspace", ws).Msg("viewer link opened")
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// extensionToken hands an allow-listed extension its token, the way
// gstack's side panel gets one from gstack's own server. The bridge's own
// panel gets its token from the native host instead (NativeOrigins). It is not the API
// token: a local program can forge the Origin, so the extension token is
// worth what a browser may do — paired workspaces only, no local control.
func (s *Server) extensionToken(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if !strings.HasPrefix(origin, "chrome-extension://") || !slices.Contains(s.Origins, origin) {
		writeError(w, http.StatusForbidden, "the token is only given to allow-listed extensions")
		return
	}
	if slices.Contains(s.NativeOrigins, origin) {
		writeError(w, http.StatusForbidden, "this extension signs in through Chrome native messaging, not here (install it with: conductor-bridge extension install)")
		return
	}
	s.Log.Info().Str("origin", origin).Msg("extension token handed out")
	writeJSON(w, http.StatusOK, map[string]string{"token": s.Sessions.ExtensionToken()})
}

// sseSession trades a token for a session cookie, which EventSource
// (that cannot send an Authorization header) carries by itself.
func (s *Server) sseSession(w http.ResponseWriter, r *http.Request) {
	if c := s.credential(r); c != credToken && c != credExtension {
		unauthorized(w, "missing or wrong token (see: conductor-bridge token)")
		return
	}
	_, exp := s.setSessionCookie(w)
	writeJSON(w, http.StatusOK, map[string]any{"expires": exp.UTC(), "cookie": auth.CookieName})
}

// fromOwnPage reports whether r is a same-origin request of a page of the
// bridge's origin.
func (s *Server) fromOwnPage(r *http.Request) bool {
	return r.Header.Get("Sec-Fetch-Site") == "same-origin" && s.sameOrigin(r)
}

// pageSession keeps an open viewer signed in: it renews the cookie once
// half its life is gone, up to auth.MaxSession. Only the bridge's own page
// gets here (a same-origin request with its cookie and page key); it hands
// out nothing but a fresher cookie. A page without them is told this
// run's name (401), from which a page that holds its page secret derives
// its page key, to resume with.
func (s *Server) pageSession(w http.ResponseWriter, r *http.Request) {
	if s.Sessions == nil || !s.fromOwnPage(r) {
		unauthorized(w, "open the viewer with: conductor-bridge open")
		return
	}
	cookie := sessionCookie(r)
	exp, ok := s.Sessions.Valid(cookie)
	if !ok || s.credential(r) != credPage {
		w.Header().Set("WWW-Authenticate", `Bearer realm="conductor-bridge"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{
			"error": "open the viewer with: conductor-bridge open", "run": s.Sessions.Run()})
		return
	}
	if time.Until(exp) < auth.SessionTTL/2 {
		if renewed, rexp, ok := s.Sessions.Renew(cookie); ok && renewed != cookie {
			http.SetCookie(w, &http.Cookie{
				Name: auth.CookieName, Value: renewed, Path: "/",
				Expires: rexp, MaxAge: int(time.Until(rexp) / time.Second),
				HttpOnly: true, SameSite: http.SameSiteStrictMode,
			})
			exp = rexp
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"expires": exp.UTC(), "exposure": s.Pairing.Exposure(), "run": s.Sessions.Run()})
}

// resumeSession signs an open viewer in again after the bridge restarted:
// {"session": "<start>.<nonce>" of its page secret, "key": this run's
// page key} gets a cookie of this run. Only a page holding the page
// secret its link handed over can make the key.
func (s *Server) resumeSession(w http.ResponseWriter, r *http.Request) {
	if s.Sessions == nil || !s.fromOwnPage(r) {
		unauthorized(w, "open the viewer with: conductor-bridge open")
		return
	}
	var body struct {
		Session string `json:"session"`
		Key     string `json:"key"`
	}
	if !decodeJSON(w, r, 4<<10, &body) {
		return
	}
	cookie, exp, ok := s.Sessions.Resume(body.Session, body.Key)
	if !ok {
		unauthorized(w, "this page's session cannot be resumed; open the viewer with: conductor-bridge open")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: auth.CookieName, Value: cookie, Path: "/",
		Expires: exp, MaxAge: int(time.Until(exp) / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	s.Log.Info().Msg("viewer resumed after a restart")
	writeJSON(w, http.StatusOK, map[string]any{"expires": exp.UTC(), "exposure": s.Pairing.Exposure(), "run": s.Sessions.Run()})
}

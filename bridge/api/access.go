package api

import (
	"net/http"
	"slices"
	"strings"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/pairing"
)

// Who may do what (DESIGN.md, "Security"):
//
//   - Reads (workspace list, streams, message lists) need a credential:
//     the API token, the extension token, a page key (with its cookie), or
//     the browser session cookie on an allow-listed extension's request.
//     Other users on this Mac can reach 127.0.0.1 too.
//   - The cookie alone opens nothing to a page of the bridge's own origin:
//     a browser attaches it by itself to every page of that origin, and a
//     page served there while the bridge was down (by whoever took the
//     port) is still open when the bridge comes back. The bridge's own
//     pages send their page key on every request, which only a page opened
//     by a one-time link holds (auth.Sessions says how).
//   - State changes need the API token, the extension token or a page key,
//     never the cookie alone: a browser attaches cookies by itself (to every
//     port of 127.0.0.1), so a cookie proves nothing about who asked.
//   - Local control (pairing, exposure, registering worktrees, viewer links,
//     token rotation) needs the API token, from outside any browser: a web
//     page, even an allow-listed extension, cannot widen what browsers see.
//   - A browser sees only paired workspaces, unless the user set exposure
//     to all. "A browser" is a request with browser headers, or any request
//     made with a browser's credential: the extension token is handed to
//     whoever presents an allow-listed Origin, which a local program can
//     forge, so what it can do is bounded by the credential, not the headers.

type credential int

const (
	credNone      credential = iota
	credCookie               // the HttpOnly session cookie, on an extension's request: reads only
	credPage                 // the viewer's page key, bound to its cookie
	credExtension            // the token an allow-listed extension gets
	credToken                // the API token
)

// credential returns the strongest credential r carries.
//
// The extension token counts only from an extension, or from a program
// with no browser headers (which the peer check has found to be the
// user's own). A panel may have sent it to whoever held the port while
// the bridge was down; what that squatter can then do with it is load its
// own page in the bridge's origin in the person's browser (a viewer tab
// reloaded meanwhile), and that page's requests are labelled same-origin,
// which no page can change: they are refused it.
func (s *Server) credential(r *http.Request) credential {
	bearer := auth.Bearer(r)
	if bearer == "" && r.Method == http.MethodGet {
		// EventSource cannot send a header: the viewer's streams carry
		// their page key in the query (only the path is ever logged).
		if pk := r.URL.Query().Get("pk"); strings.HasPrefix(pk, "pk.") {
			bearer = pk
		}
	}
	if bearer != "" && s.Token != nil && s.Token.Equal(bearer) {
		return credToken
	}
	if s.Sessions == nil {
		return credNone
	}
	if s.Sessions.ValidExtensionToken(bearer) && (!fromBrowser(r) || s.fromExtension(r)) {
		return credExtension
	}
	cookie := sessionCookie(r)
	if cookie == "" {
		return credNone
	}
	if strings.HasPrefix(bearer, "pk.") && s.Sessions.ValidPageKey(cookie, bearer) && s.sameOrigin(r) {
		return credPage
	}
	if _, ok := s.Sessions.Valid(cookie); ok && s.fromExtension(r) {
		return credCookie
	}
	return credNone
}

// fromExtension reports whether r was sent by an extension (or the person
// at the address bar), never by a web page. Chrome labels an extension's
// GET with host permission Sec-Fetch-Site "none", with no Origin; its
// other requests carry its Origin, allow-listed. A page's requests are
// labelled same-origin (or same-site, cross-site), and no page can set
// either header. A navigation is refused too: a service worker a page
// left behind could pass the person's typed address on with its label.
func (s *Server) fromExtension(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		return strings.HasPrefix(o, "chrome-extension://") && slices.Contains(s.Origins, o)
	}
	return r.Header.Get("Sec-Fetch-Site") == "none" && r.Header.Get("Sec-Fetch-Mode") != "navigate"
}

func sessionCookie(r *http.Request) string {
	c, err := r.Cookie(auth.CookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// sameOrigin reports whether r comes from the bridge's own pages: no Origin
// (a same-origin GET) or the bridge's own origin (a same-origin POST).
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	return o == "" || s.isSelfOrigin(o, r.Host)
}

// fromBrowser reports whether r was sent by a web browser. Browsers mark
// every request with Sec-Fetch-* headers and cross-origin ones with Origin;
// command-line tools send neither, and never our cookie.
func fromBrowser(r *http.Request) bool {
	return r.Header.Get("Origin") != "" || r.Header.Get("Sec-Fetch-Site") != "" ||
		r.Header.Get("Sec-Fetch-Mode") != "" || sessionCookie(r) != ""
}

// browserScoped reports whether r gets a browser's view: it has browser
// headers, or a credential only browsers are given.
func (s *Server) browserScoped(r *http.Request) bool {
	return fromBrowser(r) || s.credential(r) != credToken
}

// visibility returns what r may see, working out who asks once: a list
// of many workspaces asks it of each, and the credential takes HMACs.
func (s *Server) visibility(r *http.Request) func(id string) bool {
	if s.Pairing == nil || !s.browserScoped(r) || s.Pairing.Exposure() == pairing.ExposeAll {
		return func(string) bool { return true }
	}
	return func(id string) bool {
		_, ok := s.Pairing.Paired(id)
		return ok
	}
}

// visible reports whether workspace id may be shown to r.
func (s *Server) visible(r *http.Request, id string) bool { return s.visibility(r)(id) }

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="conductor-bridge"`)
	writeError(w, http.StatusUnauthorized, msg)
}

// read wraps a handler that only reads: any credential will do.
func (s *Server) read(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.credential(r) == credNone {
			unauthorized(w, "missing or wrong credentials (see: conductor-bridge token, or open the viewer with: conductor-bridge open)")
			return
		}
		next(w, r)
	}
}

// write wraps a state-changing handler: the token or a page key.
func (s *Server) write(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch s.credential(r) {
		case credToken, credExtension, credPage:
			next(w, r)
		case credCookie:
			unauthorized(w, "the session cookie is accepted on reads only; a state change needs the token")
		default:
			unauthorized(w, "missing or wrong token (see: conductor-bridge token)")
		}
	}
}

// local wraps a control handler: the token, from outside any browser.
func (s *Server) local(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.credential(r) != credToken {
			unauthorized(w, "missing or wrong token (see: conductor-bridge token)")
			return
		}
		if fromBrowser(r) {
			writeError(w, http.StatusForbidden, "this is changed from the menu bar or the command line, not from a browser")
			return
		}
		next(w, r)
	}
}

package api

import (
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// guard refuses what no legitimate client sends, before any handler runs
// (a request through the bridge's socket file comes from the user's own
// program, never a browser, and needs no Host or peer check):
//   - a connection from another user of this machine, or from one we
//     cannot tell, unless it shows the API token or hook secret (peer.go);
//   - a Host other than 127.0.0.1:<port> or localhost:<port>. A web page
//     that rebinds its own DNS name to 127.0.0.1 still sends its own name
//     as Host, so this stops DNS rebinding.
//   - an Origin that is neither allow-listed (an extension) nor the
//     bridge's own (the viewer). Browsers send Origin on every cross-origin
//     fetch and EventSource and on every POST; local tools send none.
//   - a request another site's page made without Origin (an <img>, a
//     no-cors fetch): browsers label those Sec-Fetch-Site same-site or
//     cross-site. Only a top-level navigation to the viewer may come so.
//
// Allow-listed origins get CORS headers, preflights included; no one else
// gets any, so no other page can read an answer.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if foreignConn(r) {
			// Another account's connection serves one request (its
			// /health, or its 403) and closes: it holds no slot for long.
			h.Set("Connection", "close")
		}
		if !viaSocket(r) && !s.hostAllowed(r.Host) {
			s.refuse(w, r, "forbidden host")
			return
		}
		if !s.peerAllowed(w, r) {
			return
		}
		origin := r.Header.Get("Origin")
		extension := origin != "" && slices.Contains(s.Origins, origin)
		switch {
		case extension:
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Credentials", "true")
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions {
				preflight(w, r)
				return
			}
		case origin != "" && !s.isSelfOrigin(origin, r.Host):
			s.refuse(w, r, "forbidden origin")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); !extension && (site == "cross-site" || site == "same-site") &&
			!isViewerNavigation(r) {
			s.refuse(w, r, "forbidden: request made by another site")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers 403. Refusals are logged at debug level only: a page
// hammering the port must not be able to fill the disk.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, why string) {
	p := r.URL.Path
	if strings.HasPrefix(p, "/open/") {
		p = "/open/…" // an unused one-time code is a secret
	}
	s.Log.Debug().Str("why", why).Str("method", r.Method).Str("path", p).
		Str("host", r.Host).Str("origin", r.Header.Get("Origin")).
		Str("fetch_site", r.Header.Get("Sec-Fetch-Site")).Msg("request refused")
	writeError(w, http.StatusForbidden, why)
}

// preflight answers a CORS preflight from an allow-listed origin.
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
	h.Set("Access-Control-Max-Age", "600")
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}

// isViewerNavigation reports whether r is the user's browser opening the
// viewer (or its usage page) or a viewer link from wherever the link was
// shown.
func isViewerNavigation(r *http.Request) bool {
	return r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" &&
		(r.URL.Path == "/" || r.URL.Path == "/usage" || strings.HasPrefix(r.URL.Path, "/open/"))
}

func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if host != "127.0.0.1" && host != "localhost" {
		return false
	}
	return s.Port == 0 || port == strconv.Itoa(s.Port)
}

// isSelfOrigin reports whether origin is the bridge's own, as reached
// through host (already checked to be loopback with the right port).
func (s *Server) isSelfOrigin(origin, host string) bool {
	return origin == "http://"+host
}

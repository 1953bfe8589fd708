package api

import (
	"net"
	"net/http"
	"slices"
	"strconv"
)

// guard refuses what no legitimate local client sends:
//   - a Host other than 127.0.0.1:<port> or localhost:<port>. A web page
//     that rebinds its own DNS name to 127.0.0.1 still sends its own name
//     as Host, so this stops DNS rebinding.
//   - an Origin that is present and not allow-listed. Browsers send Origin
//     on cross-origin fetch and EventSource; local tools send none.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusForbidden, "forbidden host")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !slices.Contains(s.Origins, o) {
			writeError(w, http.StatusForbidden, "forbidden origin")
			return
		}
		next.ServeHTTP(w, r)
	})
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

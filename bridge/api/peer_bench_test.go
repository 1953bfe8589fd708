package api

import (
	"io"
	"net"
	"net/http"
	"testing"

	"conductorbridge/bridge/httplimit"
)

// BenchmarkNewConnection: one request per fresh connection, with the
// extension token (the peer is looked up) and with the API token (it is
// not): the difference is what the peer check costs a connection. The
// third is the bridge's own listener, which looks every connection's
// owner up as it accepts it.
func BenchmarkNewConnection(b *testing.B) {
	for _, kind := range []string{"extension token", "API token", "API token, owner at accept"} {
		b.Run(kind, func(b *testing.B) {
			var wrap func(net.Listener, *Server) net.Listener
			if kind == "API token, owner at accept" { // as app/serve.go listens
				wrap = func(ln net.Listener, s *Server) net.Listener {
					return httplimit.Defaults(64).ListenOwn(ln, s.ConnOwner)
				}
			}
			e := newEnvListening(b, wrap)
			tok := e.srv.Sessions.ExtensionToken()
			if kind != "extension token" {
				tok = e.token.Value()
			}
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for b.Loop() {
				req, _ := http.NewRequest("GET", e.ts.URL+"/api/settings", nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatal(err, resp)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

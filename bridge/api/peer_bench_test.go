package api

import (
	"io"
	"net/http"
	"testing"
)

// BenchmarkNewConnection: one request per fresh connection, with the
// extension token (the peer is looked up) and with the API token (it is
// not): the difference is what the peer check costs a connection.
func BenchmarkNewConnection(b *testing.B) {
	for _, kind := range []string{"extension token", "API token"} {
		b.Run(kind, func(b *testing.B) {
			e := newEnv(b)
			tok := e.srv.Sessions.ExtensionToken()
			if kind == "API token" {
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

package api

import (
	"encoding/json"
	"testing"
)

// TestMemoryReportsLiveHeapToTheTokenOnly: GET /api/memory gives the
// heap and stacks after a collection to the API token, and nothing to a
// caller without it or to a browser.
func TestMemoryReportsLiveHeapToTheTokenOnly(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		r      req
		status int
	}{
		{"token", req{path: "/api/memory", bearer: e.token.Value()}, 200},
		{"no credential", req{path: "/api/memory"}, 401},
		{"from a browser", req{path: "/api/memory", bearer: e.token.Value(), origin: extOrigin}, 403},
	}
	for _, tt := range tests {
		resp := e.send(t, tt.r)
		var m memoryJSON
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.status)
			continue
		}
		if tt.status == 200 && (m.HeapInuse == 0 || m.StackInuse == 0 || m.HeapLive == 0 || m.HeapLive > m.HeapInuse || m.Goroutines == 0) {
			t.Errorf("%s: implausible figures %+v", tt.name, m)
		}
	}
}

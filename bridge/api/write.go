package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"conductorbridge/bridge/auth"
)

// MaxBody bounds a JSON request body.
const MaxBody = 64 << 10

// maxHookBody is larger: a hook's input carries Claude's last message or
// a tool's whole response. It matches what the hook command relays.
const maxHookBody = 4 << 20

// authorized wraps a state-changing handler: it needs the Bearer token
// (compared in constant time). The Host and Origin checks already ran in
// guard, so a cross-site page can neither reach it nor read the token.
func authorized(secret *auth.Secret, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if secret == nil || !secret.Equal(auth.Bearer(r)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="conductor-bridge"`)
			writeError(w, http.StatusUnauthorized, "missing or wrong token (see: conductor-bridge token)")
			return
		}
		next(w, r)
	}
}

// decodeJSON reads a JSON object body of at most limit bytes into v. It
// answers the client itself and returns false when the body is refused.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) bool {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "application/json" {
		// Also what stops a cross-site form post: forms cannot send JSON.
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body is larger than %d bytes", limit))
		default:
			writeError(w, http.StatusBadRequest, "bad JSON body: "+strings.TrimPrefix(err.Error(), "json: "))
		}
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "bad JSON body: more than one value")
		return false
	}
	return true
}

package transcript

import "testing"

// sameResponse is the plain definition sameKeyed must agree with: both
// keys split at "|" into message id and requestId.
func sameResponse(a, b string) bool {
	if a == b {
		return true
	}
	ida, reqa := splitKey(a)
	idb, reqb := splitKey(b)
	return ida != "" && ida == idb && (reqa == "" || reqb == "")
}

func TestSameKeyedIsSameResponse(t *testing.T) {
	keys := []string{"", "|", "||", "msg_1", "msg_1|", "msg_1|req_1", "msg_1|req_2", "msg_12", "msg_12|req_1",
		"msg_1|req_1|x", "msg_1||", "|req_1", "msg_", "msg_1x|req_1", "#abc", "#abc|r", "msg_2|req_1"}
	for _, a := range keys {
		for _, b := range keys {
			id, req := splitKey(b)
			if got, want := sameKeyed(a, b, id, req), sameResponse(a, b); got != want {
				t.Errorf("sameKeyed(%q, %q) = %v, sameResponse says %v", a, b, got, want)
			}
		}
	}
}

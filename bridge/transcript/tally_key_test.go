package transcript

import (
	"hash/fnv"
	"strconv"
	"testing"
)

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

// TestShortKeyIsFNV wants the short keys journals already hold: "#" and
// the FNV-1a hash of the message id, in base 36.
func TestShortKeyIsFNV(t *testing.T) {
	for _, k := range []string{"", "msg_1", "msg_1|req_1", "|req_1", "msg_01ABCdef|req_011CXYZ", "日本|x"} {
		id, _ := splitKey(k)
		if id == "" {
			id = k
		}
		h := fnv.New64a()
		h.Write([]byte(id))
		if got, want := shortKey(k), "#"+strconv.FormatUint(h.Sum64(), 36); got != want {
			t.Errorf("shortKey(%q) = %q, want %q", k, got, want)
		}
	}
}

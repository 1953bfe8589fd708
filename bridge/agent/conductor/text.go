package conductor

import (
	"bytes"

	"conductorbridge/bridge/event"
)

// cut keeps at most event.MaxText runes of b, copying only those.
func cut(b []byte) (string, bool) { return event.CutBytes(b, event.MaxText) }

// hasPrefixTrim reports whether b starts with prefix after white space.
func hasPrefixTrim(b []byte, prefix string) bool {
	return bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte(prefix))
}

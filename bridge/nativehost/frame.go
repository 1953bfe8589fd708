// Package nativehost is the bridge's Chrome native messaging host: the
// program Chrome starts, as the user who runs Chrome, when the bridge's
// side panel asks for it, and the manifest that tells each Chromium-family
// browser where that program is.
//
// The side panel learns the bridge's port and a browser credential from
// the host, never from whatever answers on 127.0.0.1: the host reads them
// from the bridge's 0600 state, and hands them over only after it has
// checked that the socket listening on that port belongs to the same OS
// user. No other account's Chrome can start this user's host.
//
// The protocol (developer.chrome.com/docs/extensions/develop/concepts/
// native-messaging, "Native messaging protocol"): each message, both ways,
// is a 32-bit length in native byte order, then that many bytes of UTF-8
// JSON. A message from the host may be at most 1 MB.
package nativehost

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxFromHost is the largest message Chrome accepts from a host: 1 MB
// (native-messaging docs, "The maximum size of a single message from the
// native messaging host is 1 MB"; Chromium's kMaximumNativeMessageSize,
// 1024*1024).
const MaxFromHost = 1024 * 1024

// MaxToHost is the largest message this host reads. Chrome may send up to
// 64 MiB (older docs say 4 GB); the host's requests are a few bytes, and a
// length beyond this is a broken or hostile stream, refused before
// anything is allocated.
const MaxToHost = 64 * 1024

// ErrTooLarge is a message over a limit. The stream cannot be trusted after
// it: the host answers once and stops.
var ErrTooLarge = errors.New("message too large")

// ReadMessage reads one message. At a clean end of the stream (Chrome
// closed it between messages) it returns io.EOF; a stream cut inside a
// message is io.ErrUnexpectedEOF.
func ReadMessage(r io.Reader, limit int) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err // io.EOF, or io.ErrUnexpectedEOF for a cut header
	}
	size := binary.NativeEndian.Uint32(n[:])
	if uint64(size) > uint64(limit) {
		return nil, fmt.Errorf("%w: %d bytes announced, at most %d read", ErrTooLarge, size, limit)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read a message of %d bytes: %w", size, err)
	}
	return b, nil
}

// WriteMessage writes v as one message, refusing one Chrome would not take.
func WriteMessage(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	if len(b) > MaxFromHost {
		return fmt.Errorf("%w: %d bytes, Chrome takes at most %d from a host", ErrTooLarge, len(b), MaxFromHost)
	}
	msg := make([]byte, 4+len(b))
	binary.NativeEndian.PutUint32(msg, uint32(len(b)))
	copy(msg[4:], b)
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	return nil
}

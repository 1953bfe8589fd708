// Package jsonbytes appends JSON values to byte slices exactly as
// encoding/json writes them, for the few hot encoders written by hand
// (events, the workspace list): no reflection, no allocation beyond
// the slice's growth.
package jsonbytes

import (
	"time"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// String appends s quoted as encoding/json does: invalid UTF-8 replaced
// by U+FFFD, U+2028 and U+2029 escaped, and with escapeHTML (Marshal's
// default) <, > and & escaped too; an Encoder with SetEscapeHTML(false)
// leaves those as they are.
func String(b []byte, s string, escapeHTML bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs escaping: most text is
		// plain ASCII, and a byte at a time was most of an event's cost.
		if j := plainRun(s, i, escapeHTML); j > i {
			i = j
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Word-at-a-time tests (SWAR): ones has 1 in each byte, highs the high
// bit of each; x has a zero byte iff (x-ones) &^ x & highs is not 0.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load64 is s[i:i+8] as a little-endian word.
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// plainRun is where the whole words of plain bytes from i end: bytes
// that need no escaping and no look as UTF-8 (ASCII, at least 0x20, not
// '"' or '\\', nor <, > or & with escapeHTML).
func plainRun(s string, i int, escapeHTML bool) int {
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		y := x ^ (ones * '"')
		z := x ^ (ones * '\\')
		if (x|(x-ones*0x20)&^x|(y-ones)&^y|(z-ones)&^z)&highs != 0 {
			return i
		}
		if escapeHTML {
			lt, gt, amp := x^(ones*'<'), x^(ones*'>'), x^(ones*'&')
			if ((lt-ones)&^lt|(gt-ones)&^gt|(amp-ones)&^amp)&highs != 0 {
				return i
			}
		}
	}
	return i
}

// Time appends t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, in t's own zone), and reports false where MarshalJSON
// would fail: a year outside 0–9999.
func Time(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

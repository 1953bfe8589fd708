package fakemodel

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// The few lines of protobuf wire format the Cursor backend needs
// (https://protobuf.dev/programming-guides/encoding/): a field is a key
// (field number << 3 | wire type) then a varint (type 0) or a length and
// that many bytes (type 2: strings and nested messages).
const (
	wireVarint = 0
	wireBytes  = 2
)

// pbMessage builds one protobuf message field by field.
type pbMessage []byte

// varint appends field n as a varint; zero is left out, as proto3 does.
func (m pbMessage) varint(n int, v uint64) pbMessage {
	if v == 0 {
		return m
	}
	m = binary.AppendUvarint(m, uint64(n)<<3|wireVarint)
	return binary.AppendUvarint(m, v)
}

// bytes appends field n as length-delimited bytes (a nested message).
func (m pbMessage) bytes(n int, b []byte) pbMessage {
	m = binary.AppendUvarint(m, uint64(n)<<3|wireBytes)
	m = binary.AppendUvarint(m, uint64(len(b)))
	return append(m, b...)
}

// str appends field n as a string; "" is left out.
func (m pbMessage) str(n int, s string) pbMessage {
	if s == "" {
		return m
	}
	return m.bytes(n, []byte(s))
}

// pbField is one field read back from a message.
type pbField struct {
	num   int
	wire  int
	value uint64 // a varint's value
	data  []byte // a length-delimited field's bytes
}

// pbFields splits a message into its fields; it reads varints and
// length-delimited fields only (what the SDK's requests carry) and fails
// on anything else.
func pbFields(b []byte) ([]pbField, error) {
	var out []pbField
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("protobuf: bad key")
		}
		b = b[n:]
		f := pbField{num: int(key >> 3), wire: int(key & 7)}
		switch f.wire {
		case wireVarint:
			f.value, n = binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("protobuf: bad varint in field %d", f.num)
			}
			b = b[n:]
		case wireBytes:
			size, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < size {
				return nil, fmt.Errorf("protobuf: bad length in field %d", f.num)
			}
			f.data, b = b[n:n+int(size)], b[n+int(size):]
		default:
			return nil, fmt.Errorf("protobuf: wire type %d in field %d", f.wire, f.num)
		}
		out = append(out, f)
	}
	return out, nil
}

// pbStrings lists every string in a message, however deep, without its
// schema: a length-delimited field that parses as a message is walked,
// else it is kept when it is valid UTF-8. Good enough to find a prompt.
func pbStrings(b []byte) []string {
	fields, err := pbFields(b)
	if err != nil {
		return nil
	}
	var out []string
	for _, f := range fields {
		if f.wire != wireBytes || len(f.data) == 0 {
			continue
		}
		if inner := pbStrings(f.data); len(inner) > 0 {
			out = append(out, inner...)
		} else if utf8.Valid(f.data) {
			out = append(out, string(f.data))
		}
	}
	return out
}

// pbPath follows nested message fields path (the first of each number)
// and returns the last one's bytes; ok is false when one is missing.
func pbPath(b []byte, path ...int) (data []byte, ok bool) {
	for _, num := range path {
		fields, err := pbFields(b)
		if err != nil {
			return nil, false
		}
		found := false
		for _, f := range fields {
			if f.num == num && f.wire == wireBytes {
				b, found = f.data, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return b, true
}

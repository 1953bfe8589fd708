package engine

import (
	"encoding/json"
	"strconv"

	"conductorbridge/bridge/jsonbytes"
)

// MarshalJSON encodes a delta as encoding/json would, byte for byte
// (keys sorted, empty fields left out), without reflection: a busy
// workspace journals one with every line an agent writes.
func (d delta) MarshalJSON() ([]byte, error) {
	return d.appendJSON(make([]byte, 0, 64+48*len(d.Sessions)))
}

// appendJSON appends what MarshalJSON returns to b.
func (d delta) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"s":`...)
	if d.Sessions == nil {
		return append(b, "null}"...), nil
	}
	b = append(b, '{')
	var err error
	first := true
	eachSorted(d.Sessions, func(id string, sd sessionDelta) {
		if err != nil {
			return
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonbytes.String(b, id, true)
		b = append(b, ':')
		b, err = sd.appendJSON(b)
	})
	if err != nil {
		return nil, err
	}
	return append(b, "}}"...), nil
}

func (sd sessionDelta) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	n := len(b)
	field := func(name string) {
		if len(b) > n {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	if sd.Offset != 0 {
		field("o")
		b = strconv.AppendInt(b, sd.Offset, 10)
	}
	if len(sd.Subs) > 0 {
		field("sub")
		b = append(b, '{')
		m := len(b)
		eachSorted(sd.Subs, func(base string, off int64) {
			if len(b) > m {
				b = append(b, ',')
			}
			b = jsonbytes.String(b, base, true)
			b = append(b, ':')
			b = strconv.AppendInt(b, off, 10)
		})
		b = append(b, '}')
	}
	if st := sd.Status; st != nil {
		field("st")
		b = append(b, `{"s":`...)
		b = jsonbytes.String(b, st.State, true)
		b = append(b, `,"r":`...)
		b = jsonbytes.String(b, st.Reason, true)
		b = append(b, `,"t":`...)
		var ok bool
		if b, ok = jsonbytes.Time(b, st.Since); !ok {
			return nil, &json.UnsupportedValueError{Str: st.Since.String()}
		}
		b = append(b, '}')
	}
	if sd.LastID != 0 {
		field("l")
		b = strconv.AppendInt(b, sd.LastID, 10)
	}
	return append(b, '}'), nil
}

package agent

import (
	"github.com/valyala/fastjson"

	"conductorbridge/bridge/event"
)

// cutText keeps at most event.MaxText runes of b, copying only those.
func cutText(b []byte) (string, bool) { return event.CutBytes(b, event.MaxText) }

// inputKeys are the fields that say what a tool call does, in the order
// they are looked for: a command, a path, a pattern, a query.
var inputKeys = []string{"command", "cmd", "file_path", "path", "notebook_path", "pattern", "url", "query", "description", "skill"}

// ToolInput renders a tool's input for a person: its telling field when
// it has one, else compact JSON.
func ToolInput(in *fastjson.Value) (string, bool) {
	if in == nil {
		return "", false
	}
	switch in.Type() {
	case fastjson.TypeString:
		return cutText(in.GetStringBytes())
	case fastjson.TypeObject:
		for _, k := range inputKeys {
			if v := in.Get(k); v != nil {
				switch v.Type() {
				case fastjson.TypeString:
					if s := v.GetStringBytes(); len(s) > 0 {
						return cutText(s)
					}
				case fastjson.TypeArray: // a command as argv
					var b []byte
					for i, a := range v.GetArray() {
						if i > 0 {
							b = append(b, ' ')
						}
						b = append(b, a.GetStringBytes()...)
					}
					if len(b) > 0 {
						return cutText(b)
					}
				}
			}
		}
		if in.GetObject().Len() == 0 {
			return "", false
		}
	}
	return cutText(in.MarshalTo(nil))
}

// ResultText flattens a tool result (a string, text blocks, or any JSON)
// to text. Conductor's own edit results ({status, diffString}) show their
// diff.
func ResultText(c *fastjson.Value) (string, bool) {
	if c == nil {
		return "", false
	}
	if d := c.Get("diffString"); d != nil && d.Type() == fastjson.TypeString {
		return cutText(d.GetStringBytes())
	}
	switch c.Type() {
	case fastjson.TypeNull:
		return "", false
	case fastjson.TypeString:
		return cutText(c.GetStringBytes())
	case fastjson.TypeArray:
		var buf []byte
		for _, b := range c.GetArray() {
			if len(buf) > 4*event.MaxText {
				s, _ := cutText(buf)
				return s, true
			}
			if len(buf) > 0 {
				buf = append(buf, '\n')
			}
			if t := b.GetStringBytes("text"); len(t) > 0 || string(b.GetStringBytes("type")) == "text" {
				buf = append(buf, t...)
				continue
			}
			buf = append(buf, '[')
			buf = append(buf, b.GetStringBytes("type")...)
			buf = append(buf, ']')
		}
		return cutText(buf)
	}
	return cutText(c.MarshalTo(nil))
}

package codex

import "bytes"

// A 0.169 rollout repeats most of what it records: each response item is
// followed by an event_msg item_completed carrying it again (a shell
// call's whole output twice), and world_state snapshots run to kilobytes.
// The parser reads none of those, so a line whose type says so is passed
// over by a look at its first bytes instead of a full JSON parse. Codex
// writes every line as {"timestamp":…,["ordinal":…,]"type":…,"payload":
// {"type":…; a line shaped otherwise is parsed in full, as before.

// readTypes are the line types the parser reads.
var readTypes = map[string]bool{"session_meta": true, "turn_context": true, "response_item": true, "event_msg": true, "token_usage_record": true}

// readEvents are the event_msg payload types the parser reads.
var readEvents = map[string]bool{
	"task_started": true, "turn_started": true, "task_complete": true, "turn_complete": true, "turn_aborted": true, "token_count": true,
	"exec_approval_request": true, "apply_patch_approval_request": true, "request_user_input": true, "elicitation_request": true,
	"request_permissions": true,
}

var (
	typeKey    = []byte(`"type":"`)
	payloadKey = []byte(`"payload":{"type":"`)
)

// headLimit is how far into a line its type is looked for.
const headLimit = 160

// skippable reports whether line is, by its leading keys, of a type the
// parser would ignore.
func skippable(line []byte) bool {
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return false // not a whole object: let the parser say what is wrong
	}
	head := line[:min(len(line), headLimit)]
	i := bytes.Index(head, typeKey)
	if i < 0 || !bytes.HasPrefix(head[:i], []byte(`{"timestamp":"`)) {
		return false
	}
	typ, rest, ok := quoted(line[i+len(typeKey):])
	if !ok {
		return false
	}
	if !readTypes[string(typ)] {
		return bytes.HasPrefix(rest, []byte(`,"payload":`)) // world_state, compacted, …
	}
	if string(typ) != "event_msg" || !bytes.HasPrefix(rest, []byte(`,`)) || !bytes.HasPrefix(rest[1:], payloadKey) {
		return false
	}
	ev, _, ok := quoted(rest[1+len(payloadKey):])
	return ok && !readEvents[string(ev)]
}

// quoted splits s at the end of the JSON string it starts inside (just
// after the opening quote): a plain name with no escapes, or not ok.
func quoted(s []byte) (name, rest []byte, ok bool) {
	for i := 0; i < len(s) && i < 64; i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i], s[i+1:], i > 0
		case c == '\\' || c < ' ':
			return nil, nil, false
		}
	}
	return nil, nil, false
}

package eventtest

import "conductorbridge/bridge/event"

// OfType is evs' events of type typ, in order.
func OfType(evs []event.Event, typ string) []event.Event {
	var out []event.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// OfSession is session's events in evs of the kinds a corpus lists (all
// but status and session events), in order.
func OfSession(evs []event.Event, session string) []event.Event {
	var out []event.Event
	for _, e := range evs {
		if e.SessionID == session && e.Type != event.Status && e.Type != event.Session {
			out = append(out, e)
		}
	}
	return out
}

// LastStatus is the state of session's last status event in evs, "" if
// there is none.
func LastStatus(evs []event.Event, session string) string {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == event.Status && evs[i].SessionID == session {
			return evs[i].State
		}
	}
	return ""
}

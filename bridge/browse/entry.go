package browse

import (
	"net/url"
	"regexp"
	"strings"
	"time"

	"conductorbridge/bridge/event"
)

// entry is gstack's ActivityEntry (activity.ts) as it comes on the wire.
// args are already redacted by gstack (filterArgs: fill, type, cookie,
// header and secret query parameters) and result cut at 200 characters.
type entry struct {
	ID        int64    `json:"id"`
	Timestamp float64  `json:"timestamp"` // ms since the epoch, the browse server's clock
	Type      string   `json:"type"`      // command_start, command_end, navigation, error
	Command   string   `json:"command"`
	Args      []string `json:"args"`
	URL       string   `json:"url"`
	Duration  float64  `json:"duration"` // ms
	Status    string   `json:"status"`   // ok, error
	Error     string   `json:"error"`
	Result    string   `json:"result"`
}

// gapJSON is gstack's gap event: entries gapFrom up to availableFrom are
// no longer kept by the browse server.
type gapJSON struct {
	GapFrom       int64 `json:"gapFrom"`
	AvailableFrom int64 `json:"availableFrom"`
}

// actions maps gstack's entry types to browse event actions.
var actions = map[string]string{
	"command_start": event.BrowseStart,
	"command_end":   event.BrowseEnd,
	"navigation":    event.BrowseNavigation,
	"error":         event.BrowseError,
}

// event is the entry as a browse event that arrived at now from a server
// whose run began at began, or false for a type gstack does not write.
// Every string is cut when the stream publishes it (event.Bound): args
// and result at 500 characters.
func (en *entry) event(now, began time.Time) (event.Event, bool) {
	action, ok := actions[en.Type]
	if !ok {
		return event.Event{}, false
	}
	e := event.Event{
		Type: event.Browse, TS: en.when(now, began), Action: action, BrowseID: en.ID,
		Command: en.Command, URL: redactURL(en.URL), Error: en.Error, Result: en.Result,
	}
	if len(en.Args) > 0 {
		e.Args = joinArgs(en.Args)
	}
	switch action {
	case event.BrowseEnd:
		e.OK = en.Status == "ok" && en.Error == ""
		if en.Duration > 0 && en.Duration < 1e12 {
			e.DurationMS = int64(en.Duration)
		}
	case event.BrowseError:
		e.OK = false
	}
	return e, true
}

// when is when the entry happened, as an event's ts says for the agent's
// own records: the entry's timestamp, taken on this machine's clock by the
// browse server, unless it is later than its arrival or earlier than the
// server's run (less a minute of slack): then its arrival. Arrival alone
// would misplace it: the browser's entries reach the bridge within
// milliseconds, the agent's transcript lines that caused them often later.
func (en *entry) when(now, began time.Time) time.Time {
	if en.Timestamp <= 0 || en.Timestamp > 1e15 {
		return now
	}
	t := time.UnixMilli(int64(en.Timestamp))
	if t.After(now) || t.Before(began.Add(-time.Minute)) {
		return now
	}
	return t
}

// joinArgs joins the arguments with spaces, stopping once past what an
// event keeps: an entry may carry a thousand arguments.
func joinArgs(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
		if b.Len() > 4*event.MaxText { // runes are at most 4 bytes
			break
		}
	}
	return b.String()
}

// secretParam is gstack's own test for a query parameter to redact
// (activity.ts SENSITIVE_PARAM_PATTERN). gstack applies it to the URLs
// among the arguments, not to the page's URL each entry carries: the
// bridge applies it there too, since that URL leaves the browser.
var secretParam = regexp.MustCompile(`(?i)\b(password|token|secret|key|auth|bearer|api[_-]?key)\b`)

// redactURL replaces the value of each secret-looking query parameter
// with [REDACTED], as gstack does for URL arguments.
func redactURL(raw string) string {
	if !strings.HasPrefix(raw, "http://") && !strings.HasPrefix(raw, "https://") || !strings.Contains(raw, "?") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	redacted := false
	for k := range q {
		if secretParam.MatchString(k) {
			q.Set(k, "[REDACTED]")
			redacted = true
		}
	}
	if !redacted {
		return raw
	}
	u.RawQuery = q.Encode()
	return u.String()
}
